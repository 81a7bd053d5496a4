import { ConflictIndex, timeAxis } from './time-index.js';
import type { UsageRecords } from './types.js';

/**
 * Records placed one at a time in one arena, with the placed records that conflict with a new one
 * listed in increasing offset (ties in placement order, as TFLite's `ordered_allocs` keeps them).
 * Finding them costs O(log T + k) and sorting them O(k log k), for k conflicting records: the
 * placement loops of greedy-by-size and XLA's best fit cost O(n log n + Σ k log k) instead of the
 * O(n²) of walking every placed record.
 */
export class Placement {
  readonly offsets: Float64Array;
  private readonly seq: Int32Array;
  private readonly index: ConflictIndex;
  private readonly buf: Int32Array;
  private placed = 0;
  /** Highest end so far. */
  totalBytes = 0;

  constructor(private readonly r: UsageRecords) {
    this.offsets = new Float64Array(r.count);
    this.seq = new Int32Array(r.count);
    this.index = new ConflictIndex(timeAxis(r));
    this.buf = new Int32Array(Math.max(1, r.count));
  }

  /**
   * The placed records that conflict with `rec`, sorted by (offset, placement order), as a view of
   * an internal buffer that the next call overwrites.
   */
  conflicting(rec: number): Int32Array {
    const axis = timeAxis(this.r);
    const k = this.index.query(axis.fi[rec] as number, axis.li[rec] as number, this.buf);
    const out = this.buf.subarray(0, k);
    const offsets = this.offsets;
    const seq = this.seq;
    out.sort((a, b) => (offsets[a] as number) - (offsets[b] as number) || (seq[a] as number) - (seq[b] as number));
    return out;
  }

  /** Places `rec` at `offset`. */
  place(rec: number, offset: number, indexed = true): void {
    this.offsets[rec] = offset;
    this.seq[rec] = this.placed++;
    this.totalBytes = Math.max(this.totalBytes, offset + (this.r.size[rec] as number));
    if (indexed) this.index.insert(rec);
  }
}
