import { RUN_BYTES, SLOT_BYTES } from './merge-kernel.js';
import { WASM_MEMORY_MAX_BYTES, OutOfAddressSpace } from './limits.js';
import { alignUp } from './records.js';
import { DEFAULT_TIME_CLASSES, TimeClasses, type TimeClassesOptions } from './time-classes.js';
import { timeAxis } from './time-index.js';
import { CFG, CFG_BYTES, placementKernels, type BestFitKernel, type InsertKernel, type UnionKernel } from './union-kernel.js';
import type { UsageRecords } from './types.js';
import { wasm, type WasmMemory } from './wasm-module.js';
import { formatBytes, formatCount } from '../util/bytes.js';

/**
 * Records placed one at a time in one arena, answering what the placement loops of greedy-by-size
 * and XLA's best fit need about the placed records that conflict with a new one (meet it in time).
 *
 * Both loops walk those records in increasing offset, keeping the highest aligned end seen so far;
 * a gap opens wherever a record starts above it. For a record of positive size only these gaps and
 * the final end matter, and they are the gaps of the union of the conflicting records' ranges
 * `[offset, alignUp(offset + size))`: {@link occupied} builds that union, coalesced (ranges that
 * overlap or touch are one run).
 *
 * The records are laid out by {@link TimeClasses}: for each length class, those that may meet the
 * window are a run of positions, in blocks. Each block keeps its placed records' ranges and times
 * sorted by offset in slots of its own (an insertion into at most a block's worth on each
 * placement), so the union is one merge per block of its slots, read in order and filtered by
 * time, into the runs so far: no search per record, no sort, and no lookup through a record index.
 * The slots, the runs being merged and the layout's window tables live in a WebAssembly memory; the
 * merge of a block is a WebAssembly function (merge-kernel.ts), and so is the walk over the classes
 * and blocks of a window that calls it (union-kernel.ts): one call per record. The records that meet a window are in order by offset
 * within a block but scattered over the arena (records that conflict are disjoint, so their union splits into about
 * as many pieces as a block holds); the merge walks them in memory order, a few blocks per window.
 * At a fixed live-set width a window costs a bounded number of blocks, so a run is linear in the
 * records.
 *
 * Zero-sized records split gaps in TFLite's walk (a gap ends at each record met), so a zero-sized
 * record asks {@link conflicting} instead: the records themselves in (offset, placement) order, the
 * order TFLite's `ordered_allocs` keeps. Greedy-by-size places them last (sizes descending), so no
 * record of positive size is placed after one of them and their runs need not be split.
 */
/**
 * Bytes per record a placement run allocates: the placement (offsets, ranges, order, block slots,
 * scratch runs), the time axis and the layout, and the order of the records.
 */
export const PLACEMENT_BYTES_PER_RECORD = 156;

export class Placement {
  readonly offsets: Float64Array;
  /** Highest end so far (unaligned). */
  totalBytes = 0;
  private readonly layout: TimeClasses;
  /** Per position: offset and aligned end; the end is -1 until it is placed and indexed. */
  private readonly rangeStart: Float64Array;
  private readonly rangeEnd: Float64Array;
  /** Per position: placement order. */
  private readonly seq: Int32Array;
  /**
   * The kernel's memory: per position, at SLOT_BYTES * position, the slot of its block (a block's
   * placed records sorted by offset, ties in placement order: offset, aligned end, first and last
   * time index); then the picked ranges of one block, the kernels' table of addresses (CFG), per
   * block its count and time bounds, the layout's window tables, then two buffers of runs (the runs
   * so far and the ones the next merge writes), moved to the end of the memory when they grow.
   */
  private readonly memory: WasmMemory;
  private readonly unionKernel: UnionKernel;
  private readonly bestFit: BestFitKernel;
  private readonly insert: InsertKernel;
  private f64: Float64Array;
  private i32: Int32Array;
  private readonly cfgAt: number;
  /**
   * Per block k, at byte infoAt + 32k: how many of its records are placed, then its time bounds
   * (the layout's blockTimes): what a window asks of a block, in one cache line.
   */
  private readonly infoAt: number;
  /** Runs each buffer holds. */
  private runCap = 256;
  private placed = 0;
  /** Positions gathered by {@link conflicting}. */
  private out: Int32Array;
  /** The runs of the last {@link occupied} call: [runStart[j], runEnd[j]) ascending, disjoint, not touching. */
  runStart: Float64Array;
  runEnd: Float64Array;

