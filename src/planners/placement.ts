import { OrderedSet } from '../util/ordered-set.js';
import { timeAxis, type TimeAxis } from './time-index.js';
import type { UsageRecords } from './types.js';

/**
 * Records placed one at a time in one arena, with the placed records that conflict with a new one
 * listed in increasing offset (ties in placement order, as TFLite's `ordered_allocs` keeps them).
 * This is what the placement loops of greedy-by-size and XLA's best fit walk; listing only the
 * conflicting records, already nearly in order, replaces the O(n²) walk over every placed record.
 *
 * Two segment trees over (compressed) time. A record's interval is stored in the O(log T) canonical
 * nodes that cover it, each node's list kept sorted by (offset, placement): the records live at a
 * time t are the lists on the path from t's leaf to the root, merged. Records that start inside a
 * query window are found under the ancestors of their first time and sorted (a numeric sort of one
 * key per record). Cost per query: O(log T + k log L) for k conflicting records from L lists, plus
 * the sort of those that start inside the window. A record that conflicts with most placed ones (a
 * small long-lived one, placed late) walks instead the list of all placed records in offset order,
 * kept linked with a treap to find each insertion point: O(placed) for it, as TFLite's walk.
 */
export class Placement {
  readonly offsets: Float64Array;
  private readonly seq: Int32Array;
  private readonly bySeq: Int32Array;
  private readonly axis: TimeAxis;
  private readonly n: number;
  private readonly stab: (number[] | undefined)[];
  private readonly starts: (number[] | undefined)[];
  private readonly out: Int32Array;
  private readonly tmp: Int32Array;
  private readonly keys: Float64Array;
  /** A power of two above any placement number: sort keys are offset * keyScale + seq. */
  private readonly keyScale: number;
  private readonly listPos: Int32Array;
  private readonly lists: number[][] = [];
  private placed = 0;
  /** All placed records in (offset, placement) order: a linked list, and a treap to insert into it. */
  private readonly order = new OrderedSet(1024);
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  private head = -1;
  private tail = -1;
  /** Highest end so far. */
  totalBytes = 0;

  constructor(private readonly r: UsageRecords) {
    const count = Math.max(1, r.count);
    this.offsets = new Float64Array(r.count);
    this.seq = new Int32Array(r.count);
    this.bySeq = new Int32Array(count);
    this.axis = timeAxis(r);
    let n = 1;
    while (n < Math.max(1, this.axis.times.length)) n <<= 1;
    this.n = n;
    this.stab = new Array<number[] | undefined>(2 * n);
    this.starts = new Array<number[] | undefined>(2 * n);
    this.out = new Int32Array(count);
    this.tmp = new Int32Array(count);
    this.keys = new Float64Array(count);
    let scale = 1;
    while (scale < r.count) scale *= 2;
    this.keyScale = scale;
    this.listPos = new Int32Array(Math.log2(n) + 2); // one per node on a leaf-to-root path
    this.next = new Int32Array(count).fill(-1);
    this.prev = new Int32Array(count).fill(-1);
  }

  /** Whether placed record a comes before b: lower offset, or placed earlier at the same offset. */
  private before(a: number, b: number): boolean {
    const oa = this.offsets[a] as number;
    const ob = this.offsets[b] as number;
    return oa < ob || (oa === ob && (this.seq[a] as number) < (this.seq[b] as number));
  }

