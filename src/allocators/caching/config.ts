/**
 * `PYTORCH_CUDA_ALLOC_CONF` as PyTorch parses it: the ConfigTokenizer of c10/core/AllocatorConfig.h,
 * then AcceleratorAllocatorConfig::parseArgs (the common keys) and CUDAAllocatorConfig::parseArgs
 * (the CUDA keys, and the check for unknown keys), with their error messages word for word.
 */
import { isPowerOf2, floorLog2, kLargeBuffer, kRoundUpPowerOfTwoIntervals } from './sizes.js';

const MB = 1048576;
const SIZE_MAX = 2 ** 64;

/** A setting PyTorch refuses; `message` is its own text. */
export class AllocConfError extends Error {}

/** The settings of the allocator that memsim models. */
export interface CachingSettings {
  /** Blocks of this size or more are never split (Infinity: unlimited, PyTorch's SIZE_MAX). */
  maxSplitSizeBytes: number;
  /** How much larger than an oversize request a cached block may be (max_non_split_rounding_mb). */
  maxNonSplitRoundingBytes: number;
  /** Divisions per power-of-two interval from 1 MiB (16 values; 0 or 1 = no rounding). */
  roundupPower2Divisions: number[];
  /** Fraction of the allowed memory above which cached blocks are collected (0 = off). */
  garbageCollectionThreshold: number;
  expandableSegments: boolean;
  /** Memory fraction of the device (null: none in force). */
  perProcessMemoryFraction: number | null;
}

/** PyTorch's defaults. */
export function defaultSettings(): CachingSettings {
  return {
    maxSplitSizeBytes: Infinity,
    maxNonSplitRoundingBytes: kLargeBuffer,
    roundupPower2Divisions: new Array<number>(kRoundUpPowerOfTwoIntervals).fill(0),
    garbageCollectionThreshold: 0,
    expandableSegments: false,
    perProcessMemoryFraction: null,
  };
}

/** Splits like ConfigTokenizer: `,` `:` `[` `]` are tokens of their own, whitespace disappears. */
export function tokenize(env: string): string[] {
  const out: string[] = [];
  let buf = '';
  for (const ch of env) {
    if (ch === ',' || ch === ':' || ch === '[' || ch === ']') {
      if (buf !== '') out.push(buf);
      buf = '';
      out.push(ch);
    } else if (!/\s/.test(ch)) {
      buf += ch;
    }
  }
  if (buf !== '') out.push(buf);
  return out;
}

class Tokens {
  /** The key being read, for messages. */
  key = '';
  constructor(readonly t: string[]) {}
  get size(): number {
    return this.t.length;
  }
  at(i: number): string {
    // PyTorch stops here with "Index out of bounds in ConfigTokenizer"; say what is missing instead.
    if (i >= this.t.length) {
      const k = this.key;
      if (/^[,:[\]]$/.test(k)) throw new AllocConfError(`expected a key (e.g. expandable_segments:True), found '${k}'`);
      if (k.includes('=')) throw new AllocConfError(`'${k}': a key and its value are separated by ':' (write ${k.replace('=', ':')})`);
      throw new AllocConfError(k === '' ? 'the configuration is incomplete' : `the configuration ends where ${k} needs more (write ${k}:VALUE)`);
    }
    return this.t[i] as string;
  }
  /** checkToken: PyTorch discards its boolean, so only the bounds are enforced. */
  check(i: number): void {
    this.at(i);
  }
  /** std::stoull on the token: a leading integer (a minus sign wraps around, as in C++). */
  toSizeT(i: number): number {
    const token = this.at(i);
    const m = /^[+-]?\d+/.exec(token);
    // PyTorch's std::stoull throws "stoull" here: not a message to show anyone.
    if (!m) throw new AllocConfError(`${this.key} expects a whole number, got '${token}'`);
    const v = Number(m[0]);
    if (Math.abs(v) >= SIZE_MAX) throw new AllocConfError(`${this.key}: ${token} is out of range (a size is at most 2^64 - 1)`);
    return v < 0 ? SIZE_MAX + v : v;
  }
  /** std::stod on the token: a leading decimal or special value. */
  toDouble(i: number): number {
    const s = this.at(i);
    const m = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)/i.exec(s);
    if (!m) throw new AllocConfError(`${this.key} expects a number, got '${s}'`);
    const text = m[0].toLowerCase().replace(/^([+-]?)inf(inity)?$/, '$1Infinity');
    return text.endsWith('nan') ? NaN : Number(text);
  }
  toBool(i: number): boolean {
    const s = this.at(i);
    if (s === 'True') return true;
    if (s === 'False') return false;
    // PyTorch says "Expected 'True' or 'False' at index N in ConfigTokenizer": its tokenizer's words.
    throw new AllocConfError(`${this.key} expects True or False (with capitals, as PyTorch reads it), got '${s}'`);
  }
  /** skipKey: past `key : value` or `key : [ … ]`. */
  skipKey(i: number): number {
    this.check(++i);
    ++i;
    if (this.at(i) !== '[') return i;
    while (++i < this.size && this.t[i] !== ']') {
      // skip the list
    }
    if (i >= this.size) throw this.unclosed();
    return i;
  }
  /** PyTorch's "Expected closing bracket ']' in ConfigTokenizer but reached end of config", in plain words. */
  unclosed(): AllocConfError {
    return new AllocConfError(`${this.key}: the list opened with '[' is not closed with ']'`);
  }
}