  constructor(
    private readonly r: UsageRecords,
    private readonly alignmentBytes: number,
    layout: TimeClassesOptions = DEFAULT_TIME_CLASSES,
  ) {
    const n = r.count;
    // Slots (one past the last position, so that a block's end address is in the memory), then the
    // picks of one block and their sentinel, then the two run buffers.
    const pickAt = Math.ceil((SLOT_BYTES * (n + 1)) / RUN_BYTES) * RUN_BYTES;
    this.cfgAt = pickAt + RUN_BYTES * ((1 << layout.blockBits) + 1);
    this.infoAt = this.cfgAt + CFG_BYTES;
    const blocks = (n >> layout.blockBits) + 1;
    const tablesAt = this.infoAt + 32 * blocks;
    // The slots first, from the count alone, before anything is allocated; the tables once the layout is known.
    const bytes = this.cfgAt + 2 * RUN_BYTES * this.runCap;
    if (bytes > WASM_MEMORY_MAX_BYTES) {
      const most = Math.floor((WASM_MEMORY_MAX_BYTES - (bytes - SLOT_BYTES * n)) / SLOT_BYTES);
      throw new OutOfAddressSpace(
        `${formatCount(n)} records need ${formatBytes(bytes)} of WebAssembly memory for their placement, over its limit of ` +
          `${formatBytes(WASM_MEMORY_MAX_BYTES)} (at most ${formatCount(most)} records)`,
      );
    }
    this.offsets = new Float64Array(n);
    this.layout = new TimeClasses(timeAxis(r), layout);
    this.rangeStart = new Float64Array(n);
    this.rangeEnd = new Float64Array(n).fill(-1);
    this.seq = new Int32Array(n);
    const L = this.layout;
    const tableBytes = 4 * L.startTable.length;
    const accAt = tablesAt + 2 * tableBytes;
    const total = accAt + 2 * RUN_BYTES * this.runCap;
    if (total > WASM_MEMORY_MAX_BYTES) {
      throw new OutOfAddressSpace(
        `${formatCount(n)} records need ${formatBytes(total)} of WebAssembly memory for their placement, over its limit of ` +
          `${formatBytes(WASM_MEMORY_MAX_BYTES)}`,
      );
    }
    this.memory = new wasm.Memory({ initial: Math.ceil(total / 65536) });
    ({ union: this.unionKernel, bestFit: this.bestFit, insert: this.insert } = placementKernels(this.memory));
    this.f64 = new Float64Array(this.memory.buffer);
    const t = (this.i32 = new Int32Array(this.memory.buffer));
    const bt = L.blockTimes;
    for (let k = 0, x = this.infoAt >> 2; k < blocks; k++, x += 8) for (let y = 0; y < 4; y++) t[x + 1 + y] = bt[4 * k + y] as number;
    t.set(L.startTable, tablesAt >> 2);
    t.set(L.reachTable, (tablesAt + tableBytes) >> 2);
    const c = this.cfgAt >> 2;
    t[c + CFG.acc / 4] = accAt;
    t[c + CFG.tmp / 4] = accAt + RUN_BYTES * this.runCap;
    t[c + CFG.cap / 4] = this.runCap;
    t[c + CFG.pick / 4] = pickAt;
    t[c + CFG.info / 4] = this.infoAt;
    t[c + CFG.start / 4] = tablesAt;
    t[c + CFG.reach / 4] = tablesAt + tableBytes;
    t[c + CFG.classCount / 4] = L.classCount;
    t[c + CFG.steps / 4] = L.steps;
    t[c + CFG.grainBits / 4] = L.grainBits;
    t[c + CFG.blockBits / 4] = L.blockBits;
    const cap = 64;
    this.runStart = new Float64Array(cap);
    this.runEnd = new Float64Array(cap);
    this.out = new Int32Array(cap);
  }

  /**
   * The union of the ranges of the placed records that conflict with `rec`, as runs in
   * runStart/runEnd[0, m); returns m. Zero-sized records occupy nothing.
   */
  occupied(rec: number): number {
    return this.occupiedAt(this.layout.posOf[rec] as number);
  }

  /** The positions of the given records in the layout, which {@link occupiedAt} and {@link placeAt} take. */
  positions(recs: ArrayLike<number>): Int32Array {
    const posOf = this.layout.posOf;
    const out = new Int32Array(recs.length);
    for (let k = 0; k < recs.length; k++) out[k] = posOf[recs[k] as number] as number;
    return out;
  }

  /**
   * {@link occupied} for the record at position `p`, with runs less than `gapBytes` apart made one:
   * a placement loop that only takes gaps of at least its record's size passes that size, and the
   * gaps it may take are the same, in fewer runs to merge.
   */
  occupiedAt(p: number, gapBytes = 1): number {
    const m = this.union(p, gapBytes);
    const acc = this.i32[(this.cfgAt + CFG.acc) >> 2] as number;
    if (this.runStart.length < m) {
      this.runStart = new Float64Array(2 * m);
      this.runEnd = new Float64Array(2 * m);
    }
    const rs = this.runStart;
    const re = this.runEnd;
    const f = this.f64;
    for (let j = 0, x = acc >> 3; j < m; j++, x += 2) {
      rs[j] = f[x] as number;
      re[j] = f[x + 1] as number;
    }
    return m;
  }

