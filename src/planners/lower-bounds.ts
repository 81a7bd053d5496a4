import { MaxAddTree, orderBy, timeAxis } from './time-index.js';
import type { UsageRecords } from './types.js';

/**
 * The offsets lower bound: the largest sum of sizes of records live at one time. No placement in one
 * arena can need less. One sweep over the compressed time axis: O(n + T).
 */
export function offsetsLowerBound(r: UsageRecords): number {
  if (r.count === 0) return 0;
  const axis = timeAxis(r);
  const T = axis.times.length;
  const delta = new Float64Array(T + 1);
  for (let i = 0; i < r.count; i++) {
    const s = r.size[i] as number;
    delta[axis.fi[i] as number] = (delta[axis.fi[i] as number] as number) + s;
    delta[(axis.li[i] as number) + 1] = (delta[(axis.li[i] as number) + 1] as number) - s;
  }
  let live = 0;
  let peak = 0;
  for (let t = 0; t < T; t++) {
    live += delta[t] as number;
    if (live > peak) peak = live;
  }
  return peak;
}

/**
 * TFLite's positional maxima (CalculatePositionalMaximums in memory_management/internal.cc):
 * element k is the largest k-th largest size live at any single time. A shared-objects assignment
 * needs at least k+1 objects whenever k+1 records are live together, and its (k+1)-th largest
 * object is at least element k; their sum is the objects lower bound.
 *
 * TFLite builds a sorted profile for every task (O(sum of lifetimes)). The live set only shrinks
 * after a time at which some record ends, and what is live then holds every set live since the
 * last such time: only those times' profiles matter. A trace frees in bursts (a step's end), so
 * there are few of them, and one sweep along the time axis sorts the sizes live at each. When
 * those sorts would cost more than `sweepFactor` steps a record, the same vector comes in
 * O(n log n) from a max-count tree instead (see {@link positionalMaximaByTree}).
 */
export function positionalMaxima(r: UsageRecords, sweepFactor = 64): number[] {
  if (r.count === 0) return [];
  const axis = timeAxis(r);
  const T = axis.times.length;
  // Records by first time index and by last (CSR); the most records live at one time, and what
  // sorting the live sizes at each time before some end would cost.
  const byFirst = csrByTime(axis.fi, T);
  const byLast = csrByTime(axis.li, T);
  const firstStart = byFirst.start;
  const lastStart = byLast.start;
  let live = 0;
  let width = 0;
  let sortCost = 0;
  for (let t = 0; t < T; t++) {
    live += (firstStart[t + 1] as number) - (firstStart[t] as number);
    if (live > width) width = live;
    const ends = (lastStart[t + 1] as number) - (lastStart[t] as number);
    if (ends > 0) sortCost += live * (32 - Math.clz32(live));
    live -= ends;
  }
  if (sortCost > sweepFactor * r.count) return positionalMaximaByTree(r);
  // The live sizes in no order (a record's slot is where it came in; the last one fills an ended
  // record's slot), sorted into a copy at each time before some record ends.
  const size = r.size;
  const firstRecs = byFirst.recs;
  const lastRecs = byLast.recs;
  const slotOf = new Int32Array(r.count);
  const slotRec = new Int32Array(width);
  const liveSize = new Float64Array(width);
  const pm = new Float64Array(width);
  let m = 0;
  let grew = false;
  for (let t = 0; t < T; t++) {
    for (let x = firstStart[t] as number, end = firstStart[t + 1] as number; x < end; x++) {
      const rec = firstRecs[x] as number;
      slotOf[rec] = m;
      slotRec[m] = rec;
      liveSize[m++] = size[rec] as number;
      grew = true;
    }
    const end = lastStart[t + 1] as number;
    let x = lastStart[t] as number;
    if (x === end) continue;
    if (grew) {
      const profile = liveSize.slice(0, m).sort();
      for (let j = 0; j < m; j++) {
        const s = profile[m - 1 - j] as number;
        if (s > (pm[j] as number)) pm[j] = s;
      }
      grew = false;
    }
    for (; x < end; x++) {
      const slot = slotOf[lastRecs[x] as number] as number;
      const moved = slotRec[--m] as number;
      slotRec[slot] = moved;
      liveSize[slot] = liveSize[m] as number;
      slotOf[moved] = slot;
    }
  }
  return Array.from(pm);
}

/** Record indices grouped by a time index: those at t are recs[start[t], start[t + 1]). */
function csrByTime(ti: Int32Array, T: number): { start: Int32Array; recs: Int32Array } {
  const n = ti.length;
  const start = new Int32Array(T + 1);
  for (let i = 0; i < n; i++) start[(ti[i] as number) + 1] = (start[(ti[i] as number) + 1] as number) + 1;
  for (let t = 0; t < T; t++) start[t + 1] = (start[t + 1] as number) + (start[t] as number);
  const fill = start.slice(0, T);
  const recs = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const t = ti[i] as number;
    recs[fill[t] as number] = i;
    fill[t] = (fill[t] as number) + 1;
  }
  return { start, recs };
}

/**
 * {@link positionalMaxima} in O(n log n) whatever the width: with c(s) the largest number of records
 * of size >= s live at one time, element k is the largest s with c(s) > k. Records are added in
 * decreasing size to a max-count tree.
 */
export function positionalMaximaByTree(r: UsageRecords): number[] {
  if (r.count === 0) return [];
  const axis = timeAxis(r);
  const tree = new MaxAddTree(axis.times.length);
  const order = orderBy(r.count, (i) => -(r.size[i] as number));
  const pm: number[] = [];
  let i = 0;
  while (i < r.count) {
    const s = r.size[order[i] as number] as number;
    // Add every record of this size before reading the count: c(s) counts sizes >= s.
    while (i < r.count && r.size[order[i] as number] === s) {
      const rec = order[i] as number;
      tree.rangeAdd(axis.fi[rec] as number, axis.li[rec] as number, 1);
      i++;
    }
    while (pm.length < tree.max) pm.push(s);
  }
  return pm;
}

/** The objects lower bound: the sum of the positional maxima. */
export function objectsLowerBound(r: UsageRecords): number {
  let sum = 0;
  for (const x of positionalMaxima(r)) sum += x;
  return sum;
}

/** Both lower bounds, as `memsim.plan/1` reports them. */
export interface LowerBounds {
  offsetsBytes: number;
  objectsBytes: number;
}

/**
 * Both lower bounds of a set of records. Each is computed when first read (a plan written as CSV
 * reads neither; the objects bound costs a sort and a tree of the times, the offsets bound a sweep
 * of the time axis); a report that is printed or serialized reads them as plain properties.
 */
export function lowerBounds(r: UsageRecords): LowerBounds {
  let offsets: number | undefined;
  let objects: number | undefined;
  return {
    get offsetsBytes(): number {
      offsets ??= offsetsLowerBound(r);
      return offsets;
    },
    get objectsBytes(): number {
      objects ??= objectsLowerBound(r);
      return objects;
    },
  };
}
