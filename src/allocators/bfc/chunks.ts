/**
 * BFC's chunk table, as `BFCAllocator::chunks_` with its free-handle list: one slot per
 * `ChunkHandle`, in typed arrays so that the hot path allocates nothing.
 *
 * The fields a bin search, a split and a coalesce touch sit in two small records per handle (a
 * 32-byte one of doubles: size, address, requested size; a 32-byte one of int32: tree links and
 * priority, physical neighbours, bin, in-use flag), so that walking a tree or a neighbour costs two
 * cache lines, not one per field: with 10^5 chunks and more, memory latency is what a request
 * costs. Links are int32 so that they index arrays without conversion.
 *
 * Handles freed by merges and region frees go on a LIFO list threaded through `next` (as
 * `BFCAllocator::DeallocateChunk`) and are reused first (as `AllocateChunk`). A reused slot keeps its
 * stale requested size, as TensorFlow's does: dumps print it for free chunks.
 */

import { grown } from '../../util/typed-arrays.js';

/** The invalid handle (TensorFlow's `kInvalidChunkHandle`). */
export const NO_CHUNK = -1;
/** The bin of a chunk that is in no bin (TensorFlow's `kInvalidBinNum`). */
export const NO_BIN = -1;

/** Record layout of `ChunkTable.num` (4 doubles per handle). */
export const SIZE = 0;
export const PTR = 1;
/** Bytes the client asked for when the chunk was last handed out (stale once freed). */
export const REQUESTED = 2;
export const NUM_STRIDE = 4;

/** Record layout of `ChunkTable.link` (8 int32 per handle). */
/** Links and heap priority of a free chunk in its bin's tree (see Bins), -1 when absent. */
export const LEFT = 0;
export const RIGHT = 1;
export const PARENT = 2;
export const PRIO = 3;
/** Physically adjacent chunks in the same region, or NO_CHUNK; `NEXT` also links the free-handle list. */
export const PREV = 4;
export const NEXT = 5;
/** Bin holding the chunk when it is free, else NO_BIN. */
export const BIN = 6;
/** 1 while the chunk is handed out (TensorFlow's allocation_id != -1), else 0. */
export const IN_USE = 7;
export const LINK_STRIDE = 8;

export class ChunkTable {
  /** Size, address, requested size: `num[h * 4 + field]`. */
  num: Float64Array;
  /** Tree links, priority, neighbours, bin, in-use flag: `link[h * 8 + field]`. */
  link: Int32Array;
  /** memsim's region id per chunk (for per-region in-use counts). */
  regionOf: Int32Array;
  /** Trace event of the allocation the chunk serves (for state snapshots). */
  event: Int32Array;
  /** Number of slots ever created (`chunks_.size()`). */
  count = 0;
  /** Head of the free-handle list (`free_chunks_list_`). */
  freeHead = NO_CHUNK;
  private capacity: number;

  constructor(initialCapacity = 1024) {
    this.capacity = Math.max(16, initialCapacity);
    this.num = new Float64Array(this.capacity * NUM_STRIDE);
    this.link = new Int32Array(this.capacity * LINK_STRIDE);
    this.regionOf = new Int32Array(this.capacity);
    this.event = new Int32Array(this.capacity);
  }

  /** A handle for a new chunk: the most recently released one, else a fresh slot (`AllocateChunk`). */
  allocate(): number {
    const h = this.freeHead;
    if (h !== NO_CHUNK) {
      this.freeHead = this.link[h * LINK_STRIDE + NEXT] as number;
      return h;
    }
    if (this.count === this.capacity) this.grow();
    const n = this.count++;
    // A fresh slot is a default-constructed Chunk: requested 0, not in use, no bin, no links.
    const l = n * LINK_STRIDE;
    this.link.fill(-1, l, l + LINK_STRIDE);
    this.link[l + PRIO] = 0;
    this.link[l + IN_USE] = 0;
    return n;
  }

  /** Releases a handle onto the free-handle list (`DeallocateChunk`). */
  release(h: number): void {
    const l = h * LINK_STRIDE;
    this.link[l + IN_USE] = 0;
    this.link[l + BIN] = NO_BIN;
    this.link[l + NEXT] = this.freeHead;
    this.freeHead = h;
  }

  size(h: number): number {
    return this.num[h * NUM_STRIDE + SIZE] as number;
  }
  setSize(h: number, v: number): void {
    this.num[h * NUM_STRIDE + SIZE] = v;
  }
  ptr(h: number): number {
    return this.num[h * NUM_STRIDE + PTR] as number;
  }
  setPtr(h: number, v: number): void {
    this.num[h * NUM_STRIDE + PTR] = v;
  }
  requested(h: number): number {
    return this.num[h * NUM_STRIDE + REQUESTED] as number;
  }
  setRequested(h: number, v: number): void {
    this.num[h * NUM_STRIDE + REQUESTED] = v;
  }
  prev(h: number): number {
    return this.link[h * LINK_STRIDE + PREV] as number;
  }
  setPrev(h: number, v: number): void {
    this.link[h * LINK_STRIDE + PREV] = v;
  }
  next(h: number): number {
    return this.link[h * LINK_STRIDE + NEXT] as number;
  }
  setNext(h: number, v: number): void {
    this.link[h * LINK_STRIDE + NEXT] = v;
  }
  /** True when the chunk is handed out (`Chunk::in_use`). */
  inUse(h: number): boolean {
    return this.link[h * LINK_STRIDE + IN_USE] === 1;
  }
  setInUse(h: number, used: boolean): void {
    this.link[h * LINK_STRIDE + IN_USE] = used ? 1 : 0;
  }
  bin(h: number): number {
    return this.link[h * LINK_STRIDE + BIN] as number;
  }
  setBin(h: number, v: number): void {
    this.link[h * LINK_STRIDE + BIN] = v;
  }
  region(h: number): number {
    return this.regionOf[h] as number;
  }
  setRegion(h: number, v: number): void {
    this.regionOf[h] = v;
  }

  private grow(): void {
    this.capacity *= 2;
    this.num = grown(this.num, this.capacity * NUM_STRIDE);
    this.link = grown(this.link, this.capacity * LINK_STRIDE);
    this.regionOf = grown(this.regionOf, this.capacity);
    this.event = grown(this.event, this.capacity);
  }
}
