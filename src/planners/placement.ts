import { alignUp } from './records.js';
import { intervalIndex, timeAxis, type IntervalIndex, type TimeAxis } from './time-index.js';
import type { UsageRecords } from './types.js';

/**
 * Records placed one at a time in one arena, answering what the placement loops of greedy-by-size
 * and XLA's best fit need about the placed records that conflict with a new one (meet it in time).
 *
 * Both loops walk those records in increasing offset, keeping the highest aligned end seen so far;
 * a gap opens wherever a record starts above it. For a record of positive size only these gaps and
 * the final end matter, and they are the gaps of the union of the conflicting records' ranges
 * `[offset, alignUp(offset + size))`: {@link occupied} builds that union, coalesced (ranges that
 * overlap or touch are one run), from the conflicting records in the order the index lists them,
 * each merged into a sorted run list of a few entries, with no sort of the records. The records are
 * found through the {@link IntervalIndex} (live at the record's first time, then starting inside its
 * window), placed ones kept by a flag: O(log T + w) for w records of all kinds meeting the window,
 * linear in the records at a fixed live-set width, in flat arrays of a few words per record.
 *
 * Zero-sized records split gaps in TFLite's walk (a gap ends at each record met), so a zero-sized
 * record asks {@link conflicting} instead: the records themselves in (offset, placement) order, the
 * order TFLite's `ordered_allocs` keeps. Greedy-by-size places them last (sizes descending), so no
 * record of positive size is placed after one of them and their runs need not be split.
 */
/**
 * Bytes per record a placement run allocates: the placement (offsets, ends, order, flags, scratch
 * runs), the time axis and the interval index, and the order of the records.
 */
export const PLACEMENT_BYTES_PER_RECORD = 136;

export class Placement {
  readonly offsets: Float64Array;
  /** Highest end so far (unaligned). */
  totalBytes = 0;
  private readonly ends: Float64Array;
  private readonly seq: Int32Array;
  private readonly placedFlag: Uint8Array;
  private placed = 0;
  private readonly axis: TimeAxis;
  private readonly index: IntervalIndex;
  private readonly out: Int32Array;
  /** The runs of the last {@link occupied} call: [runStart[j], runEnd[j]) ascending, disjoint, not touching. */
  readonly runStart: Float64Array;
  readonly runEnd: Float64Array;

  constructor(
    private readonly r: UsageRecords,
    private readonly alignmentBytes: number,
  ) {
    const count = Math.max(1, r.count);
    this.offsets = new Float64Array(r.count);
    this.ends = new Float64Array(r.count);
    this.seq = new Int32Array(r.count);
    this.placedFlag = new Uint8Array(r.count);
    this.axis = timeAxis(r);
    this.index = intervalIndex(r);
    this.out = new Int32Array(count);
    this.runStart = new Float64Array(count + 1);
    this.runEnd = new Float64Array(count + 1);
  }

  /** Writes the placed records that conflict with `rec` into the scratch buffer; returns how many. */
  private gather(rec: number): number {
    const a = this.axis.fi[rec] as number;
    const b = this.axis.li[rec] as number;
    const out = this.out;
    const placed = this.placedFlag;
    const all = this.index.liveAt(a, out, 0);
    let k = 0;
    for (let j = 0; j < all; j++) {
      const x = out[j] as number;
      if (placed[x]) out[k++] = x;
    }
    const { startOrder, timeStart } = this.index;
    const end = timeStart[b + 1] as number;
    for (let j = timeStart[a + 1] as number; j < end; j++) {
      const x = startOrder[j] as number;
      if (placed[x]) out[k++] = x;
    }
    return k;
  }

  /**
   * The union of the ranges of the placed records that conflict with `rec`, as runs in
   * runStart/runEnd[0, m); returns m. Zero-sized records occupy nothing.
   */
  occupied(rec: number): number {
    const k = this.gather(rec);
    const out = this.out;
    const rs = this.runStart;
    const re = this.runEnd;
    let m = 0;
    for (let q = 0; q < k; q++) {
      const x = out[q] as number;
      const s = this.offsets[x] as number;
      const e = this.ends[x] as number;
      if (e <= s) continue;
      // The first run that ends at or after s: the new range merges with it when it starts by e.
      let lo = 0;
      let hi = m;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((re[mid] as number) < s) lo = mid + 1;
        else hi = mid;
      }
      if (lo === m || (rs[lo] as number) > e) {
        for (let j = m; j > lo; j--) {
          rs[j] = rs[j - 1] as number;
          re[j] = re[j - 1] as number;
        }
        rs[lo] = s;
        re[lo] = e;
        m++;
        continue;
      }
      let last = lo;
      while (last + 1 < m && (rs[last + 1] as number) <= e) last++;
      if (s < (rs[lo] as number)) rs[lo] = s;
      re[lo] = Math.max(e, re[last] as number);
      if (last > lo) {
        const shift = last - lo;
        for (let j = last + 1; j < m; j++) {
          rs[j - shift] = rs[j] as number;
          re[j - shift] = re[j] as number;
        }
        m -= shift;
      }
    }
    return m;
  }

  /**
   * The placed records that conflict with `rec`, sorted by (offset, placement order), as a view of
   * an internal buffer that the next call overwrites.
   */
  conflicting(rec: number): Int32Array {
    const k = this.gather(rec);
    const list = this.out.subarray(0, k);
    list.sort((x, y) => (this.offsets[x] as number) - (this.offsets[y] as number) || (this.seq[x] as number) - (this.seq[y] as number));
    return list;
  }

  /** Places `rec` at `offset`; unindexed records (XLA's zero-sized ones) are never reported. */
  place(rec: number, offset: number, indexed = true): void {
    const size = this.r.size[rec] as number;
    this.offsets[rec] = offset;
    this.ends[rec] = alignUp(offset + size, this.alignmentBytes);
    this.seq[rec] = this.placed++;
    this.totalBytes = Math.max(this.totalBytes, offset + size);
    if (indexed) this.placedFlag[rec] = 1;
  }

  /** The aligned end of a placed record. */
  end(rec: number): number {
    return this.ends[rec] as number;
  }
}
