import { Placement, PLACEMENT_BYTES_PER_RECORD } from '../placement.js';
import { Clock, NO_LIMITS, type PlanLimits } from '../limits.js';
import { XLA_BEST_FIT } from '../window-kernel.js';
import { CHUNK } from './greedy-by-size-offsets.js';
import { identityOrder, radixDescending, radixKeyMax, type RadixScratch } from '../radix-order.js';
import type { OffsetsAssignment, PlannerDefinition, UsageRecords } from '../types.js';

/**
 * XLA's GlobalDecreasingSizeBestFitHeap (xla/service/heap_simulator, the classic FindChunkCandidate
 * without colocations or a preferred offset). Buffers in the heap's order, spatial: decreasing size,
 * then decreasing live range, then buffer id; temporal: decreasing live range, then decreasing size,
 * then id. Each takes the smallest free chunk that fits among the gaps between the chunks that
 * overlap it in time and the space above them up to the current heap size (the lowest on ties);
 * when none fits, it goes on top of the highest of them and the heap grows. Chunk ends are rounded
 * up to the alignment. Zero-sized buffers sit at offset 0, as in XLA.
 */
export function xlaBestFit(r: UsageRecords, alignmentBytes: number, type: 'spatial' | 'temporal', limits: PlanLimits = NO_LIMITS): OffsetsAssignment {
  const clock = new Clock(limits, r.count);
  const p = new Placement(r, alignmentBytes);
  const n = r.count;
  const order = xlaOrder(r, type);
  p.sequence(order);
  // Each buffer takes the smallest gap that holds it among the gaps between the chunks that overlap
  // it in time (those of their union, see Placement) and the space above them up to the heap's size
  // (gaps narrower than the buffer never take it, so runs closer than its size are one), the lowest
  // on ties, as FindChunkCandidate's walk keeps it; when none does, on top of the highest of them,
  // and the heap grows. In the placement's own loop, a chunk at a time between looks at the clock.
  for (let k = 0; k < n; ) {
    const end = Math.min(n, k + CHUNK);
    p.placeSteps(k, end, XLA_BEST_FIT);
    clock.advance(end - k);
    k = end;
  }
  return { kind: 'offsets', offsets: p.offsets, totalBytes: p.totalBytes };
}

/**
 * The heap's order: spatial, by decreasing size, then decreasing live range, then buffer id;
 * temporal, by decreasing live range, then decreasing size, then id. Integer keys below 2^32 (sizes
 * in bytes, ranges in time steps) are radix sorted, the second key first; others by comparator.
 */
export function xlaOrder(r: UsageRecords, type: 'spatial' | 'temporal'): Uint32Array {
  const n = r.count;
  const maxSize = radixKeyMax(r.size, n);
  const duration32 = durations32(r);
  if (maxSize >= 0 && duration32) {
    const maxDuration = radixKeyMax(duration32, n);
    // The second sort reuses the first one's buffers.
    const scratch: RadixScratch = { spare: null, keys: null };
    if (type === 'spatial') return radixDescending(r.size, radixDescending(duration32, identityOrder(n), maxDuration, scratch), maxSize, scratch);
    return radixDescending(duration32, radixDescending(r.size, identityOrder(n), maxSize, scratch), maxDuration, scratch);
  }
  const duration = new Float64Array(n);
  for (let i = 0; i < n; i++) duration[i] = (r.last[i] as number) - (r.first[i] as number);
  // Both comparators end with the buffer id, so the order is total and any sort gives it.
  const bySize = (a: number, b: number): number => (r.size[b] as number) - (r.size[a] as number);
  const byRange = (a: number, b: number): number => (duration[b] as number) - (duration[a] as number);
  return identityOrder(n).sort(type === 'spatial' ? (a, b) => bySize(a, b) || byRange(a, b) || a - b : (a, b) => byRange(a, b) || bySize(a, b) || a - b);
}

/** Each record's live range (last - first) when they are all integers below 2^32, else null. */
function durations32(r: UsageRecords): Uint32Array | null {
  const n = r.count;
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const d = (r.last[i] as number) - (r.first[i] as number);
    if (!(d >= 0 && d <= 0xffffffff && Number.isInteger(d))) return null;
    out[i] = d;
  }
  return out;
}

export const xlaSpatial: PlannerDefinition = {
  name: 'xla-best-fit',
  kind: 'offsets',
  description: 'XLA global decreasing-size best fit, spatial order (size, then live range)',
  source: 'xla GlobalDecreasingSizeBestFitHeap kSpatial (service/heap_simulator)',
  // The placement.
  memoryBytes: (r) => PLACEMENT_BYTES_PER_RECORD * r.count,
  inBest: true,
  plan: (r, o) => xlaBestFit(r, o.alignmentBytes, 'spatial', o.limits),
};

export const xlaTemporal: PlannerDefinition = {
  name: 'xla-best-fit-temporal',
  kind: 'offsets',
  description: 'XLA global decreasing-size best fit, temporal order (live range, then size)',
  source: 'xla GlobalDecreasingSizeBestFitHeap kTemporal (service/heap_simulator)',
  // The placement.
  memoryBytes: (r) => PLACEMENT_BYTES_PER_RECORD * r.count,
  inBest: true,
  plan: (r, o) => xlaBestFit(r, o.alignmentBytes, 'temporal', o.limits),
};
