/**
 * BFC's chunk table, as `BFCAllocator::chunks_` with its free-handle list: one slot per
 * `ChunkHandle`, stored column-wise in typed arrays so that the hot path allocates nothing.
 *
 * Handles freed by merges and region frees go on a LIFO list threaded through `next` (as
 * `BFCAllocator::DeallocateChunk`) and are reused first (as `AllocateChunk`). A reused slot keeps its
 * stale `requested` size, as TensorFlow's does: dumps print it for free chunks.
 */

/** The invalid handle (TensorFlow's `kInvalidChunkHandle`). */
export const NO_CHUNK = -1;
/** The bin of a chunk that is in no bin (TensorFlow's `kInvalidBinNum`). */
export const NO_BIN = -1;

export class ChunkTable {
  /** Device address of the chunk. */
  ptr: Float64Array;
  /** Full size of the chunk in bytes. */
  size: Float64Array;
  /** Bytes the client asked for when the chunk was last handed out (stale once freed). */
  requested: Float64Array;
  /** Allocation id (> 0) while in use, -1 when free. */
  allocId: Float64Array;
  /** Physically adjacent chunks in the same region, or NO_CHUNK. On the free-handle list, `next` links it. */
  prev: Int32Array;
  next: Int32Array;
  /** Bin holding the chunk when it is free, else NO_BIN. */
  bin: Int8Array;
  /** Region id of the chunk (memsim's, for per-region in-use counts). */
  region: Int32Array;
  /** Trace event of the allocation the chunk serves (for state snapshots). */
  event: Int32Array;
  /** Links of the free chunk in its bin's tree (see Bins), -1 when absent. */
  left: Int32Array;
  right: Int32Array;
  parent: Int32Array;
  /** Heap priority of the free chunk in its bin's tree. */
  prio: Uint32Array;
  /** Number of slots ever created (`chunks_.size()`). */
  count = 0;
  /** Head of the free-handle list (`free_chunks_list_`). */
  freeHead = NO_CHUNK;

  constructor(initialCapacity = 1024) {
    const n = Math.max(16, initialCapacity);
    this.ptr = new Float64Array(n);
    this.size = new Float64Array(n);
    this.requested = new Float64Array(n);
    this.allocId = new Float64Array(n).fill(-1);
    this.prev = new Int32Array(n).fill(NO_CHUNK);
    this.next = new Int32Array(n).fill(NO_CHUNK);
    this.bin = new Int8Array(n).fill(NO_BIN);
    this.region = new Int32Array(n);
    this.event = new Int32Array(n);
    this.left = new Int32Array(n).fill(-1);
    this.right = new Int32Array(n).fill(-1);
    this.parent = new Int32Array(n).fill(-1);
    this.prio = new Uint32Array(n);
  }

  /** A handle for a new chunk: the most recently released one, else a fresh slot (`AllocateChunk`). */
  allocate(): number {
    const h = this.freeHead;
    if (h !== NO_CHUNK) {
      this.freeHead = this.next[h] as number;
      return h;
    }
    if (this.count === this.ptr.length) this.grow();
    return this.count++;
  }

  /** Releases a handle onto the free-handle list (`DeallocateChunk`). */
  release(h: number): void {
    this.allocId[h] = -1;
    this.bin[h] = NO_BIN;
    this.next[h] = this.freeHead;
    this.freeHead = h;
  }

  /** True when the chunk is handed out (`Chunk::in_use`). */
  inUse(h: number): boolean {
    return (this.allocId[h] as number) !== -1;
  }

  private grow(): void {
    const n = this.ptr.length * 2;
    const f64 = (a: Float64Array, fill: number): Float64Array => {
      const b = new Float64Array(n);
      if (fill !== 0) b.fill(fill, a.length);
      b.set(a);
      return b;
    };
    const i32 = (a: Int32Array, fill: number): Int32Array => {
      const b = new Int32Array(n);
      if (fill !== 0) b.fill(fill, a.length);
      b.set(a);
      return b;
    };
    this.ptr = f64(this.ptr, 0);
    this.size = f64(this.size, 0);
    this.requested = f64(this.requested, 0);
    this.allocId = f64(this.allocId, -1);
    this.prev = i32(this.prev, NO_CHUNK);
    this.next = i32(this.next, NO_CHUNK);
    const bin = new Int8Array(n).fill(NO_BIN, this.bin.length);
    bin.set(this.bin);
    this.bin = bin;
    this.region = i32(this.region, 0);
    this.event = i32(this.event, 0);
    this.left = i32(this.left, -1);
    this.right = i32(this.right, -1);
    this.parent = i32(this.parent, -1);
    const prio = new Uint32Array(n);
    prio.set(this.prio);
    this.prio = prio;
  }
}
