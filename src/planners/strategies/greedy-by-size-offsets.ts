import { Placement } from '../placement.js';
import { alignUp } from '../records.js';
import { orderBy } from '../time-index.js';
import type { OffsetsAssignment, PlannerDefinition, UsageRecords } from '../types.js';

/**
 * TFLite's GreedyBySizeAssignment (memory_management/greedy_by_size_assignment.cc): records by
 * decreasing size (a stable sort: ties in record order); for each, walk the placed records that
 * conflict with it in increasing offset, tracking the end of the ones seen so far (aligned), and take
 * the smallest gap before one of them that fits (the leftmost on ties); if none fits, go after the
 * highest of them. Offsets are multiples of `alignmentBytes`; the total is the highest end.
 *
 * Same result as TFLite's walk over every placed record, in O(n log n + Σ k log k) for k records
 * conflicting with each one (see Placement) rather than O(n²).
 */
export function greedyBySizeOffsets(r: UsageRecords, alignmentBytes: number): OffsetsAssignment {
  const p = new Placement(r);
  const order = orderBy(r.count, (i) => -(r.size[i] as number));
  for (let k = 0; k < r.count; k++) {
    const rec = order[k] as number;
    const size = r.size[rec] as number;
    let bestDiff = Infinity;
    let bestOffset = -1;
    let prev = 0;
    const conflicting = p.conflicting(rec);
    for (let j = 0; j < conflicting.length; j++) {
      const other = conflicting[j] as number;
      const cur = p.offsets[other] as number;
      if (cur >= prev) {
        const diff = cur - prev;
        if (diff >= size && diff < bestDiff) {
          bestDiff = diff;
          bestOffset = prev;
        }
      }
      prev = Math.max(prev, alignUp(cur + (r.size[other] as number), alignmentBytes));
    }
    p.place(rec, bestOffset < 0 ? prev : bestOffset);
  }
  return { kind: 'offsets', offsets: p.offsets, totalBytes: p.totalBytes };
}

export const greedyBySizeOffsetsPlanner: PlannerDefinition = {
  name: 'greedy-by-size',
  kind: 'offsets',
  description: 'largest first, each into the smallest gap between the records it conflicts with',
  source: 'tflite GreedyBySizeAssignment (memory_management/greedy_by_size_assignment.cc)',
  inBest: true,
  plan: (r, o) => greedyBySizeOffsets(r, o.alignmentBytes),
};
