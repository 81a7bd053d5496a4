import { positionalMaxima } from '../lower-bounds.js';
import type { ObjectsAssignment, PlannerDefinition, UsageRecords } from '../types.js';

const NONE = Infinity; // TFLite's kNotAssigned

/**
 * TFLite's GreedyBySizeDistPriorityAssignment (memory_management/greedy_by_size_assignment.cc).
 * Each record's position is the rightmost positional maximum at least its size. Repeatedly the
 * unassigned record of highest priority is assigned: leftmost position, then the smallest positive
 * time distance to a record already in some compatible object, then the larger size, then the lower
 * record index (the first one met wins ties). It goes to that closest object (which grows), or to a
 * new object when none is compatible; then every unassigned record's distances to that object are
 * updated. O(n²) time and O(n·m) memory for m objects, as in TFLite.
 */
export function greedyBySizeObjects(r: UsageRecords): ObjectsAssignment {
  const n = r.count;
  const objectIds = new Int32Array(n).fill(-1);
  const objectSizes: number[] = [];
  const pm = positionalMaxima(r);
  const position = new Int32Array(n);
  const bestDist = new Float64Array(n).fill(NONE);
  const bestObject = new Int32Array(n).fill(-1);
  const dist: number[][] = new Array<number[]>(n);
  for (let i = 0; i < n; i++) {
    // The positional maxima do not increase: binary search for the first one below the size.
    let lo = 0;
    let hi = pm.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((pm[mid] as number) >= (r.size[i] as number)) lo = mid + 1;
      else hi = mid;
    }
    position[i] = lo - 1;
    dist[i] = [];
  }
  // TFLite scans every record for the highest priority, then again to update distances; the update
  // pass leaves each record's priority final, so the next choice is made in the same pass.
  const higher = (i: number, best: number): boolean => {
    if (best < 0) return true;
    const p = position[i] as number;
    const bp = position[best] as number;
    if (p !== bp) return p < bp;
    const d = bestDist[i] as number;
    const bd = bestDist[best] as number;
    if (d !== bd) return d < bd;
    return (r.size[i] as number) > (r.size[best] as number); // ties: the lower index, met first
  };
  let best = -1;
  for (let i = 0; i < n; i++) if (higher(i, best)) best = i;
  for (let it = 0; it < n; it++) {
    const bestFirst = r.first[best] as number;
    const bestLast = r.last[best] as number;
    let obj: number;
    const isNew = bestDist[best] === NONE;
    if (isNew) {
      obj = objectSizes.length;
      objectSizes.push(r.size[best] as number);
    } else {
      obj = bestObject[best] as number;
      objectSizes[obj] = Math.max(objectSizes[obj] as number, r.size[best] as number);
    }
    objectIds[best] = obj;
    let next = -1;
    for (let i = 0; i < n; i++) {
      if (objectIds[i] !== -1) continue;
      const di = dist[i] as number[];
      if (isNew || di[obj] !== NONE) {
        let d = NONE;
        const first = r.first[i] as number;
        const last = r.last[i] as number;
        if (last < bestFirst) d = bestFirst - last;
        else if (bestLast < first) d = first - bestLast;
        if (isNew) {
          di.push(d);
        } else if (d === NONE) {
          di[obj] = NONE;
          if (bestObject[i] === obj) {
            // RecalcBestDist: the first object at the smallest distance; best_object stays when none.
            bestDist[i] = NONE;
            for (let o = 0; o < di.length; o++) {
              if ((di[o] as number) < (bestDist[i] as number)) {
                bestDist[i] = di[o] as number;
                bestObject[i] = o;
              }
            }
          }
        } else {
          di[obj] = Math.min(di[obj] as number, d);
        }
        if (d < (bestDist[i] as number)) {
          bestDist[i] = d;
          bestObject[i] = obj;
        }
      }
      if (higher(i, next)) next = i;
    }
    best = next;
  }
  return { kind: 'objects', objectIds, objectSizes };
}

export const greedyBySizeObjectsPlanner: PlannerDefinition = {
  name: 'greedy-by-size',
  kind: 'objects',
  description: 'size-and-distance priority: positional maxima, then the closest compatible object in time',
  source: 'tflite GreedyBySizeDistPriorityAssignment (memory_management/greedy_by_size_assignment.cc)',
  maxRecords: 10_000,
  inBest: true,
  plan: (r) => greedyBySizeObjects(r),
};
