import type { ChunkTable } from './chunks.js';

/** Number of bins (`BFCAllocator::kNumBins`). */
export const NUM_BINS = 21;
/** Minimum allocation and rounding granularity (`kMinAllocationSize`). */
export const MIN_ALLOCATION_BYTES = 256;

/** Requests rounded up to a multiple of 256 (`BFCAllocator::RoundedBytes`). */
export function roundedBytes(bytes: number): number {
  const r = bytes % MIN_ALLOCATION_BYTES;
  return r === 0 ? bytes : bytes + (MIN_ALLOCATION_BYTES - r);
}

/** Smallest chunk size of bin `b` (`BinNumToSize`): 256 << b. */
export function binSize(b: number): number {
  return MIN_ALLOCATION_BYTES * 2 ** b;
}

/** The bin for a chunk size (`BinNumForSize`): min(20, floor(log2(max(size, 256) >> 8))). */
export function binForSize(bytes: number): number {
  const v = Math.floor(Math.max(bytes, MIN_ALLOCATION_BYTES) / MIN_ALLOCATION_BYTES);
  if (v >= 1 << (NUM_BINS - 1)) return NUM_BINS - 1;
  return 31 - Math.clz32(v);
}

/**
 * The 21 bins of free chunks, each ordered by (size, address) as `Bin::FreeChunkSet` (a std::set
 * with `ChunkComparator`). Each bin is a treap threaded through the chunk table itself (left, right,
 * parent, priority per handle): no node allocation, removal by handle without a search, O(log n)
 * expected per operation, deterministic priorities. A bitmask of non-empty bins lets a search skip
 * empty ones.
 */
export class Bins {
  private readonly chunks: ChunkTable;
  private readonly roots = new Int32Array(NUM_BINS).fill(-1);
  private readonly sizes = new Int32Array(NUM_BINS);
  /** Bit b set when bin b holds a chunk. */
  nonEmpty = 0;
  /** Free chunks over all bins. */
  count = 0;
  private seed = 0x9e3779b9;

  constructor(chunks: ChunkTable) {
    this.chunks = chunks;
  }

  /** Number of chunks in bin b. */
  sizeOf(b: number): number {
    return this.sizes[b] as number;
  }

  /** Adds free chunk h (its size and address set) to bin b. */
  insert(b: number, h: number): void {
    const c = this.chunks;
    const { left, right, parent, size: sz, ptr: pt } = c;
    const size = sz[h] as number;
    const ptr = pt[h] as number;
    left[h] = -1;
    right[h] = -1;
    let x = this.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.seed = x >>> 0;
    c.prio[h] = this.seed;
    let t = this.roots[b] as number;
    if (t < 0) {
      this.roots[b] = h;
      parent[h] = -1;
    } else {
      for (;;) {
        const ts = sz[t] as number;
        if (size < ts || (size === ts && ptr < (pt[t] as number))) {
          const l = left[t] as number;
          if (l < 0) {
            left[t] = h;
            break;
          }
          t = l;
        } else {
          const r = right[t] as number;
          if (r < 0) {
            right[t] = h;
            break;
          }
          t = r;
        }
      }
      parent[h] = t;
      const prio = c.prio;
      while ((parent[h] as number) >= 0 && (prio[h] as number) > (prio[parent[h] as number] as number)) this.rotateUp(b, h);
    }
    this.sizes[b] = (this.sizes[b] as number) + 1;
    this.nonEmpty |= 1 << b;
    this.count++;
  }

  /** Removes chunk h from bin b: rotated down to a leaf, then cut off. */
  remove(b: number, h: number): void {
    const { left, right, parent, prio } = this.chunks;
    for (;;) {
      const l = left[h] as number;
      const r = right[h] as number;
      if (l < 0 && r < 0) break;
      this.rotateUp(b, l < 0 ? r : r < 0 ? l : (prio[l] as number) > (prio[r] as number) ? l : r);
    }
    const p = parent[h] as number;
    if (p < 0) this.roots[b] = -1;
    else if (left[p] === h) left[p] = -1;
    else right[p] = -1;
    parent[h] = -1;
    const n = (this.sizes[b] as number) - 1;
    this.sizes[b] = n;
    if (n === 0) this.nonEmpty &= ~(1 << b);
    this.count--;
  }

