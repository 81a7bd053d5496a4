import { type ChunkTable, LEFT, PARENT, PRIO, PTR, RIGHT, SIZE } from './chunks.js';

// Chunk records: `num` holds 4 doubles per handle, `link` 8 int32 (see chunks.ts).

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
 * with `ChunkComparator`). Each bin is a treap threaded through the chunk table's records (left,
 * right, parent, priority per handle): no node allocation, removal by handle without a search,
 * O(log n) expected per operation, deterministic priorities. A bitmask of non-empty bins lets a
 * search skip empty ones.
 */
export class Bins {
  private readonly chunks: ChunkTable;
  private readonly roots = new Int32Array(NUM_BINS).fill(-1);
  private readonly sizes = new Int32Array(NUM_BINS);
  /** Bit b set when bin b holds a chunk. */
  nonEmpty = 0;
  /** Free chunks over all bins. */
  count = 0;
  private seed = 0x1e3779b9;

  constructor(chunks: ChunkTable) {
    this.chunks = chunks;
  }

  /** Number of chunks in bin b. */
  sizeOf(b: number): number {
    return this.sizes[b] as number;
  }

  /** Adds free chunk h (its size and address set) to bin b. */
  insert(b: number, h: number): void {
    const num = this.chunks.num;
    const link = this.chunks.link;
    const x8 = h * 8;
    const size = num[h * 4 + SIZE] as number;
    const ptr = num[h * 4 + PTR] as number;
    link[x8 + LEFT] = -1;
    link[x8 + RIGHT] = -1;
    // xorshift32: deterministic priorities, compared as int32.
    let x = this.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.seed = x | 0;
    const prio = this.seed;
    link[x8 + PRIO] = prio;
    let t = this.roots[b] as number;
    if (t < 0) {
      this.roots[b] = h;
      link[x8 + PARENT] = -1;
    } else {
      for (;;) {
        const ts = num[t * 4 + SIZE] as number;
        // Compared on every step, not only between chunks of one size: code that V8 compiled before
        // two chunks of one size met (late in many replays) would be thrown away where they first do.
        const lower = ptr < (num[t * 4 + PTR] as number);
        const side = size < ts || (size === ts && lower) ? LEFT : RIGHT;
        const child = link[t * 8 + side] as number;
        if (child < 0) {
          link[t * 8 + side] = h;
          break;
        }
        t = child;
      }
      link[x8 + PARENT] = t;
      for (let p = t; p >= 0 && prio > (link[p * 8 + PRIO] as number); p = link[x8 + PARENT] as number) this.rotateUp(b, h);
    }
    this.sizes[b] = (this.sizes[b] as number) + 1;
    this.nonEmpty |= 1 << b;
    this.count++;
  }

  /**
   * Removes chunk h from bin b: rotated down while it has two children, then its one child (or none)
   * takes its place. The child's priority is not above h's, so the heap order holds; a chain of
   * single children is not rotated through (in the peers' 10^6-event trace every rotation of a removal
   * was one of those: some 300,000 per replay). The order of a bin does not depend on its shape.
   */
  remove(b: number, h: number): void {
    const link = this.chunks.link;
    const x8 = h * 8;
    for (;;) {
      const l = link[x8 + LEFT] as number;
      const r = link[x8 + RIGHT] as number;
      if (l < 0 || r < 0) {
        const child = l < 0 ? r : l;
        const p = link[x8 + PARENT] as number;
        if (child >= 0) link[child * 8 + PARENT] = p;
        if (p < 0) this.roots[b] = child;
        else if (link[p * 8 + LEFT] === h) link[p * 8 + LEFT] = child;
        else link[p * 8 + RIGHT] = child;
        break;
      }
      this.rotateUp(b, (link[l * 8 + PRIO] as number) > (link[r * 8 + PRIO] as number) ? l : r);
    }
    link[x8 + LEFT] = -1;
    link[x8 + RIGHT] = -1;
    link[x8 + PARENT] = -1;
    const n = (this.sizes[b] as number) - 1;
    this.sizes[b] = n;
    if (n === 0) this.nonEmpty &= ~(1 << b);
    this.count--;
  }

