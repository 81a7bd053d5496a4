import type { UsageRecords } from './types.js';

/**
 * Logical time compressed to the distinct `first` times of the records. The set of live records can
 * only grow at a `first`, so every question of the form "what is live at the busiest moment" is
 * answered by looking at these times alone; times in between hold subsets.
 */
export interface TimeAxis {
  /** Distinct first times, ascending. */
  times: Float64Array;
  /** Per record: index in `times` of its first. */
  fi: Int32Array;
  /** Per record: index of the last time in `times` that is <= its last (>= fi). */
  li: Int32Array;
}

const axisCache = new WeakMap<UsageRecords, TimeAxis>();

/** The compressed time axis of a set of records (computed once per records object). */
export function timeAxis(r: UsageRecords): TimeAxis {
  const cached = axisCache.get(r);
  if (cached) return cached;
  const sorted = Float64Array.from(r.first).sort();
  let m = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (m === 0 || sorted[i] !== sorted[m - 1]) sorted[m++] = sorted[i] as number;
  }
  const times = sorted.slice(0, m);
  const fi = new Int32Array(r.count);
  const li = new Int32Array(r.count);
  for (let i = 0; i < r.count; i++) {
    fi[i] = upperBound(times, r.first[i] as number) - 1;
    li[i] = upperBound(times, r.last[i] as number) - 1;
  }
  const axis = { times, fi, li };
  axisCache.set(r, axis);
  return axis;
}

/** Index of the first element > x in a sorted array. */
export function upperBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Record indices sorted by a key, ascending, ties by index (a stable sort). */
export function orderBy(count: number, key: (i: number) => number): Uint32Array {
  const keys = new Float64Array(count);
  for (let i = 0; i < count; i++) keys[i] = key(i);
  const idx = new Uint32Array(count);
  for (let i = 0; i < count; i++) idx[i] = i;
  return idx.sort((a, b) => (keys[a] as number) - (keys[b] as number) || a - b);
}

/**
 * A segment tree over time indices with "add v to [a, b]" and "largest value anywhere", both
 * O(log T): the sweep behind both lower bounds.
 */
export class MaxAddTree {
  private readonly n: number;
  private readonly mx: Float64Array;
  private readonly add: Float64Array;

  constructor(size: number) {
    let n = 1;
    while (n < Math.max(1, size)) n <<= 1;
    this.n = n;
    this.mx = new Float64Array(2 * n);
    this.add = new Float64Array(2 * n);
  }

  /** Adds `v` to every time index in [a, b]. */
  rangeAdd(a: number, b: number, v: number): void {
    this.update(1, 0, this.n - 1, a, b, v);
  }

  private update(node: number, lo: number, hi: number, a: number, b: number, v: number): void {
    if (b < lo || hi < a) return;
    if (a <= lo && hi <= b) {
      this.mx[node] = (this.mx[node] as number) + v;
      this.add[node] = (this.add[node] as number) + v;
      return;
    }
    const mid = (lo + hi) >>> 1;
    this.update(2 * node, lo, mid, a, b, v);
    this.update(2 * node + 1, mid + 1, hi, a, b, v);
    this.mx[node] = Math.max(this.mx[2 * node] as number, this.mx[2 * node + 1] as number) + (this.add[node] as number);
  }

  /** The largest value at any time index. */
  get max(): number {
    return this.mx[1] as number;
  }
}

/**
 * The records inserted so far, indexed so that those whose interval meets a query interval are found
 * in O(log T + k): a stabbing tree holds each interval in O(log T) canonical nodes (records live at
 * the query's start), and a second tree holds each record under the ancestors of its first time
 * (records that start inside the query). Each record is reported once.
 */
export class ConflictIndex {
  private readonly n: number;
  private readonly stab: (number[] | undefined)[];
  private readonly starts: (number[] | undefined)[];

  constructor(private readonly axis: TimeAxis) {
    let n = 1;
    while (n < Math.max(1, axis.times.length)) n <<= 1;
    this.n = n;
    this.stab = new Array<number[] | undefined>(2 * n);
    this.starts = new Array<number[] | undefined>(2 * n);
  }

  private static push(lists: (number[] | undefined)[], node: number, rec: number): void {
    const l = lists[node];
    if (l) l.push(rec);
    else lists[node] = [rec];
  }

  /** Adds record `rec`. */
  insert(rec: number): void {
    const a = this.axis.fi[rec] as number;
    const b = this.axis.li[rec] as number;
    for (let l = a + this.n, r = b + this.n + 1; l < r; l >>= 1, r >>= 1) {
      if (l & 1) ConflictIndex.push(this.stab, l++, rec);
      if (r & 1) ConflictIndex.push(this.stab, --r, rec);
    }
    for (let i = a + this.n; i >= 1; i >>= 1) ConflictIndex.push(this.starts, i, rec);
  }

  /**
   * Writes into `out` (from index 0) every inserted record live at some time index in [a, b];
   * returns how many. `out` must have room for all inserted records.
   */
  query(a: number, b: number, out: Int32Array): number {
    let k = 0;
    for (let i = a + this.n; i >= 1; i >>= 1) {
      const l = this.stab[i];
      if (l) for (let j = 0; j < l.length; j++) out[k++] = l[j] as number;
    }
    for (let l = a + 1 + this.n, r = b + this.n + 1; l < r; l >>= 1, r >>= 1) {
      if (l & 1) {
        const x = this.starts[l++];
        if (x) for (let j = 0; j < x.length; j++) out[k++] = x[j] as number;
      }
      if (r & 1) {
        const x = this.starts[--r];
        if (x) for (let j = 0; j < x.length; j++) out[k++] = x[j] as number;
      }
    }
    return k;
  }
}

/**
 * Records in execution order: by first time, ties in record order. TFLite's in-order strategies
 * (equality, greedy-in-order, min-cost-flow) take records sorted by first task (its callers build
 * them that way; TensorUsageRecord's operator< compares first_task) and release objects as the
 * first task advances. Traces are already in this order; minimalloc files need not be.
 */
export function executionOrder(r: UsageRecords): Uint32Array {
  return orderBy(r.count, (i) => r.first[i] as number);
}