  /** Lifts x above its parent, keeping the in-order sequence. */
  private rotateUp(b: number, x: number): void {
    const { left, right, parent } = this.chunks;
    const p = parent[x] as number;
    const g = parent[p] as number;
    if (left[p] === x) {
      const m = right[x] as number;
      left[p] = m;
      if (m >= 0) parent[m] = p;
      right[x] = p;
    } else {
      const m = left[x] as number;
      right[p] = m;
      if (m >= 0) parent[m] = p;
      left[x] = p;
    }
    parent[p] = x;
    parent[x] = g;
    if (g < 0) this.roots[b] = x;
    else if (left[g] === p) left[g] = x;
    else right[g] = x;
  }

  /**
   * The best-fitting free chunk for `rounded` bytes starting at bin `b`: the first chunk of size >=
   * rounded in (size, address) order, looking in bin b and then in each non-empty bin above (as the
   * walk in `BFCAllocator::FindChunkPtr`). Returns the handle, or -1. Does not remove it.
   */
  bestFit(b: number, rounded: number): number {
    let mask = this.nonEmpty & ~((1 << b) - 1);
    if (mask === 0) return -1;
    const { left, right, size } = this.chunks;
    if (mask & (1 << b)) {
      // In the starting bin sizes vary around `rounded`: the smallest at least as large.
      let t = this.roots[b] as number;
      let best = -1;
      while (t >= 0) {
        if ((size[t] as number) >= rounded) {
          best = t;
          t = left[t] as number;
        } else {
          t = right[t] as number;
        }
      }
      if (best >= 0) return best;
      mask &= ~(1 << b);
      if (mask === 0) return -1;
    }
    // Every chunk of a higher bin is larger: take the smallest of the next non-empty one.
    return this.first(31 - Math.clz32(mask & -mask));
  }

  /** The smallest chunk of bin b, or -1. */
  first(b: number): number {
    const left = this.chunks.left;
    let t = this.roots[b] as number;
    if (t < 0) return -1;
    while ((left[t] as number) >= 0) t = left[t] as number;
    return t;
  }

  /** The largest chunk of bin b, or -1. */
  last(b: number): number {
    const right = this.chunks.right;
    let t = this.roots[b] as number;
    if (t < 0) return -1;
    while ((right[t] as number) >= 0) t = right[t] as number;
    return t;
  }

  /** The chunk after h in its bin's order, or -1. */
  next(h: number): number {
    const { left, right, parent } = this.chunks;
    let t = right[h] as number;
    if (t >= 0) {
      while ((left[t] as number) >= 0) t = left[t] as number;
      return t;
    }
    let x = h;
    let p = parent[x] as number;
    while (p >= 0 && right[p] === x) {
      x = p;
      p = parent[x] as number;
    }
    return p;
  }

  /** The handles of bin b in order (for dumps and checks, not hot paths). */
  handles(b: number): number[] {
    const out: number[] = [];
    for (let h = this.first(b); h >= 0; h = this.next(h)) out.push(h);
    return out;
  }

  /** True when h is a node of bin b's tree (follows parents to the root). */
  contains(b: number, h: number): boolean {
    const parent = this.chunks.parent;
    let x = h;
    while ((parent[x] as number) >= 0) x = parent[x] as number;
    return x === this.roots[b];
  }

  /** Size of the largest free chunk (`BFCAllocator::LargestFreeChunk`), 0 when none. */
  largest(): number {
    if (this.nonEmpty === 0) return 0;
    return this.chunks.size[this.last(31 - Math.clz32(this.nonEmpty))] as number;
  }
}
