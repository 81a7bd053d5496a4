import { RUN_BYTES, type BestGapKernel } from './merge-kernel.js';
import { WASM_MEMORY_MAX_BYTES, OutOfAddressSpace } from './limits.js';
import { PlacedOrder } from './placed-order.js';
import { alignUp } from './records.js';
import { DEFAULT_TIME_CLASSES, TimeClasses, type TimeClassesOptions } from './time-classes.js';
import { timeAxis } from './time-index.js';
import type { UsageRecords } from './types.js';
import { wasm, type WasmMemory } from './wasm-module.js';
import {
  BLOCK_INFO_BYTES,
  memoryLayout,
  placementKernels,
  STATE,
  STEP_BYTES,
  WINDOW_AT,
  type InsertKernel,
  type StepsKernel,
  type UnionKernel,
} from './window-kernel.js';
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
 * The slots and the runs being merged live in a WebAssembly memory; the merge of a block is a
 * WebAssembly function (merge-kernel.ts), and so are the walk over a window's blocks and the
 * insertion of a slot, and the placement loops themselves (window-kernel.ts). The records that meet
 * a window are in order by offset within a block but scattered over the arena (records that
 * conflict are disjoint, so their union splits into about as many pieces as a block holds); the merge walks them in memory order, a few blocks per window.
 * At a fixed live-set width a window costs a bounded number of blocks, so a run is linear in the
 * records.
 *
 * Zero-sized records split gaps in TFLite's walk (a gap ends at each record met), so a zero-sized
 * record asks {@link conflicting} instead (placed-order.ts): the records themselves in (offset,
 * placement) order, the order TFLite's `ordered_allocs` keeps. Greedy-by-size places them last (sizes descending), so no
 * record of positive size is placed after one of them and their runs need not be split.
 */
/**
 * Bytes per record a placement run allocates: the placement (offsets, the log of placements and, once
 * asked for, each position's offset and order, block slots, scratch runs, each step's position and
 * times), the time axis and the layout, and the order of the records.
 */
export const PLACEMENT_BYTES_PER_RECORD = 184;

export class Placement {
  readonly offsets: Float64Array;
  /** Highest end so far (unaligned). */
  totalBytes = 0;
  private readonly layout: TimeClasses;
  /** The indexed placements in order, for {@link conflicting}. */
  private readonly placedOrder: PlacedOrder;
  /** Where the steps of the placement order given to {@link sequence} are in the kernels' memory (see window-kernel.ts). */
  private stepsAt = 0;
  /** The records in placement order. */
  private order: ArrayLike<number> = [];
  /**
   * The kernels' memory: per position, at SLOT_BYTES * position, the slot of its block (a block's
   * placed records sorted by offset, ties in placement order: offset, aligned end, first and last
   * time index); per block, its placed records' count and time bounds (BLOCK_INFO_BYTES at infoAt:
   * the smallest first, largest last, largest first and smallest last time index, what a window
   * asks of a block in one cache line: a block none of whose placed records meets the window is
   * passed over, and a bound that all of them meet is not tested); the state the kernels share (at
   * stateAt, see window-kernel.ts); then the runs of one block, then two buffers of runs (the runs
   * so far and the ones the next merge writes), moved to the end of the memory when they grow; a
   * run of scratch before each of the three (the merge kernel's). The layout's tables and the steps
   * of the placement order go after them when the order is given ({@link sequence}).
   */
  private readonly memory: WasmMemory;
  private readonly unionKernel: UnionKernel;
  private readonly insertKernel: InsertKernel;
  private readonly stepsKernel: StepsKernel;
  private readonly bestGap: BestGapKernel;
  private f64: Float64Array;
  private i32: Int32Array;
  private readonly stateAt: number;
  private accAt: number;
  /** Runs each buffer holds. */
  private runCap = 256;
  private placed = 0;
  /** The runs of the last {@link occupied} call: [runStart[j], runEnd[j]) ascending, disjoint, not touching. */
  runStart: Float64Array;
  runEnd: Float64Array;

