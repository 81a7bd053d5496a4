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
  // Sizes and positions in placement order, read in sequence rather than looked up per record.
  const sizes = new Float64Array(r.count);
  for (let k = 0; k < r.count; k++) sizes[k] = r.size[order[k] as number] as number;
  const pos = p.positions(order);
  for (let k = 0; k < r.count; k++) {
    clock.tick();
    const rec = order[k] as number;
    const size = sizes[k] as number;
    let bestDiff = Infinity;
    let bestOffset = -1;
    let prev = 0;
    if (size > 0) {
      const m = p.occupiedAt(pos[k] as number);
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
    p.placeAt(rec, pos[k] as number, size, bestOffset < 0 ? prev : bestOffset);
  }
  return { kind: 'offsets', offsets: p.offsets, totalBytes: p.totalBytes };
}

/** Record indices by decreasing size, ties in record order (a stable sort). */
export function bySizeDescending(r: UsageRecords): Uint32Array {
  const n = r.count;
  let maxSize = 0;
  let integers = true;
  for (let i = 0; i < n; i++) {
    const s = r.size[i] as number;
    if (s > maxSize) maxSize = s;
    integers &&= Number.isInteger(s) && s >= 0;
  }
  if (integers && maxSize <= 0xffffffff) return radixBySizeDescending(r.size, n, maxSize);
  return orderBy(n, (i) => -(r.size[i] as number));
}

const DIGIT_BITS = 11;
const DIGITS = 1 << DIGIT_BITS;

/**
 * A stable least-significant-digit radix sort of the indices by key maxSize - size (sizes are
 * integers below 2^32): one pass per 11 bits of the largest key, each a count and a scatter.
 */
function radixBySizeDescending(size: Float64Array, n: number, maxSize: number): Uint32Array {
  let keys = new Uint32Array(n);
  let order = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = maxSize - (size[i] as number);
    order[i] = i;
  }
  let keysOut = new Uint32Array(n);
  let orderOut = new Uint32Array(n);
  const count = new Int32Array(DIGITS);
  for (let shift = 0; shift < 32 && maxSize >>> shift > 0; shift += DIGIT_BITS) {
    count.fill(0);
    for (let k = 0; k < n; k++) {
      const d = ((keys[k] as number) >>> shift) & (DIGITS - 1);
      count[d] = (count[d] as number) + 1;
    }
    let sum = 0;
    for (let d = 0; d < DIGITS; d++) {
      const c = count[d] as number;
      count[d] = sum;
      sum += c;
    }
    for (let k = 0; k < n; k++) {
      const key = keys[k] as number;
      const d = (key >>> shift) & (DIGITS - 1);
      const at = count[d] as number;
      count[d] = at + 1;
      keysOut[at] = key;
      orderOut[at] = order[k] as number;
    }
    [keys, keysOut] = [keysOut, keys];
    [order, orderOut] = [orderOut, order];
  }
  return order;
}

export const greedyBySizeOffsetsPlanner: PlannerDefinition = {
  name: 'greedy-by-size',
  kind: 'offsets',
  description: 'largest first, each into the smallest gap between the records it conflicts with',
  source: 'tflite GreedyBySizeAssignment (memory_management/greedy_by_size_assignment.cc)',
  // The placement, and each record's size and position in placement order.
  memoryBytes: (r) => (PLACEMENT_BYTES_PER_RECORD + 12) * r.count,
  inBest: true,
  plan: (r, o) => greedyBySizeOffsets(r, o.alignmentBytes, o.limits),
};
