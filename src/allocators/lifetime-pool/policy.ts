import { binIndex, chunkBytes, regularBinCount } from './bins.js';

/**
 * One block of a planned bin (DeepRec's `AllocBlock`): a chunk that the recorded lifetimes share.
 * The lifetimes it holds never overlap, so kept sorted by begin they are sorted by end too, and
 * `CanInsert` is one binary search instead of DeepRec's scan over every held lifetime.
 */
export class PlanBlock {
  private readonly begins: number[] = [];
  private readonly ends: number[] = [];

  /** The bin whose chunk this block is (DeepRec's `AllocBlock::BinIndex`). */
  constructor(readonly binIndex: number) {}

  /** Number of lifetimes placed in the block. */
  get lifetimes(): number {
    return this.begins.length;
  }

  /** True when the closed interval [begin, end] overlaps none of the held lifetimes. */
  canInsert(begin: number, end: number): boolean {
    const at = this.firstBeginAfter(end);
    // Only the last held lifetime that begins at or before `end` can reach `begin`: the ones before
    // it end before it begins.
    return at === 0 || (this.ends[at - 1] as number) < begin;
  }

  /** Places a lifetime that {@link PlanBlock.canInsert} accepted. */
  insert(begin: number, end: number): void {
    const at = this.firstBeginAfter(begin);
    this.begins.splice(at, 0, begin);
    this.ends.splice(at, 0, end);
  }

  private firstBeginAfter(x: number): number {
    let lo = 0;
    let hi = this.begins.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.begins[mid] as number) <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** A bin of a policy during the statistics phase (DeepRec's `LifetimeBin`). */
export interface PlanBin {
  index: number;
  chunkBytes: number;
  /** Blocks in creation order (first fit scans them in this order). */
  blocks: PlanBlock[];
  /**
   * DeepRec's `virtual_blocks_`: for each lifetime placed in a larger bin's block, that bin's index,
   * in placement order. They accumulate over every collected step, as in the CPU planner.
   */
  borrowedFrom: number[];
  /** The largest alignment a request of the bin asked for while collecting (`max_alignment_`, at least 64). */
  maxAlignBytes: number;
}

/** The alignment a bin starts with (TensorFlow's `Allocator::kAllocatorAlignment`). */
export const DEFAULT_BIN_ALIGN_BYTES = 64;

/** Lifetimes recorded in one step, in the order they were recorded (the order of their frees). */
export interface StepLifetimes {
  begin: Int32Array;
  end: Int32Array;
  totalBytes: Float64Array;
  count: number;
}

/**
 * One candidate bin interval (DeepRec's `LifetimePolicy`): its bins, and the packing of each
 * collected step's lifetimes into blocks.
 */
export class LifetimePolicy {
  readonly intervalBytes: number;
  /** Bins from this index on are large bins, created on demand. */
  readonly regularBins: number;
  private readonly bins = new Map<number, PlanBin>();
  /** Indices of the bins that have blocks, ascending: where a lifetime may borrow. */
  private readonly withBlocks: number[] = [];
  /** Sum over bins of blocks · chunk size (DeepRec's `TotalMem`). */
  totalBytes = 0;
  blockCount = 0;

  constructor(intervalBytes: number) {
    this.intervalBytes = intervalBytes;
    this.regularBins = regularBinCount(intervalBytes);
  }

  private bin(index: number): PlanBin {
    let b = this.bins.get(index);
    if (!b) {
      b = { index, chunkBytes: chunkBytes(index, this.intervalBytes), blocks: [], borrowedFrom: [], maxAlignBytes: DEFAULT_BIN_ALIGN_BYTES };
      this.bins.set(index, b);
    }
    return b;
  }

  /**
   * A big request while collecting (DeepRec's `TrackAllocate`): its bin comes to exist (a large bin
   * too, which then exists when the pools are built) and remembers the largest alignment asked.
   */
  trackAllocate(totalBytes: number, alignBytes: number): void {
    const i = binIndex(totalBytes, this.intervalBytes);
    if (i < 0) return;
    const b = this.bin(i);
    if (alignBytes > b.maxAlignBytes) b.maxAlignBytes = alignBytes;
  }

  /**
   * Packs one step's lifetimes, as `LifetimePolicy::BestFit` with `LifetimeBin::BestFit`: bins from
   * the largest down; in each bin, lifetimes in recorded order go to the first own block they fit,
   * else the first block of a larger bin (borrowed), else a new block.
   * @returns true when no new block was needed (the step is stable for this policy).
   */
  bestFit(step: StepLifetimes): boolean {
    const n = step.count;
    const idx = new Float64Array(n);
    const order: number[] = [];
    for (let k = 0; k < n; k++) {
      const i = binIndex(step.totalBytes[k] as number, this.intervalBytes);
      idx[k] = i;
      // DeepRec logs "Invalid Index" and drops such a lifetime: it fits no bin.
      if (i >= 0) order.push(k);
    }
    order.sort((x, y) => (idx[y] as number) - (idx[x] as number) || x - y);
    let stable = true;
    for (const k of order) {
      const b = step.begin[k] as number;
      const e = step.end[k] as number;
      const bin = this.bin(idx[k] as number);
      let block = firstFit(bin.blocks, b, e);
      if (block) {
        block.insert(b, e);
        continue;
      }
      block = this.findLargerBlock(b, e, bin.index + 1);
      if (block) {
        block.insert(b, e);
        bin.borrowedFrom.push(block.binIndex);
        continue;
      }
      block = new PlanBlock(bin.index);
      block.insert(b, e);
      if (bin.blocks.length === 0) this.addWithBlocks(bin.index);
      bin.blocks.push(block);
      this.totalBytes += bin.chunkBytes;
      this.blockCount++;
      stable = false;
    }
    return stable;
  }

  /** As `LifetimePolicy::FindBlock(stats, bin_index)`: bins from `fromIndex` up, first fit. */
  private findLargerBlock(begin: number, end: number, fromIndex: number): PlanBlock | undefined {
    const w = this.withBlocks;
    for (let j = lowerBound(w, fromIndex); j < w.length; j++) {
      const block = firstFit((this.bins.get(w[j] as number) as PlanBin).blocks, begin, end);
      if (block) return block;
    }
    return undefined;
  }

  private addWithBlocks(index: number): void {
    this.withBlocks.splice(lowerBound(this.withBlocks, index), 0, index);
  }

  /**
   * The bins the pools are built from, largest first (the order in which DeepRec's
   * `TensorPoolAllocator::Init` creates them): every large bin, and each regular bin with blocks or
   * borrowed blocks. Each makes its device call, even of zero bytes.
   */
  plannedBins(): PlanBin[] {
    return [...this.bins.values()]
      .filter((b) => b.index >= this.regularBins || b.blocks.length > 0 || b.borrowedFrom.length > 0)
      .sort((x, y) => y.index - x.index);
  }
}

function firstFit(blocks: readonly PlanBlock[], begin: number, end: number): PlanBlock | undefined {
  for (const block of blocks) if (block.canInsert(begin, end)) return block;
  return undefined;
}

function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