  constructor(
    private readonly r: UsageRecords,
    private readonly alignmentBytes: number,
    layout: TimeClassesOptions = DEFAULT_TIME_CLASSES,
  ) {
    // Refused before anything is allocated when the records alone are too many; the layout's
    // positions (a block's worth more at most per class) are checked again.
    memoryLayout(r.count, r.count, layout.blockBits, this.runCap);
    this.layout = new TimeClasses(timeAxis(r), layout);
    const { infoAt, stateAt, pickAt, accAt, tmpAt, bytes, blocks } = memoryLayout(this.layout.positions, r.count, layout.blockBits, this.runCap);
    this.stateAt = stateAt;
    this.accAt = accAt;
    this.offsets = new Float64Array(r.count);
    this.placedOrder = new PlacedOrder(this.layout, this.offsets, r.size);
    this.memory = new wasm.Memory({ initial: Math.ceil(bytes / 65536) });
    ({ union: this.unionKernel, insert: this.insertKernel, steps: this.stepsKernel, bestGap: this.bestGap } = placementKernels(this.memory));
    this.f64 = new Float64Array(this.memory.buffer);
    this.i32 = new Int32Array(this.memory.buffer);
    // No record placed: bounds that no window meets.
    const bi = this.i32;
    for (let k = 0, x = infoAt >> 2; k < blocks; k++, x += BLOCK_INFO_BYTES >> 2) {
      bi[x + 1] = 0x7fffffff;
      bi[x + 2] = -1;
      bi[x + 3] = -1;
      bi[x + 4] = 0x7fffffff;
    }
    const st = this.stateAt >> 2;
    bi[st + STATE.accAt / 4] = this.accAt;
    bi[st + STATE.tmpAt / 4] = tmpAt;
    bi[st + STATE.runCap / 4] = this.runCap;
    bi[st + STATE.pickAt / 4] = pickAt;
    bi[st + STATE.classCount / 4] = this.layout.classCount;
    bi[st + STATE.blockBits / 4] = layout.blockBits;
    bi[st + STATE.infoAt / 4] = infoAt;
    bi[st + STATE.grainBits / 4] = layout.grainBits;
    bi[st + STATE.tableSteps / 4] = this.layout.steps;
    const cap = 64;
    this.runStart = new Float64Array(cap);
    this.runEnd = new Float64Array(cap);
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
    if (this.runStart.length < m) {
      this.runStart = new Float64Array(2 * m);
      this.runEnd = new Float64Array(2 * m);
    }
    const rs = this.runStart;
    const re = this.runEnd;
    const f = this.f64;
    for (let j = 0, x = this.accAt >> 3; j < m; j++, x += 2) {
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
    const m = this.union(p, size);
    return this.bestGap(this.accAt, m, size);
  }

  /**
   * XLA's best fit for a record of `size` > 0 bytes at position `p` under a heap of `heapSize`
   * bytes: the start of the smallest gap between the runs of {@link occupiedAt} (from 0) or between
   * the last run and `heapSize` that holds it (the lowest on ties), or -1 when none does; then
   * {@link lastRunEnd} is where it goes. The runs stay in the kernel's memory: the space above the
   * last run up to the heap's size is one more gap, before a run of no length at
   * max(heapSize, its end), which the best-gap kernel returns only when no gap holds the record.
   */
  bestFitBelow(p: number, size: number, heapSize: number): number {
    return this.fitBelow(this.union(p, size), size, heapSize);
  }

  /** {@link bestFitBelow} over the m runs of the last union. */
  private fitBelow(m: number, size: number, heapSize: number): number {
    const f = this.f64;
    const at = this.accAt >> 3;
    const lastEnd = m > 0 ? (f[at + 2 * m - 1] as number) : 0;
    this.lastRunEnd = lastEnd;
    const top = Math.max(heapSize, lastEnd);
    f[at + 2 * m] = top;
    f[at + 2 * m + 1] = top;
    const offset = this.bestGap(this.accAt, m + 1, size);
    return offset === top ? -1 : offset;
  }

  /**
   * The order the records will be placed in: step k places recs[k]. The steps (each record's size,
   * position and times, in sequence) and the layout's tables go into the kernels' memory, for
   * {@link placeSteps} and {@link placeStep}.
   */
  sequence(recs: ArrayLike<number>): void {
    const L = this.layout;
    const n = recs.length;
    const tableBytes = 4 * L.reachTable.length;
    const reachAt = this.memory.buffer.byteLength;
    const startAt = reachAt + tableBytes;
    const stepsAt = startAt + tableBytes;
    const bytes = stepsAt + STEP_BYTES * n;
    if (bytes > WASM_MEMORY_MAX_BYTES) {
      throw new OutOfAddressSpace(
        `${formatCount(n)} records to place in order need ${formatBytes(bytes)} of WebAssembly memory, over its limit of ${formatBytes(WASM_MEMORY_MAX_BYTES)}`,
      );
    }
    this.memory.grow(Math.ceil((bytes - reachAt) / 65536));
    this.f64 = new Float64Array(this.memory.buffer);
    const t = (this.i32 = new Int32Array(this.memory.buffer));
    t.set(L.reachTable, reachAt >> 2);
    t.set(L.startTable, startAt >> 2);
    const st = this.stateAt >> 2;
    t[st + STATE.reachAt / 4] = reachAt;
    t[st + STATE.startAt / 4] = startAt;
    t[st + STATE.stepsAt / 4] = stepsAt;
    const f = this.f64;
    const size = this.r.size;
    for (let k = 0, x = stepsAt >> 2; k < n; k++, x += STEP_BYTES >> 2) {
      const rec = recs[k] as number;
      const p = L.posOf[rec] as number;
      f[x >> 1] = size[rec] as number;
      t[x + 2] = p;
      t[x + 3] = L.first[p] as number;
      t[x + 4] = L.last[p] as number;
    }
    this.stepsAt = stepsAt;
    this.order = recs;
  }

  /**
   * Places the records of steps [k0, k1) of the sequence, greedy-by-size's way (GREEDY_BY_SIZE:
   * {@link bestFitAt}, stopping at the first zero-sized record) or XLA's (XLA_BEST_FIT:
   * {@link bestFitBelow}, the heap growing when no gap holds a record; zero-sized records at 0,
   * unindexed), in the kernel's loop; returns the step it stopped at.
   */
  placeSteps(k0: number, k1: number, mode: number): number {
    let from = k0;
    let reached: number;
    while ((reached = this.stepsKernel(from, k1, mode, this.alignmentBytes, this.stateAt)) < 0) {
      from = -reached - 1;
      this.growRuns();
    }
    // The offsets the kernel left in the steps, per record; the steps placed, for the conflict lists.
    const f = this.f64;
    const order = this.order;
    const size = this.r.size;
    const offsets = this.offsets;
    let total = this.totalBytes;
    for (let k = k0, x = (this.stepsAt + STEP_BYTES * k0) >> 3; k < reached; k++, x += STEP_BYTES >> 3) {
      const rec = order[k] as number;
      const offset = f[x] as number;
      const end = offset + (size[rec] as number);
      offsets[rec] = offset;
      if (end > total) total = end;
    }
    this.placedOrder.addSteps(order, k0, reached, this.placed);
    this.placed += reached - k0;
    this.totalBytes = total;
    return reached;
  }

  /** {@link placeAt} for the record of step k, `rec`. */
  placeStep(k: number, rec: number, size: number, offset: number): void {
    const x = (this.stepsAt + STEP_BYTES * k) >> 2;
    const t = this.i32;
    this.record(rec, t[x + 2] as number, t[x + 3] as number, t[x + 4] as number, size, offset);
  }

  /** The end of the last run of the last {@link bestFitBelow} (0 with none). */
  lastRunEnd = 0;

  /** The runs of {@link occupiedAt}, left at accAt in the kernel's memory; returns how many. */
  private union(p: number, gapBytes: number): number {
    return this.unionOf(this.layout.first[p] as number, this.layout.last[p] as number, gapBytes);
  }

  /** {@link union} for a window [a, b] of time indices. */
  private unionOf(a: number, b: number, gapBytes: number): number {
    const L = this.layout;
    // Each class's run of positions that may meet the window, for the window kernel.
    let t = this.i32;
    const w = (this.stateAt + WINDOW_AT) >> 2;
    for (let k = 0; k < L.classCount; k++) {
      t[w + 2 * k] = L.windowStart(k, a);
      t[w + 2 * k + 1] = L.windowEnd(k, b);
    }
    let m: number;
    while ((m = this.unionKernel(a, b, gapBytes, this.stateAt)) < 0) {
      this.growRuns();
      t = this.i32;
    }
    this.accAt = t[(this.stateAt + STATE.accAt) >> 2] as number;
    return m;
  }

  /** Run buffers twice as large, at the end of a grown memory (the union that needed them starts over). */
  private growRuns(): void {
    const cap = 2 * this.runCap;
    const held = this.memory.buffer.byteLength;
    // A run of scratch before each buffer.
    const at = held + RUN_BYTES;
    if (at + RUN_BYTES * (2 * cap + 1) > WASM_MEMORY_MAX_BYTES) {
      throw new OutOfAddressSpace(
        `${formatCount(cap)} runs of placed records met by one record do not fit in a WebAssembly memory beside the ` +
          `${formatBytes(held)} it holds (its limit is ${formatBytes(WASM_MEMORY_MAX_BYTES)})`,
      );
    }
    this.memory.grow(Math.ceil((RUN_BYTES * (2 * cap + 2)) / 65536));
    this.f64 = new Float64Array(this.memory.buffer);
    this.i32 = new Int32Array(this.memory.buffer);
    const st = this.stateAt >> 2;
    this.i32[st + STATE.accAt / 4] = at;
    this.i32[st + STATE.tmpAt / 4] = at + RUN_BYTES * (cap + 1);
    this.i32[st + STATE.runCap / 4] = cap;
    this.runCap = cap;
  }

  /**
   * The placed records that conflict with `rec`, sorted by (offset, placement order), as a view of
   * an internal buffer that the next call overwrites.
   */
  conflicting(rec: number): Int32Array {
    const p = this.layout.posOf[rec] as number;
    return this.placedOrder.conflicting(this.layout.first[p] as number, this.layout.last[p] as number);
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
    this.record(rec, p, this.layout.first[p] as number, this.layout.last[p] as number, size, offset);
  }

  /** {@link placeAt}, with the first and last time index of position p. */
  private record(rec: number, p: number, first: number, last: number, size: number, offset: number): void {
    this.offsets[rec] = offset;
    this.totalBytes = Math.max(this.totalBytes, offset + size);
    this.placedOrder.add(p, this.placed++);
    const end = alignUp(offset + size, this.alignmentBytes);
    // A record that occupies nothing takes no slot: the merges see only ranges of positive length.
    // + 0 turns a -0 into 0: the kernel orders offsets by their bit patterns.
    if (end > offset) this.insertKernel(p, offset + 0, end, first, last, this.stateAt);
  }

  /** The aligned end of a placed record. */
  end(rec: number): number {
    return alignUp((this.offsets[rec] as number) + (this.r.size[rec] as number), this.alignmentBytes);
  }
}
