import { alignUp } from './records.js';
import { DEFAULT_TIME_CLASSES, TimeClasses, type TimeClassesOptions } from './time-classes.js';
import { timeAxis } from './time-index.js';
import type { UsageRecords } from './types.js';

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
 * time, into the runs so far: no search per record, no sort, and no lookup through a record index. The records that meet a window are in order by offset within a block but
 * scattered over the arena (records that conflict are disjoint, so their union splits into about
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

/** A start above any offset, finite so that 0 times it is 0. */
const NEVER = 2 ** 1000;

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
   * Per block, in the slots of its positions: its placed records sorted by offset (ties in
   * placement order) as offset, aligned end, first and last time index.
   */
  private readonly slotStart: Float64Array;
  private readonly slotEnd: Float64Array;
  private readonly slotFirst: Int32Array;
  private readonly slotLast: Int32Array;
  /**
   * Per block k, at 8k: how many of its records are placed, then its time bounds (the layout's
   * blockTimes): what a window asks of a block, in one cache line.
   */
  private readonly blockInfo: Int32Array;
  private placed = 0;
  /** Runs being built, and the buffer the next merge writes. */
  private accStart: Float64Array;
  private accEnd: Float64Array;
  private tmpStart: Float64Array;
  private tmpEnd: Float64Array;
  /** Positions gathered by {@link conflicting}. */
  private out: Int32Array;
  /** The ranges of the records of one block that a merge takes (and room for a sentinel). */
  private readonly pickStart: Float64Array;
  private readonly pickEnd: Float64Array;
  /** The runs of the last {@link occupied} call: [runStart[j], runEnd[j]) ascending, disjoint, not touching. */
  runStart: Float64Array;
  runEnd: Float64Array;

  constructor(
    private readonly r: UsageRecords,
    private readonly alignmentBytes: number,
    layout: TimeClassesOptions = DEFAULT_TIME_CLASSES,
  ) {
    const n = r.count;
    this.offsets = new Float64Array(n);
    this.layout = new TimeClasses(timeAxis(r), layout);
    this.rangeStart = new Float64Array(n);
    this.rangeEnd = new Float64Array(n).fill(-1);
    this.seq = new Int32Array(n);
    this.slotStart = new Float64Array(n);
    this.slotEnd = new Float64Array(n);
    this.slotFirst = new Int32Array(n);
    this.slotLast = new Int32Array(n);
    const blocks = (n >> layout.blockBits) + 1;
    this.blockInfo = new Int32Array(8 * blocks);
    const bt = this.layout.blockTimes;
    for (let k = 0; k < blocks; k++) for (let x = 0; x < 4; x++) this.blockInfo[8 * k + 1 + x] = bt[4 * k + x] as number;
    const cap = 64;
    this.accStart = new Float64Array(cap);
    this.accEnd = new Float64Array(cap);
    this.tmpStart = new Float64Array(cap);
    this.tmpEnd = new Float64Array(cap);
    this.runStart = new Float64Array(cap);
    this.runEnd = new Float64Array(cap);
    this.out = new Int32Array(cap);
    this.pickStart = new Float64Array((1 << layout.blockBits) + 1);
    this.pickEnd = new Float64Array((1 << layout.blockBits) + 1);
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

  /** {@link occupied} for the record at position `p`. */
  occupiedAt(p: number): number {
    const L = this.layout;
    const a = L.first[p] as number;
    const b = L.last[p] as number;
    const bb = L.blockBits;
    const bi = this.blockInfo;
    let m = 0;
    let done = -1;
    for (let k = 0; k < L.classCount; k++) {
      const from = L.windowStart(k, a);
      const to = L.windowEnd(k, b);
      if (from >= to) continue;
      for (let blk = Math.max(from >> bb, done + 1), last = (to - 1) >> bb; blk <= last; blk++) {
        const info = 8 * blk;
        if ((bi[info] as number) === 0 || (bi[info + 2] as number) < a || (bi[info + 1] as number) > b) continue;
        m = this.mergeBlock(blk, a, b, m);
      }
      done = (to - 1) >> bb;
    }
    if (this.runStart.length < m) {
      this.runStart = new Float64Array(this.accStart.length);
      this.runEnd = new Float64Array(this.accStart.length);
    }
    const rs = this.runStart;
    const re = this.runEnd;
    const as = this.accStart;
    const ae = this.accEnd;
    for (let j = 0; j < m; j++) {
      rs[j] = as[j] as number;
      re[j] = ae[j] as number;
    }
    return m;
  }

  /** Merges the placed records of block `blk` that meet [a, b] (and occupy bytes) into the m runs so far. */
  private mergeBlock(blk: number, a: number, b: number, m: number): number {
    const o = blk << this.layout.blockBits;
    const bi = this.blockInfo;
    const count = bi[8 * blk] as number;
    if (this.tmpStart.length < m + count + 1) this.grow(m + count + 1);
    const S = this.slotStart;
    const E = this.slotEnd;
    // The ranges of the block's records that meet [a, b], still by offset, copied without a branch
    // per record; a bound that every record of the block meets is not tested.
    const ps = this.pickStart;
    const pe = this.pickEnd;
    const checkFirst = (bi[8 * blk + 3] as number) > b;
    const checkLast = (bi[8 * blk + 4] as number) < a;
    let c = 0;
    const qe = o + count;
    if (checkFirst && checkLast) {
      const first = this.slotFirst;
      const last = this.slotLast;
      for (let q = o; q < qe; q++) {
        ps[c] = S[q] as number;
        pe[c] = E[q] as number;
        c += (((last[q] as number) >= a) as unknown as number) & (((first[q] as number) <= b) as unknown as number);
      }
    } else if (checkLast) {
      const last = this.slotLast;
      for (let q = o; q < qe; q++) {
        ps[c] = S[q] as number;
        pe[c] = E[q] as number;
        c += ((last[q] as number) >= a) as unknown as number;
      }
    } else if (checkFirst) {
      const first = this.slotFirst;
      for (let q = o; q < qe; q++) {
        ps[c] = S[q] as number;
        pe[c] = E[q] as number;
        c += ((first[q] as number) <= b) as unknown as number;
      }
    } else {
      for (let q = o; q < qe; q++) {
        ps[c] = S[q] as number;
        pe[c] = E[q] as number;
        c++;
      }
    }
    if (c === 0) return m;
    const rs = this.accStart;
    const re = this.accEnd;
    if (m === 0) {
      // The first block: its ranges coalesced, nothing to merge them with.
      let cs = ps[0] as number;
      let ce = pe[0] as number;
      let w = 0;
      for (let j = 1; j < c; j++) {
        const s = ps[j] as number;
        const e = pe[j] as number;
        rs[w] = cs;
        re[w] = ce;
        const g = +(s > ce);
        w += g;
        cs += g * (s - cs);
        ce += +(e > ce) * (e - ce);
      }
      rs[w] = cs;
      re[w] = ce;
      return w + 1;
    }
    const ts = this.tmpStart;
    const te = this.tmpEnd;
    // A merge without a branch per step (the order of two offsets is a coin toss to the processor):
    // each step takes the lower start of the two lists (the runs so far on ties) by arithmetic on
    // 0/1, and either extends the current run or closes it and opens one. Past the end of each list
    // sits a start that is never taken (and an end of 0, so that the arithmetic stays finite).
    ps[c] = NEVER;
    pe[c] = 0;
    rs[m] = NEVER;
    re[m] = 0;
    let i = 0;
    let j = 0;
    // An empty run at the lowest start, which the first range extends.
    let cs = Math.min(ps[0] as number, rs[0] as number);
    let ce = cs;
    let w = 0;
    for (let k = m + c; k > 0; k--) {
      const x = ps[j] as number;
      const y = rs[i] as number;
      const t = +(x < y);
      const u = 1 - t;
      const s = t * x + u * y;
      const e = t * (pe[j] as number) + u * (re[i] as number);
      j += t;
      i += u;
      // The run so far is written each step; it stays only when the next range opens a new one.
      ts[w] = cs;
      te[w] = ce;
      const g = +(s > ce);
      w += g;
      // Offsets are integers below 2^53, so these differences and sums are exact.
      cs += g * (s - cs);
      ce += +(e > ce) * (e - ce);
    }
    ts[w] = cs;
    te[w] = ce;
    w++;
    this.tmpStart = rs;
    this.tmpEnd = re;
    this.accStart = ts;
    this.accEnd = te;
    return w;
  }

  /** Room for `need` runs in the merge buffers (keeping the runs built so far). */
  private grow(need: number): void {
    let cap = this.tmpStart.length;
    while (cap < need) cap *= 2;
    const keep = (x: Float64Array): Float64Array => {
      const y = new Float64Array(cap);
      y.set(x);
      return y;
    };
    this.accStart = keep(this.accStart);
    this.accEnd = keep(this.accEnd);
    this.tmpStart = new Float64Array(cap);
    this.tmpEnd = new Float64Array(cap);
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
    const blk = p >> this.layout.blockBits;
    const o = blk << this.layout.blockBits;
    let j = o + (this.blockInfo[8 * blk] as number);
    this.blockInfo[8 * blk] = j - o + 1;
    const S = this.slotStart;
    const E = this.slotEnd;
    const F = this.slotFirst;
    const L = this.slotLast;
    while (j > o && (S[j - 1] as number) > offset) {
      S[j] = S[j - 1] as number;
      E[j] = E[j - 1] as number;
      F[j] = F[j - 1] as number;
      L[j] = L[j - 1] as number;
      j--;
    }
    S[j] = offset;
    E[j] = end;
    F[j] = this.layout.first[p] as number;
    L[j] = this.layout.last[p] as number;
  }

  /** The aligned end of a placed record. */
  end(rec: number): number {
    return alignUp((this.offsets[rec] as number) + (this.r.size[rec] as number), this.alignmentBytes);
  }
}