const ACCELERATOR_KEYS = [
  'max_split_size_mb',
  'max_non_split_rounding_mb',
  'garbage_collection_threshold',
  'roundup_power2_divisions',
  'expandable_segments',
  'pinned_use_background_threads',
];
const CUDA_KEYS = [
  'backend',
  'release_lock_on_cudamalloc',
  'release_lock_on_hipmalloc',
  'pinned_use_cuda_host_register',
  'pinned_use_hip_host_register',
  'pinned_num_register_threads',
  'pinned_reserve_segment_size_mb',
  'graph_capture_record_stream_reuse',
  'per_process_memory_fraction',
];
const KNOWN_KEYS = new Set([...ACCELERATOR_KEYS, ...CUDA_KEYS]);

/** AcceleratorAllocatorConfig::parseRoundUpPower2Divisions. */
function parseRoundup(tk: Tokens, i: number, divs: number[]): number {
  tk.check(++i);
  let first = true;
  if (tk.at(++i) === '[') {
    let lastIndex = 0;
    while (++i < tk.size && tk.at(i) !== ']') {
      const valueIndex = i;
      tk.check(++i);
      const value = tk.toSizeT(++i);
      if (!(value === 0 || isPowerOf2(value))) {
        throw new AllocConfError('For roundups, the divisions has to be power of 2 or 0 to disable roundup ');
      }
      if (tk.at(valueIndex) === '>') {
        for (let k = lastIndex + 1; k < divs.length; k++) divs[k] = value;
      } else {
        const boundary = tk.toSizeT(valueIndex);
        if (!isPowerOf2(boundary)) throw new AllocConfError('For roundups, the intervals have to be power of 2 ');
        const index = Math.min(Math.max(floorLog2(boundary), 0), divs.length - 1);
        if (first) {
          for (let k = 0; k < index; k++) divs[k] = value;
          first = false;
        }
        divs[index] = value;
        lastIndex = index;
      }
      if (tk.at(i + 1) !== ']') tk.check(++i);
    }
    if (i >= tk.size) throw tk.unclosed();
  } else {
    const value = tk.toSizeT(i);
    if (!isPowerOf2(value)) throw new AllocConfError('For roundups, the divisions has to be power of 2 ');
    divs.fill(value);
  }
  return i;
}

function parseMb(tk: Tokens, i: number, name: string): [number, number] {
  tk.check(++i);
  const v = tk.toSizeT(++i);
  const min = kLargeBuffer / MB;
  if (v < min) throw new AllocConfError(`CachingAllocator option ${name} too small, must be >= ${min}`);
  const capped = Math.min(v, Math.floor(SIZE_MAX / MB));
  return [i, capped * MB];
}

/** The settings a configuration string names; keys it does not name are absent. */
export type ParsedConf = Partial<CachingSettings>;

/**
 * Parses a `PYTORCH_CUDA_ALLOC_CONF` string with PyTorch's rules and messages.
 * @throws AllocConfError with PyTorch's own text
 */
