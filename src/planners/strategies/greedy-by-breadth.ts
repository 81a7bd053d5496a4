import { intervalIndex, orderBy, timeAxis } from '../time-index.js';
import type { ObjectsAssignment, PlannerDefinition, UsageRecords } from '../types.js';

/** Per object: the records assigned to it, as sorted (first, last) arrays (they never overlap). */
class Schedule {
  readonly firsts: number[] = [];
  readonly lasts: number[] = [];

  /** Whether [first, last] meets an interval already here (as std::set::lower_bound and its predecessor). */
  conflicts(first: number, last: number): boolean {
    let lo = 0;
    let hi = this.firsts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.firsts[mid] as number) < first) lo = mid + 1;
      else hi = mid;
    }
    if (lo < this.firsts.length && (this.firsts[lo] as number) <= last) return true;
    return lo > 0 && (this.lasts[lo - 1] as number) >= first;
  }

  insert(first: number, last: number): void {
    let lo = 0;
    let hi = this.firsts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.firsts[mid] as number) < first) lo = mid + 1;
      else hi = mid;
    }
    this.firsts.splice(lo, 0, first);
    this.lasts.splice(lo, 0, last);
  }
}

/** Fenwick tree with range add and point query (unassigned records live at each time). */
class RangeAddPoint {
  private readonly t: Float64Array;
  constructor(private readonly n: number) {
    this.t = new Float64Array(n + 1);
  }
  private add(i: number, v: number): void {
    for (i++; i <= this.n; i += i & -i) this.t[i] = (this.t[i] as number) + v;
  }
  rangeAdd(a: number, b: number, v: number): void {
    this.add(a, v);
    if (b + 1 < this.n) this.add(b + 1, -v);
  }
  get(i: number): number {
    let s = 0;
    for (i++; i > 0; i -= i & -i) s += this.t[i] as number;
    return s;
  }
}

/**
 * TFLite's GreedyByBreadthAssignment (memory_management/greedy_by_breadth_assignment.cc): visit
 * times by decreasing breadth (sum of live sizes; ties by time, as a stable sort of TFLite's
 * reversed-range sort gives), and within a time its unassigned records by decreasing size (ties by
 * record order); put each into the best object with no time conflict, scanning objects in id order:
 * the smallest object at least as large as the record, else the largest; else a new object. Objects
 * grow to the record's size.
 *
 * TFLite visits every task from 0 to the largest last; times that are not some record's first hold a
 * subset of the records live at the previous first and come after it, so they assign nothing and are
 * skipped here, as are times whose records are all assigned. O(n·m) for m objects.
 */
export function greedyByBreadthObjects(r: UsageRecords): ObjectsAssignment {
  const n = r.count;
  const objectIds = new Int32Array(n).fill(-1);
  const objectSizes: number[] = [];
  if (n === 0) return { kind: 'objects', objectIds, objectSizes };
  const axis = timeAxis(r);
  const T = axis.times.length;
  const breadthDiff = new Float64Array(T + 1);
  const index = intervalIndex(r);
  const unassigned = new RangeAddPoint(T);
  for (let i = 0; i < n; i++) {
    const a = axis.fi[i] as number;
    const b = axis.li[i] as number;
    breadthDiff[a] = (breadthDiff[a] as number) + (r.size[i] as number);
    breadthDiff[b + 1] = (breadthDiff[b + 1] as number) - (r.size[i] as number);
    unassigned.rangeAdd(a, b, 1);
  }
  const breadth = new Float64Array(T);
  let acc = 0;
  for (let t = 0; t < T; t++) {
    acc += breadthDiff[t] as number;
    breadth[t] = acc;
  }
  const taskOrder = orderBy(T, (t) => -(breadth[t] as number));
  const schedules: Schedule[] = [];
  const live = new Int32Array(n);
  for (let k = 0; k < T; k++) {
    const t = taskOrder[k] as number;
    if (unassigned.get(t) <= 0) continue;
    const count = index.liveAt(t, live, 0);
    const profile = Array.from(live.subarray(0, count)).filter((i) => objectIds[i] === -1);
    profile.sort((x, y) => (r.size[y] as number) - (r.size[x] as number) || x - y);
    for (const rec of profile) {
      const size = r.size[rec] as number;
      const first = r.first[rec] as number;
      const last = r.last[rec] as number;
      const m = schedules.length;
      let best = m;
      for (let obj = 0; obj < m; obj++) {
        if (best !== m) {
          const bestSize = objectSizes[best] as number;
          const curSize = objectSizes[obj] as number;
          if (bestSize < size) {
            if (curSize <= bestSize) continue;
          } else if (curSize < size || curSize >= bestSize) {
            continue;
          }
        }
        if (!(schedules[obj] as Schedule).conflicts(first, last)) best = obj;
      }
      if (best === m) {
        schedules.push(new Schedule());
        objectSizes.push(size);
      } else {
        objectSizes[best] = Math.max(objectSizes[best] as number, size);
      }
      (schedules[best] as Schedule).insert(first, last);
      objectIds[rec] = best;
      unassigned.rangeAdd(axis.fi[rec] as number, axis.li[rec] as number, -1);
    }
  }
  return { kind: 'objects', objectIds, objectSizes };
}

export const greedyByBreadth: PlannerDefinition = {
  name: 'greedy-by-breadth',
  kind: 'objects',
  description: 'busiest times first, largest records first; best-fitting object with no time conflict',
  source: 'tflite GreedyByBreadthAssignment (memory_management/greedy_by_breadth_assignment.cc)',
  maxRecords: 50_000,
  inBest: true,
  plan: (r) => greedyByBreadthObjects(r),
};
