import { Clock, NO_LIMITS, type PlanLimits } from '../limits.js';
import { Placement, PLACEMENT_BYTES_PER_RECORD } from '../placement.js';
import { orderBy } from '../time-index.js';
import type { OffsetsAssignment, PlannerDefinition, UsageRecords } from '../types.js';

/**
 * TFLite's GreedyBySizeAssignment (memory_management/greedy_by_size_assignment.cc): records by
 * decreasing size (a stable sort: ties in record order); for each, walk the placed records that
 * conflict with it in increasing offset, tracking the end of the ones seen so far (aligned), and take
 * the smallest gap before one of them that fits (the leftmost on ties); if none fits, go after the
 * highest of them. Offsets are multiples of `alignmentBytes`; the total is the highest end.
 *
 * Same result as TFLite's walk over every placed record: for a record of positive size the gaps are
 * those of the union of the conflicting records' ranges (see Placement), found in time linear in the
 * records that meet its window; zero-sized records, last in the order, walk their conflicting
 * records as TFLite does.
 */
export function greedyBySizeOffsets(r: UsageRecords, alignmentBytes: number, limits: PlanLimits = NO_LIMITS): OffsetsAssignment {
  const clock = new Clock(limits, r.count);
  const p = new Placement(r, alignmentBytes);
  const order = bySizeDescending(r);
  for (let k = 0; k < r.count; k++) {
    clock.tick();
    const rec = order[k] as number;
    const size = r.size[rec] as number;
    let bestDiff = Infinity;
    let bestOffset = -1;
    let prev = 0;
    if (size > 0) {
      const m = p.occupied(rec);
      for (let j = 0; j < m; j++) {
        const start = p.runStart[j] as number;
        const diff = start - prev;
        if (diff >= size && diff < bestDiff) {
          bestDiff = diff;
          bestOffset = prev;
        }
        prev = p.runEnd[j] as number;
      }
    } else {
      const conflicting = p.conflicting(rec);
      for (let j = 0; j < conflicting.length; j++) {
        const other = conflicting[j] as number;
        const cur = p.offsets[other] as number;
        if (cur >= prev && cur - prev < bestDiff) {
          bestDiff = cur - prev;
          bestOffset = prev;
        }
        prev = Math.max(prev, p.end(other));
      }
    }
    p.place(rec, bestOffset < 0 ? prev : bestOffset);
  }
  return { kind: 'offsets', offsets: p.offsets, totalBytes: p.totalBytes };
}

/** Record indices by decreasing size, ties in record order (one native sort of packed keys). */
export function bySizeDescending(r: UsageRecords): Uint32Array {
  const n = r.count;
  let maxSize = 0;
  for (let i = 0; i < n; i++) maxSize = Math.max(maxSize, r.size[i] as number);
  if ((maxSize + 1) * n < Number.MAX_SAFE_INTEGER) {
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = (maxSize - (r.size[i] as number)) * n + i;
    keys.sort();
    const order = new Uint32Array(n);
    for (let k = 0; k < n; k++) order[k] = (keys[k] as number) % n;
    return order;
  }
  return orderBy(n, (i) => -(r.size[i] as number));
}

export const greedyBySizeOffsetsPlanner: PlannerDefinition = {
  name: 'greedy-by-size',
  kind: 'offsets',
  description: 'largest first, each into the smallest gap between the records it conflicts with',
  source: 'tflite GreedyBySizeAssignment (memory_management/greedy_by_size_assignment.cc)',
  memoryBytes: (r) => PLACEMENT_BYTES_PER_RECORD * r.count,
  inBest: true,
  plan: (r, o) => greedyBySizeOffsets(r, o.alignmentBytes, o.limits),
};
