import { field, isDict, type PickleDict, type PickleValue } from './pickle-value.js';

/** kMinBlockSize: every block is a multiple of 512 bytes. */
export const MIN_BLOCK_BYTES = 512;
/** kSmallSize: the largest request served from the small pool. */
export const SMALL_SIZE_BYTES = 1024 * 1024;

/** The allocator settings that decide block sizes (CUDAAllocatorConfig). */
export interface BlockRules {
  /** roundup_power2_divisions per interval: 16 intervals of powers of two from 1 MiB. */
  divisions: number[];
  /** max_split_size in bytes; Infinity when unlimited (the default). */
  maxSplitSizeBytes: number;
  /** expandable_segments: splits use the 512-byte rule in both pools. */
  expandableSegments: boolean;
}

/** The default settings (a file without `allocator_settings` was recorded with them). */
export const DEFAULT_RULES: BlockRules = { divisions: new Array<number>(16).fill(0), maxSplitSizeBytes: Infinity, expandableSegments: false };

const num = (v: PickleValue | undefined): number | undefined => (typeof v === 'number' ? v : undefined);

/** Reads the rules from a snapshot's `allocator_settings` (as memory_snapshot.cpp writes them). */
export function rulesFromSettings(settings: PickleDict | undefined): BlockRules {
  if (!settings) return DEFAULT_RULES;
  const divisions = DEFAULT_RULES.divisions.slice();
  const rp = field(settings, 'roundup_power2_divisions');
  if (Array.isArray(rp)) {
    rp.slice(0, 16).forEach((v, i) => (divisions[i] = num(v) ?? 0));
  } else if (isDict(rp)) {
    // Keys are the interval starts in MiB: "1", "2", "4", … "32768".
    for (let i = 0; i < 16; i++) divisions[i] = num(field(rp, String(2 ** i))) ?? 0;
  }
  const split = num(field(settings, 'max_split_size'));
  const expandable = field(settings, 'expandable_segments');
  return {
    divisions,
    // int64(SIZE_MAX) is written as -1: unlimited.
    maxSplitSizeBytes: split === undefined || split <= 0 ? Infinity : split,
    expandableSegments: expandable === true,
  };
}

/** floor(log2(n)) of a positive integer, exact up to 2^53 (Math.log2 rounds just below powers of two). */
function floorLog2(n: number): number {
  return n < 4294967296 ? 31 - Math.clz32(n) : 63 - Math.clz32(Math.floor(n / 4294967296));
}

/** The roundup_power2_divisions value for a size (CUDAAllocatorConfig::roundup_power2_divisions). */
function divisionsFor(size: number, rules: BlockRules): number {
  const log = floorLog2(size);
  const index = Math.min(15, Math.max(0, log - 20));
  return rules.divisions[index] ?? 0;
}

/** Rounds up to the next of `divisions` equal steps between powers of two (roundup_power2_next_division). */
function nextDivision(size: number, divisions: number): number {
  const floor2 = 2 ** floorLog2(size);
  if (floor2 === size) return size;
  const step = floor2 / 2 ** floorLog2(divisions);
  if (step < 1) return floor2 * 2;
  const down = Math.floor(size / step) * step;
  return down === size ? size : down + step;
}

/** The block size PyTorch's caching allocator gives a request (DeviceCachingAllocator::round_size). */
export function roundSize(size: number, rules: BlockRules = DEFAULT_RULES): number {
  if (size < MIN_BLOCK_BYTES) return MIN_BLOCK_BYTES;
  const d = divisionsFor(size, rules);
  if (d > 1 && size > MIN_BLOCK_BYTES * d) return nextDivision(size, d);
  return Math.ceil(size / MIN_BLOCK_BYTES) * MIN_BLOCK_BYTES;
}

/** True when a rounded size is served from the small pool (get_pool: size <= kSmallSize). */
export function isSmallPool(roundedBytes: number): boolean {
  return roundedBytes <= SMALL_SIZE_BYTES;
}

/**
 * The size of the block an allocation ends up with when it takes a free block of `freeBytes`
 * (DeviceCachingAllocator::should_split): the remainder is split off when it is >= 512 bytes in the
 * small pool (or with expandable segments), or > 1 MiB in the large pool for a request below
 * max_split_size; otherwise the allocation keeps the whole free block.
 */
export function blockBytesFromFree(roundedBytes: number, freeBytes: number, rules: BlockRules): number {
  const remaining = freeBytes - roundedBytes;
  if (remaining <= 0) return roundedBytes;
  const split =
    isSmallPool(roundedBytes) || rules.expandableSegments
      ? remaining >= MIN_BLOCK_BYTES
      : roundedBytes < rules.maxSplitSizeBytes && remaining > SMALL_SIZE_BYTES;
  return split ? roundedBytes : freeBytes;
}
