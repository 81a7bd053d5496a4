/**
 * BFC's chunk table, as `BFCAllocator::chunks_` with its free-handle list: one slot per
 * `ChunkHandle`, in typed arrays so that the hot path allocates nothing.
 *
 * The fields a bin search, a split and a coalesce touch (size, address, the bin tree's links and
 * priority, the physical neighbours) sit together in one 64-byte record per handle, so that walking
 * a tree or a neighbour costs one cache line, not one per field: with 10^5 chunks and more, memory
 * latency, not arithmetic, is what a request costs.
 *
 * Handles freed by merges and region frees go on a LIFO list threaded through `next` (as
 * `BFCAllocator::DeallocateChunk`) and are reused first (as `AllocateChunk`). A reused slot keeps its
 * stale requested size, as TensorFlow's does: dumps print it for free chunks.
 */

/** The invalid handle (TensorFlow's `kInvalidChunkHandle`). */
export const NO_CHUNK = -1;
/** The bin of a chunk that is in no bin (TensorFlow's `kInvalidBinNum`). */
export const NO_BIN = -1;

/** Record layout of `ChunkTable.hot` (8 doubles per handle). */
export const SIZE = 0;
export const PTR = 1;
/** Links and heap priority of a free chunk in its bin's tree (see Bins). */
export const LEFT = 2;
export const RIGHT = 3;
export const PARENT = 4;
export const PRIO = 5;
/** Physically adjacent chunks in the same region, or NO_CHUNK; `NEXT` also links the free-handle list. */
export const PREV = 6;
export const NEXT = 7;
const HOT = 8;

/** Record layout of `ChunkTable.warm` (4 doubles per handle). */
/** Allocation id (> 0) while in use, -1 when free. */
export const ALLOC_ID = 0;
/** Bin holding the chunk when it is free, else NO_BIN. */
export const BIN = 1;
/** memsim's region id (for per-region in-use counts). */
export const REGION = 2;
/** Bytes the client asked for when the chunk was last handed out (stale once freed). */
export const REQUESTED = 3;
const WARM = 4;

export class ChunkTable {
  /** Size, address, tree links and neighbours: `hot[h * 8 + field]`. */
  hot: Float64Array;
  /** Allocation id, bin, region, requested size: `warm[h * 4 + field]`. */
  warm: Float64Array;
  /** Trace event of the allocation the chunk serves (for state snapshots). */
  event: Int32Array;
  /** Number of slots ever created (`chunks_.size()`). */
  count = 0;
  /** Head of the free-handle list (`free_chunks_list_`). */
  freeHead = NO_CHUNK;
  private capacity: number;

  constructor(initialCapacity = 1024) {
    this.capacity = Math.max(16, initialCapacity);
    this.hot = new Float64Array(this.capacity * HOT);
    this.warm = new Float64Array(this.capacity * WARM);
    this.event = new Int32Array(this.capacity);
  }

  /** A handle for a new chunk: the most recently released one, else a fresh slot (`AllocateChunk`). */
  allocate(): number {
    const h = this.freeHead;
    if (h !== NO_CHUNK) {
      this.freeHead = this.hot[h * HOT + NEXT] as number;
      return h;
    }
    if (this.count === this.capacity) this.grow();
    const n = this.count++;
    // A fresh slot is a default-constructed Chunk: requested 0, not in use, no bin, no links.
    this.hot.fill(NO_CHUNK, n * HOT + LEFT, n * HOT + HOT);
    this.hot[n * HOT + PRIO] = 0;
    this.warm[n * WARM + ALLOC_ID] = -1;
    this.warm[n * WARM + BIN] = NO_BIN;
    return n;
  }

  /** Releases a handle onto the free-handle list (`DeallocateChunk`). */
  release(h: number): void {
    this.warm[h * WARM + ALLOC_ID] = -1;
    this.warm[h * WARM + BIN] = NO_BIN;
    this.hot[h * HOT + NEXT] = this.freeHead;
    this.freeHead = h;
  }

  size(h: number): number {
    return this.hot[h * HOT + SIZE] as number;
  }
  setSize(h: number, v: number): void {
    this.hot[h * HOT + SIZE] = v;
  }
  ptr(h: number): number {
    return this.hot[h * HOT + PTR] as number;
  }
  setPtr(h: number, v: number): void {
    this.hot[h * HOT + PTR] = v;
  }
  prev(h: number): number {
    return this.hot[h * HOT + PREV] as number;
  }
  setPrev(h: number, v: number): void {
    this.hot[h * HOT + PREV] = v;
  }
  next(h: number): number {
    return this.hot[h * HOT + NEXT] as number;
  }
  setNext(h: number, v: number): void {
    this.hot[h * HOT + NEXT] = v;
  }
  allocId(h: number): number {
    return this.warm[h * WARM + ALLOC_ID] as number;
  }
  setAllocId(h: number, v: number): void {
    this.warm[h * WARM + ALLOC_ID] = v;
  }
  /** True when the chunk is handed out (`Chunk::in_use`). */
  inUse(h: number): boolean {
    return (this.warm[h * WARM + ALLOC_ID] as number) !== -1;
  }
  bin(h: number): number {
    return this.warm[h * WARM + BIN] as number;
  }
  setBin(h: number, v: number): void {
    this.warm[h * WARM + BIN] = v;
  }
  region(h: number): number {
    return this.warm[h * WARM + REGION] as number;
  }
  setRegion(h: number, v: number): void {
    this.warm[h * WARM + REGION] = v;
  }
  requested(h: number): number {
    return this.warm[h * WARM + REQUESTED] as number;
  }
  setRequested(h: number, v: number): void {
    this.warm[h * WARM + REQUESTED] = v;
  }

  private grow(): void {
    this.capacity *= 2;
    const hot = new Float64Array(this.capacity * HOT);
    hot.set(this.hot);
    this.hot = hot;
    const warm = new Float64Array(this.capacity * WARM);
    warm.set(this.warm);
    this.warm = warm;
    const event = new Int32Array(this.capacity);
    event.set(this.event);
    this.event = event;
  }
}