  /**
   * Where greedy-by-size puts a record of `size` > 0 bytes at position `p`: the start of the
   * smallest gap between the runs of {@link occupiedAt} that holds it (the lowest on ties), or the
   * end of the last run. The runs stay in the kernel's memory.
   */
  bestFitAt(p: number, size: number): number {
    const L = this.layout;
    const a = L.first[p] as number;
    const b = L.last[p] as number;
    for (;;) {
      const at = this.bestFit(this.cfgAt, a, b, size);
      if (at >= 0) return at;
      this.growRuns(-at);
    }
  }

  /** The runs of {@link occupiedAt}, left at CFG.acc in the kernel's memory; returns how many. */
  private union(p: number, gapBytes: number): number {
    const L = this.layout;
    const a = L.first[p] as number;
    const b = L.last[p] as number;
    for (;;) {
      const m = this.unionKernel(this.cfgAt, a, b, gapBytes);
      if (m >= 0) return m;
      this.growRuns(-m);
    }
  }

  /** Run buffers of at least `need` runs, at the end of a grown memory (the union starts over). */
  private growRuns(need: number): void {
    let cap = this.runCap;
    while (cap < need) cap *= 2;
    const at = this.memory.buffer.byteLength;
    if (at + 2 * RUN_BYTES * cap > WASM_MEMORY_MAX_BYTES) {
      throw new OutOfAddressSpace(
        `${formatCount(need)} runs of placed records met by one record do not fit in a WebAssembly memory beside the ` +
          `${formatBytes(at)} it holds (its limit is ${formatBytes(WASM_MEMORY_MAX_BYTES)})`,
      );
    }
    this.memory.grow(Math.ceil((2 * RUN_BYTES * cap) / 65536));
    this.f64 = new Float64Array(this.memory.buffer);
    this.i32 = new Int32Array(this.memory.buffer);
    const c = this.cfgAt >> 2;
    this.i32[c + CFG.acc / 4] = at;
    this.i32[c + CFG.tmp / 4] = at + RUN_BYTES * cap;
    this.i32[c + CFG.cap / 4] = cap;
    this.runCap = cap;
  }

  /**
   * The placed records that conflict with `rec`, sorted by (offset, placement order), as a view of
   * an internal buffer that the next call overwrites.
   */
  conflicting(rec: number): Int32Array {
    const L = this.layout;
    const p = L.posOf[rec] as number;
    const a = L.first[p] as number;
    const b = L.last[p] as number;
    let k = 0;
    for (let c = 0; c < L.classCount; c++) {
      const to = L.windowEnd(c, b);
      for (let x = L.windowStart(c, a); x < to; x++) {
        if ((this.rangeEnd[x] as number) >= 0 && (L.last[x] as number) >= a && (L.first[x] as number) <= b) {
          if (k === this.out.length) {
            const bigger = new Int32Array(2 * k);
            bigger.set(this.out);
            this.out = bigger;
          }
          this.out[k++] = x;
        }
      }
    }
    const list = this.out.subarray(0, k);
    list.sort((x, y) => (this.rangeStart[x] as number) - (this.rangeStart[y] as number) || (this.seq[x] as number) - (this.seq[y] as number));
    for (let j = 0; j < k; j++) list[j] = L.recAt[list[j] as number] as number;
    return list;
  }

  /** Places `rec` at `offset`; unindexed records (XLA's zero-sized ones) are never reported. */
  place(rec: number, offset: number, indexed = true): void {
    if (indexed) {
      this.placeAt(rec, this.layout.posOf[rec] as number, this.r.size[rec] as number, offset);
      return;
    }
    this.offsets[rec] = offset;
    this.totalBytes = Math.max(this.totalBytes, offset + (this.r.size[rec] as number));
    this.placed++;
  }

  /** {@link place} for record `rec` of `size` bytes at position `p`, indexed. */
  placeAt(rec: number, p: number, size: number, offset: number): void {
    this.offsets[rec] = offset;
    this.totalBytes = Math.max(this.totalBytes, offset + size);
    this.seq[p] = this.placed++;
    const end = alignUp(offset + size, this.alignmentBytes);
    this.rangeStart[p] = offset;
    this.rangeEnd[p] = end;
    // A record that occupies nothing takes no slot: the merges see only ranges of positive length.
    if (end <= offset) return;
    // Into its block's slots, after those at or below its offset (earlier placements first on ties).
    this.insert(this.cfgAt, p, offset, end, this.layout.first[p] as number, this.layout.last[p] as number);
  }

  /** The aligned end of a placed record. */
  end(rec: number): number {
    return alignUp((this.offsets[rec] as number) + (this.r.size[rec] as number), this.alignmentBytes);
  }
}
