import { Clock, NO_LIMITS, type PlanLimits } from '../limits.js';
import { Placement, PLACEMENT_BYTES_PER_RECORD } from '../placement.js';
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
  // Sizes (and the placement's positions and times) in placement order, read in sequence rather
  // than looked up per record.
  const sizes = new Float64Array(r.count);
  for (let k = 0; k < r.count; k++) sizes[k] = r.size[order[k] as number] as number;
  p.sequence(order);
  for (let k = 0; k < r.count; k++) {
    clock.tick();
    const rec = order[k] as number;
    const size = sizes[k] as number;
    if (size > 0) {
      // The smallest gap that holds it, among the runs of the records it conflicts with (gaps
      // narrower than the record never take it, so runs closer than its size are merged as one).
      p.placeStep(k, rec, size, p.bestFitStep(k, size));
      continue;
    }
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
  // The placement, and each record's size in placement order.
  memoryBytes: (r) => (PLACEMENT_BYTES_PER_RECORD + 8) * r.count,
  inBest: true,
  plan: (r, o) => greedyBySizeOffsets(r, o.alignmentBytes, o.limits),
};
