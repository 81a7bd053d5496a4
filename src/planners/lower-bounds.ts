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
 * TFLite builds a sorted profile for every task (O(sum of lifetimes)); this computes the same vector
 * in O(n log n): with c(s) the largest number of records of size >= s live at one time, element k
 * is the largest s with c(s) > k. Records are added in decreasing size to a max-count tree.
 */
export function positionalMaxima(r: UsageRecords): number[] {
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
 * Both lower bounds of a set of records. The objects bound costs a sort and a tree of the times,
 * so it is computed when first read (an offsets plan written as CSV never reads it); a report
 * that is printed or serialized reads it as a plain property.
 */
export function lowerBounds(r: UsageRecords): LowerBounds {
  let objects: number | undefined;
  return {
    offsetsBytes: offsetsLowerBound(r),
    get objectsBytes(): number {
      objects ??= objectsLowerBound(r);
      return objects;
    },
  };
}
