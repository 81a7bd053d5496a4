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
  const n = r.count;
  const first = r.first.subarray(0, n);
  let ascending = true;
  let distinct = true;
  for (let i = 1; i < n && ascending; i++) {
    const d = (first[i] as number) - (first[i - 1] as number);
    ascending = d >= 0;
    distinct &&= d > 0;
  }
  // Traces list records by first time already, each its own (a trace's allocation counter): the
  // firsts are the times (no copy of them), and each first is found walking along.
  let times: Float64Array;
  if (ascending && distinct) {
    times = first;
  } else {
    const sorted = ascending ? Float64Array.from(first) : Float64Array.from(first).sort();
    let m = 0;
    for (let i = 0; i < sorted.length; i++) {
      if (m === 0 || sorted[i] !== sorted[m - 1]) sorted[m++] = sorted[i] as number;
    }
    times = sorted.slice(0, m);
  }
  const m = times.length;
  const fi = new Int32Array(n);
  const li = new Int32Array(n);
  if (ascending) {
    for (let i = 0, k = -1; i < n; i++) {
      if (k < 0 || (times[k] as number) !== (r.first[i] as number)) k++;
      fi[i] = k;
    }
  } else {
    for (let i = 0; i < n; i++) fi[i] = upperBound(times, r.first[i] as number) - 1;
  }
  // Times that are consecutive integers (a trace's allocation counter) need no search for a last time.
  const t0 = m > 0 ? (times[0] as number) : 0;
  const consecutive = m > 0 && Number.isInteger(t0) && (times[m - 1] as number) === t0 + m - 1;
  for (let i = 0; i < n; i++) {
    const x = r.last[i] as number;
    li[i] = consecutive ? Math.min(m - 1, Math.floor(x - t0)) : upperBound(times, x) - 1;
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

/**
 * Record indices sorted by a key, ascending, ties by index (a stable sort). Integer keys of a range
 * that fits are packed with the index into one number and sorted natively, without a comparator.
 */
export function orderBy(count: number, key: (i: number) => number): Uint32Array {
  const keys = new Float64Array(count);
  let lo = Infinity;
  let hi = -Infinity;
  let integers = true;
  for (let i = 0; i < count; i++) {
    const k = key(i);
    keys[i] = k;
    if (k < lo) lo = k;
    if (k > hi) hi = k;
    if (integers && !Number.isInteger(k)) integers = false;
  }
  const idx = new Uint32Array(count);
  if (count > 0 && integers && (hi - lo + 1) * count < Number.MAX_SAFE_INTEGER) {
    for (let i = 0; i < count; i++) keys[i] = ((keys[i] as number) - lo) * count + i;
    keys.sort();
    for (let j = 0; j < count; j++) idx[j] = (keys[j] as number) % count;
    return idx;
  }
  for (let i = 0; i < count; i++) idx[i] = i;
  return idx.sort((a, b) => (keys[a] as number) - (keys[b] as number) || a - b);
}

/**
 * A segment tree over time indices with "add v to [a, b]" and "largest value anywhere", both
 * O(log T), walked bottom-up without recursion: the sweep behind the objects lower bound.
 */
export class MaxAddTree {
  private readonly n: number;
  /** Per node: the largest value in its range, counting its own and its descendants' adds. */
  private readonly mx: Float64Array;
  /** Per inner node: what was added to its whole range. */
  private readonly add: Float64Array;

  constructor(size: number) {
    let n = 1;
    while (n < Math.max(1, size)) n <<= 1;
    this.n = n;
    this.mx = new Float64Array(2 * n);
    this.add = new Float64Array(n);
  }

  /** Adds `v` to every time index in [a, b]. */
  rangeAdd(a: number, b: number, v: number): void {
    const mx = this.mx;
    const add = this.add;
    const n = this.n;
    let l = a + n;
    let r = b + n + 1;
    const l0 = l;
    const r0 = r - 1;
    while (l < r) {
      if (l & 1) {
        mx[l] = (mx[l] as number) + v;
        if (l < n) add[l] = (add[l] as number) + v;
        l++;
      }
      if (r & 1) {
        r--;
        mx[r] = (mx[r] as number) + v;
        if (r < n) add[r] = (add[r] as number) + v;
      }
      l >>= 1;
      r >>= 1;
    }
    for (let x = l0 >> 1; x >= 1; x >>= 1) mx[x] = Math.max(mx[2 * x] as number, mx[2 * x + 1] as number) + (add[x] as number);
    for (let x = r0 >> 1; x >= 1; x >>= 1) mx[x] = Math.max(mx[2 * x] as number, mx[2 * x + 1] as number) + (add[x] as number);
  }

  /** The largest value at any time index. */
  get max(): number {
    return this.mx[1] as number;
  }
}

/**
 * Every record indexed once by its time interval, in flat arrays built in O(n + T): which records are
 * live at a time index (a centered interval tree over the compressed axis) and which start in a range
 * of time indices (records sorted by first time, CSR). Together they list the records that meet a
 * window [a, b] exactly once each: those live at a, then those that start in (a, b].
 *
 * The interval tree is implicit: a record [f, l] belongs to the node of level h = bit length of
 * f XOR l and prefix f >> h (for f < l, the lowest node whose halves split it: f is in the left half,
 * l in the right). A node keeps its records sorted by first (ascending) and by last (descending), so
 * the records live at a time t left of the node's middle are a prefix of the first list, and right of
 * it a prefix of the second. A query walks the log T nodes above t's leaf: O(log T + k) for the k
 * records live at t. Memory: about 2 entries per node and 4 per record.
 */
export class IntervalIndex {
  /** Levels above the leaves (the leaves are level 0). */
  private readonly height: number;
  /** Per level: the index of its first node in the flat node arrays. */
  private readonly levelBase: Int32Array;
  /** CSR: node v's records are byFirst/byLast[nodeStart[v], nodeStart[v + 1]). */
  private readonly nodeStart: Int32Array;
  private readonly byFirst: Int32Array;
  private readonly byLast: Int32Array;
  /** Records by first time index, ties in record order. */
  readonly startOrder: Int32Array;
  /** Records starting at time index t are startOrder[timeStart[t], timeStart[t + 1]). */
  readonly timeStart: Int32Array;

  constructor(private readonly axis: TimeAxis) {
    const { fi, li } = axis;
    const n = fi.length;
    const T = Math.max(1, axis.times.length);
    let height = 0;
    while (1 << height < T) height++;
    this.height = height;
    this.levelBase = new Int32Array(height + 2);
    for (let h = 0; h <= height; h++) this.levelBase[h + 1] = (this.levelBase[h] as number) + (1 << (height - h));
    const nodes = this.levelBase[height + 1] as number;
    const nodeOf = new Int32Array(n);
    const nodeStart = new Int32Array(nodes + 1);
    for (let i = 0; i < n; i++) {
      const f = fi[i] as number;
      const x = f ^ (li[i] as number);
      const h = x === 0 ? 0 : 32 - Math.clz32(x);
      const v = (this.levelBase[h] as number) + (f >> h);
      nodeOf[i] = v;
      nodeStart[v + 1] = (nodeStart[v + 1] as number) + 1;
    }
    for (let v = 0; v < nodes; v++) nodeStart[v + 1] = (nodeStart[v + 1] as number) + (nodeStart[v] as number);
    this.nodeStart = nodeStart;
    // Counting sorts: by first ascending, and by last descending, ties in record order.
    this.timeStart = new Int32Array(T + 1);
    for (let i = 0; i < n; i++) bump(this.timeStart, (fi[i] as number) + 1);
    for (let t = 0; t < T; t++) this.timeStart[t + 1] = (this.timeStart[t + 1] as number) + (this.timeStart[t] as number);
    this.startOrder = new Int32Array(n);
    const fill = this.timeStart.slice(0, T);
    for (let i = 0; i < n; i++) this.startOrder[bump(fill, fi[i] as number) - 1] = i;
    const lastStart = new Int32Array(T + 1);
    for (let i = 0; i < n; i++) bump(lastStart, T - (li[i] as number));
    for (let t = 0; t < T; t++) lastStart[t + 1] = (lastStart[t + 1] as number) + (lastStart[t] as number);
    const byLastAll = new Int32Array(n);
    for (let i = 0; i < n; i++) byLastAll[bump(lastStart, T - 1 - (li[i] as number)) - 1] = i;
    // Distributed to their nodes, each node's lists keep those orders.
    this.byFirst = new Int32Array(n);
    this.byLast = new Int32Array(n);
    const pos = nodeStart.slice(0, nodes);
    for (let k = 0; k < n; k++) {
      const i = this.startOrder[k] as number;
      this.byFirst[bump(pos, nodeOf[i] as number) - 1] = i;
    }
    pos.set(nodeStart.subarray(0, nodes));
    for (let k = 0; k < n; k++) {
      const i = byLastAll[k] as number;
      this.byLast[bump(pos, nodeOf[i] as number) - 1] = i;
    }
  }

  /** Writes every record live at time index `t` into `out` from index `k`; returns the new end. */
  liveAt(t: number, out: Int32Array, k: number): number {
    const { fi, li } = this.axis;
    for (let h = 0; h <= this.height; h++) {
      const v = (this.levelBase[h] as number) + (t >> h);
      let j = this.nodeStart[v] as number;
      const end = this.nodeStart[v + 1] as number;
      if (j === end) continue;
      if (h === 0) {
        while (j < end) out[k++] = this.byFirst[j++] as number;
      } else if (t < (((t >> h) << h) | (1 << (h - 1)))) {
        // Left of the middle: every record here ends right of it; those that started by t are live.
        for (; j < end; j++) {
          const x = this.byFirst[j] as number;
          if ((fi[x] as number) > t) break;
          out[k++] = x;
        }
      } else {
        for (; j < end; j++) {
          const x = this.byLast[j] as number;
          if ((li[x] as number) < t) break;
          out[k++] = x;
        }
      }
    }
    return k;
  }
}

/** Adds one to a[i]; returns the new value. */
function bump(a: Int32Array, i: number): number {
  const v = (a[i] as number) + 1;
  a[i] = v;
  return v;
}

const indexCache = new WeakMap<UsageRecords, IntervalIndex>();

/** The interval index of a set of records (built once per records object). */
export function intervalIndex(r: UsageRecords): IntervalIndex {
  let x = indexCache.get(r);
  if (!x) {
    x = new IntervalIndex(timeAxis(r));
    indexCache.set(r, x);
  }
  return x;
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