export function parseAllocConf(env: string): ParsedConf {
  const tk = new Tokens(tokenize(env));
  const out: ParsedConf = {};
  let divs: number[] | undefined;
  // First pass: the common keys (AcceleratorAllocatorConfig::parseArgs), others skipped.
  for (let i = 0; i < tk.size; i++) {
    const key = tk.at(i);
    tk.key = key;
    if (key === 'max_split_size_mb') {
      [i, out.maxSplitSizeBytes] = parseMb(tk, i, 'max_split_size_mb');
    } else if (key === 'max_non_split_rounding_mb') {
      [i, out.maxNonSplitRoundingBytes] = parseMb(tk, i, 'max_non_split_rounding_mb');
    } else if (key === 'garbage_collection_threshold') {
      tk.check(++i);
      const v = tk.toDouble(++i);
      if (!(v > 0 && v < 1.0)) throw new AllocConfError('garbage_collect_threshold is invalid, set it in (0.0, 1.0)');
      out.garbageCollectionThreshold = v;
    } else if (key === 'roundup_power2_divisions') {
      divs = new Array<number>(kRoundUpPowerOfTwoIntervals).fill(0);
      i = parseRoundup(tk, i, divs);
      out.roundupPower2Divisions = divs;
    } else if (key === 'expandable_segments') {
      tk.check(++i);
      out.expandableSegments = tk.toBool(++i);
    } else if (key === 'pinned_use_background_threads') {
      tk.check(++i);
      tk.toBool(++i);
    } else {
      i = tk.skipKey(i);
    }
    if (i + 1 < tk.size) tk.check(++i);
  }
  // Second pass: the CUDA keys and the check for unknown ones (CUDAAllocatorConfig::parseArgs).
  for (let i = 0; i < tk.size; i++) {
    const key = tk.at(i);
    tk.key = key;
    if (key === 'backend') {
      tk.check(++i);
      const v = tk.at(++i);
      if (v !== 'native' && v !== 'cudaMallocAsync') throw new AllocConfError('Unknown allocator backend, options are native and cudaMallocAsync');
      if (v === 'cudaMallocAsync') {
        throw new AllocConfError('backend:cudaMallocAsync selects the cudaMallocAsync allocator, which the caching allocator does not model');
      }
    } else if (
      key === 'release_lock_on_cudamalloc' ||
      key === 'release_lock_on_hipmalloc' ||
      key === 'pinned_use_cuda_host_register' ||
      key === 'pinned_use_hip_host_register' ||
      key === 'graph_capture_record_stream_reuse'
    ) {
      tk.check(++i);
      tk.toBool(++i);
    } else if (key === 'pinned_num_register_threads') {
      tk.check(++i);
      const v = tk.toSizeT(++i);
      if (!isPowerOf2(v)) throw new AllocConfError(`Number of register threads has to be power of 2, got ${v}`);
      if (v > 128) throw new AllocConfError(`Number of register threads should be less than or equal to 128, got ${v}`);
    } else if (key === 'pinned_reserve_segment_size_mb') {
      tk.check(++i);
      if (!(tk.toSizeT(++i) > 0)) throw new AllocConfError('Pinned reserve segment size has to be greater than 0');
    } else if (key === 'per_process_memory_fraction') {
      tk.check(++i);
      const v = tk.toDouble(++i);
      if (!(v >= 0.0 && v <= 1.0)) throw new AllocConfError('per_process_memory_fraction is invalid, set it in [0.0, 1.0]');
      out.perProcessMemoryFraction = v;
    } else {
      if (!KNOWN_KEYS.has(key)) throw new AllocConfError(`Unrecognized key '${key}' in CUDA allocator config.`);
      i = tk.skipKey(i);
    }
    if (i + 1 < tk.size) tk.check(++i);
  }
  return out;
}

/** The divisions written back in the configuration syntax: one value, or a list per MiB interval. */
export function formatRoundup(divs: readonly number[]): string {
  if (divs.every((d) => d === divs[0])) return divs[0] === 0 ? '' : String(divs[0]);
  return `[${divs.map((d, k) => `${2 ** k}:${d}`).join(',')}]`;
}

/** The settings as one `PYTORCH_CUDA_ALLOC_CONF` string (non-default keys only). */
export function formatConf(s: CachingSettings): string {
  const parts: string[] = [];
  if (Number.isFinite(s.maxSplitSizeBytes)) parts.push(`max_split_size_mb:${Math.floor(s.maxSplitSizeBytes / MB)}`);
  if (s.maxNonSplitRoundingBytes !== kLargeBuffer) parts.push(`max_non_split_rounding_mb:${Math.floor(s.maxNonSplitRoundingBytes / MB)}`);
  const r = formatRoundup(s.roundupPower2Divisions);
  if (r !== '') parts.push(`roundup_power2_divisions:${r}`);
  if (s.garbageCollectionThreshold > 0) parts.push(`garbage_collection_threshold:${s.garbageCollectionThreshold}`);
  if (s.expandableSegments) parts.push('expandable_segments:True');
  if (s.perProcessMemoryFraction !== null) parts.push(`per_process_memory_fraction:${s.perProcessMemoryFraction}`);
  return parts.join(',');
}

/** The effective settings, in the form of a snapshot's `allocator_settings`. */
export function snapshotSettings(st: CachingSettings): Record<string, unknown> {
  return {
    PYTORCH_CUDA_ALLOC_CONF: formatConf(st),
    max_split_size: Number.isFinite(st.maxSplitSizeBytes) ? st.maxSplitSizeBytes : -1,
    max_non_split_rounding_size: st.maxNonSplitRoundingBytes,
    garbage_collection_threshold: st.garbageCollectionThreshold,
    expandable_segments: st.expandableSegments,
    roundup_power2_divisions: formatRoundup(st.roundupPower2Divisions) || '0',
    per_process_memory_fraction: st.perProcessMemoryFraction,
  };
}