  /** Lifts x above its parent, keeping the in-order sequence. */
  private rotateUp(b: number, x: number): void {
    const link = this.chunks.link;
    const p = link[x * 8 + PARENT] as number;
    const g = link[p * 8 + PARENT] as number;
    // x's inner subtree moves to p; p becomes x's child on the other side.
    const side = link[p * 8 + LEFT] === x ? LEFT : RIGHT;
    const other = side === LEFT ? RIGHT : LEFT;
    const m = link[x * 8 + other] as number;
    link[p * 8 + side] = m;
    if (m >= 0) link[m * 8 + PARENT] = p;
    link[x * 8 + other] = p;
    link[p * 8 + PARENT] = x;
    link[x * 8 + PARENT] = g;
    if (g < 0) this.roots[b] = x;
    else if (link[g * 8 + LEFT] === p) link[g * 8 + LEFT] = x;
    else link[g * 8 + RIGHT] = x;
  }

  /**
   * The best-fitting free chunk for `rounded` bytes starting at bin `b`: the first chunk of size >=
   * rounded in (size, address) order, looking in bin b and then in each non-empty bin above (as the
   * walk in `BFCAllocator::FindChunkPtr`). Returns the handle, or -1. Does not remove it.
   */
  bestFit(b: number, rounded: number): number {
    let mask = this.nonEmpty & ~((1 << b) - 1);
    if (mask === 0) return -1;
    if (mask & (1 << b)) {
      // In the starting bin sizes vary around `rounded`: the smallest at least as large.
      const num = this.chunks.num;
      const link = this.chunks.link;
      let t = this.roots[b] as number;
      let best = -1;
      while (t >= 0) {
        if ((num[t * 4 + SIZE] as number) >= rounded) {
          best = t;
          t = link[t * 8 + LEFT] as number;
        } else {
          t = link[t * 8 + RIGHT] as number;
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
    const link = this.chunks.link;
    let t = this.roots[b] as number;
    if (t < 0) return -1;
    while ((link[t * 8 + LEFT] as number) >= 0) t = link[t * 8 + LEFT] as number;
    return t;
  }

  /** The largest chunk of bin b, or -1. */
  last(b: number): number {
    const link = this.chunks.link;
    let t = this.roots[b] as number;
    if (t < 0) return -1;
    while ((link[t * 8 + RIGHT] as number) >= 0) t = link[t * 8 + RIGHT] as number;
    return t;
  }

  /** The chunk after h in its bin's order, or -1. */
  next(h: number): number {
    const link = this.chunks.link;
    let t = link[h * 8 + RIGHT] as number;
    if (t >= 0) {
      while ((link[t * 8 + LEFT] as number) >= 0) t = link[t * 8 + LEFT] as number;
      return t;
    }
    let x = h;
    let p = link[x * 8 + PARENT] as number;
    while (p >= 0 && link[p * 8 + RIGHT] === x) {
      x = p;
      p = link[x * 8 + PARENT] as number;
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
    const link = this.chunks.link;
    let x = h;
    while ((link[x * 8 + PARENT] as number) >= 0) x = link[x * 8 + PARENT] as number;
    return x === this.roots[b];
  }

  /** The heap order holds at h: its priority is not above its parent's. */
  heapOrdered(h: number): boolean {
    const link = this.chunks.link;
    const p = link[h * 8 + PARENT] as number;
    return p < 0 || (link[h * 8 + PRIO] as number) <= (link[p * 8 + PRIO] as number);
  }

  /** Size of the largest free chunk (`BFCAllocator::LargestFreeChunk`), 0 when none. */
  largest(): number {
    if (this.nonEmpty === 0) return 0;
    return this.chunks.size(this.last(31 - Math.clz32(this.nonEmpty)));
  }
}
