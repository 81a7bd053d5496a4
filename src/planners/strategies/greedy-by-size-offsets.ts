import { Clock, NO_LIMITS, type PlanLimits } from '../limits.js';
import { Placement, PLACEMENT_BYTES_PER_RECORD } from '../placement.js';
import { GREEDY_BY_SIZE } from '../window-kernel.js';
import { identityOrder, radixDescending, radixKeyMax } from '../radix-order.js';
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
  p.sequence(order);
  // Records of positive size, in the placement's own loop, a chunk at a time between looks at the
  // clock: each into the smallest gap that holds it among the runs of the records it conflicts with
  // (gaps narrower than the record never take it, so runs closer than its size are merged as one).
  let k = 0;
  while (k < r.count) {
    const end = Math.min(r.count, k + CHUNK);
    const reached = p.placeSteps(k, end, GREEDY_BY_SIZE);
    clock.advance(reached - k);
    k = reached;
    if (reached < end) break;
  }
  // Zero-sized records, last in the order, walk the records they conflict with as TFLite does.
  for (; k < r.count; k++) {
    clock.tick();
    const rec = order[k] as number;
    const size = r.size[rec] as number;
    let bestDiff = Infinity;
    let bestOffset = -1;
    let prev = 0;
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
    p.placeStep(k, rec, size, bestOffset < 0 ? prev : bestOffset);
  }
  return { kind: 'offsets', offsets: p.offsets, totalBytes: p.totalBytes };
}

/** Records the placement's loop places between looks at the clock (the clock's own period). */
export const CHUNK = 4096;

/** Record indices by decreasing size, ties in record order (a stable sort). */
export function bySizeDescending(r: UsageRecords): Uint32Array {
  const maxSize = radixKeyMax(r.size, r.count);
  if (maxSize >= 0) return radixDescending(r.size, identityOrder(r.count), maxSize);
  return orderBy(r.count, (i) => -(r.size[i] as number));
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