  /**
   * The placed records that conflict with `rec`, sorted by (offset, placement order), as a view of
   * an internal buffer that the next call overwrites.
   */
  conflicting(rec: number): Int32Array {
    const a = this.axis.fi[rec] as number;
    const b = this.axis.li[rec] as number;
    // Records that start inside the window, sorted.
    let t = 0;
    for (let l = a + 1 + this.n, r = b + this.n + 1; l < r; l >>= 1, r >>= 1) {
      if (l & 1) {
        const x = this.starts[l++];
        if (x) for (let j = 0; j < x.length; j++) this.tmp[t++] = x[j] as number;
      }
      if (r & 1) {
        const x = this.starts[--r];
        if (x) for (let j = 0; j < x.length; j++) this.tmp[t++] = x[j] as number;
      }
    }
    const lists = this.lists;
    lists.length = 0;
    let stabbed = 0;
    for (let i = a + this.n; i >= 1; i >>= 1) {
      const x = this.stab[i];
      if (x && x.length > 0) {
        lists.push(x);
        stabbed += x.length;
      }
    }
    // Sorting k records costs about k log k comparisons; walking every placed one costs one cheap
    // test each: past a sixteenth of them, the walk is cheaper.
    if ((t + stabbed) * 16 > this.placed) return this.walkAll(a, b);
    this.sortPlaced(t);
    // Merge the sorted lists on the path from a's leaf to the root with the sorted starts.
    const L = lists.length;
    let k = 0;
    let pt = 0;
    for (let q = 0; q < L; q++) this.listPos[q] = 0;
    for (;;) {
      // The smallest head, and the runner-up: the winner's list runs on while it stays below it.
      let best = -1;
      let bestList = -1;
      let second = -1;
      for (let q = 0; q < L; q++) {
        const x = lists[q] as number[];
        const pos = this.listPos[q] as number;
        if (pos >= x.length) continue;
        const head = x[pos] as number;
        if (best < 0 || this.before(head, best)) {
          second = best;
          best = head;
          bestList = q;
        } else if (second < 0 || this.before(head, second)) {
          second = head;
        }
      }
      if (pt < t) {
        const head = this.tmp[pt] as number;
        if (best < 0 || this.before(head, best)) {
          this.out[k++] = head;
          pt++;
          continue;
        }
        if (second < 0 || this.before(head, second)) second = head;
      }
      if (best < 0) break;
      const x = lists[bestList] as number[];
      let pos = this.listPos[bestList] as number;
      do this.out[k++] = x[pos++] as number;
      while (pos < x.length && (second < 0 || this.before(x[pos] as number, second)));
      this.listPos[bestList] = pos;
    }
    return this.out.subarray(0, k);
  }

  /** Every placed record in offset order, keeping those that meet time indices [a, b]. */
  private walkAll(a: number, b: number): Int32Array {
    const { fi, li } = this.axis;
    let k = 0;
    for (let x = this.head; x >= 0; x = this.next[x] as number) {
      if ((fi[x] as number) <= b && (li[x] as number) >= a) this.out[k++] = x;
    }
    return this.out.subarray(0, k);
  }

  /** Sorts tmp[0, t) by (offset, placement). */
  private sortPlaced(t: number): void {
    if (t < 2) return;
    const tmp = this.tmp.subarray(0, t);
    const scale = this.keyScale;
    if (this.totalBytes * scale < Number.MAX_SAFE_INTEGER) {
      // One exact number per record (every offset is at most the highest end so far): a native
      // numeric sort, no comparator calls.
      const keys = this.keys.subarray(0, t);
      for (let j = 0; j < t; j++) {
        const x = tmp[j] as number;
        keys[j] = (this.offsets[x] as number) * scale + (this.seq[x] as number);
      }
      keys.sort();
      for (let j = 0; j < t; j++) {
        const key = keys[j] as number;
        tmp[j] = this.bySeq[key - Math.floor(key / scale) * scale] as number;
      }
      return;
    }
    tmp.sort((x, y) => (this.before(x, y) ? -1 : this.before(y, x) ? 1 : 0));
  }

  /** Places `rec` at `offset`; unindexed records (XLA's zero-sized ones) are never reported. */
  place(rec: number, offset: number, indexed = true): void {
    this.offsets[rec] = offset;
    this.bySeq[this.placed] = rec;
    this.seq[rec] = this.placed++;
    this.totalBytes = Math.max(this.totalBytes, offset + (this.r.size[rec] as number));
    if (!indexed) return;
    // Linked in after every placed record at this offset or below.
    const seq = this.seq[rec] as number;
    const after = this.order.upperBound(offset, seq);
    const succ = after >= 0 ? this.order.payload(after) : -1;
    this.order.insert(offset, seq, rec);
    const pred = succ >= 0 ? (this.prev[succ] as number) : this.tail;
    this.prev[rec] = pred;
    this.next[rec] = succ;
    if (pred >= 0) this.next[pred] = rec;
    else this.head = rec;
    if (succ >= 0) this.prev[succ] = rec;
    else this.tail = rec;
    const a = this.axis.fi[rec] as number;
    const b = this.axis.li[rec] as number;
    for (let l = a + this.n, r = b + this.n + 1; l < r; l >>= 1, r >>= 1) {
      if (l & 1) this.insertSorted(l++, rec);
      if (r & 1) this.insertSorted(--r, rec);
    }
    for (let i = a + this.n; i >= 1; i >>= 1) {
      const x = this.starts[i];
      if (x) x.push(rec);
      else this.starts[i] = [rec];
    }
  }

  private insertSorted(node: number, rec: number): void {
    const x = this.stab[node];
    if (!x) {
      this.stab[node] = [rec];
      return;
    }
    // The newest record goes after every record at its offset or below.
    let lo = 0;
    let hi = x.length;
    const o = this.offsets[rec] as number;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.offsets[x[mid] as number] as number) <= o) lo = mid + 1;
      else hi = mid;
    }
    x.splice(lo, 0, rec);
  }
}
