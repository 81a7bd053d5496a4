import { solvePartition } from '../exact/solve.js';
import { partitionRecords } from '../exact/sweep.js';
import type { OffsetsAssignment, UsageRecords } from '../types.js';

/** A heuristic's packing, as `best` compares them. */
export interface Candidate {
  /** `greedy-by-size (offsets)`, `greedy-in-order (objects)`, … */
  label: string;
  offsets: Float64Array;
  totalBytes: number;
}

/** How the exact search went. */
export interface SearchReport {
  /**
   * `lower-bound`: a packing reaches the offsets lower bound (optimal, no search needed or the search
   * reached it); `optimal`: the search was exhausted, nothing smaller exists; `timeout`: the time
   * limit ran out, the best packing found so far is returned, not proven; `too-large`: the problem is
   * over the search's size limits, the best heuristic is returned; `disabled`: a zero time limit.
   */
  status: 'lower-bound' | 'optimal' | 'timeout' | 'too-large' | 'disabled';
  /** Search nodes visited (depends on the clock only when the status is `timeout`). */
  nodes: number;
  /** Time-disjoint groups of records, solved one by one. */
  partitions: number;
}

/** What `best` returns. */
export interface BestOutcome {
  assignment: OffsetsAssignment;
  /** Which method produced it: a candidate's label, or `exact search`. */
  from: string;
  proven: boolean;
  search: SearchReport;
}

/** Above these the exact search is not attempted. */
export const SEARCH_LIMITS = { maxRecords: 10_000, maxPartitionRecords: 2_000, maxOverlapPairs: 2_000_000 };

/**
 * The best packing memsim can find: the smallest of the heuristics' packings and, for problems small
 * enough, an exact branch-and-bound search started from it (per time-disjoint partition, from
 * whichever candidate packs that partition lowest). The search stops early when a packing reaches
 * the offsets lower bound; when it finishes, the packing is optimal and the same on every run; when
 * the time limit runs out, the best packing found so far is returned, marked not proven.
 */
export function bestPacking(
  r: UsageRecords,
  candidates: readonly Candidate[],
  lowerBound: number,
  alignmentBytes: number,
  timeLimitMs: number,
  now: () => number = () => performance.now(),
): BestOutcome {
  let top = candidates[0];
  for (const c of candidates) if (top && c.totalBytes < top.totalBytes) top = c;
  const base: Candidate = top ?? { label: 'empty', offsets: new Float64Array(r.count), totalBytes: 0 };
  const outcome = (a: OffsetsAssignment, from: string, proven: boolean, search: SearchReport): BestOutcome => ({ assignment: a, from, proven, search });
  const asIs = (): OffsetsAssignment => ({ kind: 'offsets', offsets: base.offsets, totalBytes: base.totalBytes });
  if (base.totalBytes <= lowerBound) return outcome(asIs(), base.label, true, { status: 'lower-bound', nodes: 0, partitions: 0 });
  if (timeLimitMs <= 0) return outcome(asIs(), base.label, false, { status: 'disabled', nodes: 0, partitions: 0 });
  const parts = r.count <= SEARCH_LIMITS.maxRecords ? partitionRecords(r, SEARCH_LIMITS.maxOverlapPairs) : null;
  if (!parts || parts.some((p) => p.records.length > SEARCH_LIMITS.maxPartitionRecords)) {
    return outcome(asIs(), base.label, false, { status: 'too-large', nodes: 0, partitions: parts?.length ?? 0 });
  }

  // Start each partition from the candidate that packs it lowest (partitions never meet in time, so
  // the pieces combine into one valid packing). Zero-sized records sit at offset 0.
  const offsets = new Float64Array(r.count);
  for (const p of parts) {
    let bestHeight = Infinity;
    let from: Candidate = base;
    for (const c of candidates) {
      let h = 0;
      for (const rec of p.records) h = Math.max(h, (c.offsets[rec] as number) + (r.size[rec] as number));
      if (h < bestHeight) {
        bestHeight = h;
        from = c;
      }
    }
    for (const rec of p.records) offsets[rec] = from.offsets[rec] as number;
  }

  // The total is the highest partition: solve the hardest first, and once one is proven at height
  // h, the others need not go below h.
  const deadlineMs = now() + timeLimitMs;
  const order = parts.map((_, i) => i).sort((a, b) => (parts[b] as { lowerBound: number }).lowerBound - (parts[a] as { lowerBound: number }).lowerBound || a - b);
  let target = lowerBound;
  let nodes = 0;
  let timedOut = false;
  const heights: number[] = new Array<number>(parts.length).fill(0);
  const exhausted: boolean[] = new Array<boolean>(parts.length).fill(false);
  for (const i of order) {
    const p = parts[i] as (typeof parts)[number];
    let h = 0;
    for (const rec of p.records) h = Math.max(h, (offsets[rec] as number) + (r.size[rec] as number));
    heights[i] = h;
    if (timedOut || h <= target) continue;
    const o = solvePartition(r, p, offsets, alignmentBytes, target, { deadlineMs, now });
    nodes += o.nodes;
    heights[i] = o.height;
    if (o.end === 'optimal') {
      exhausted[i] = true;
      target = Math.max(target, o.height);
    }
    if (o.end === 'timeout') timedOut = true;
  }
  const total = Math.max(0, ...heights);
  const isOptimal = heights.some((h, i) => h === total && exhausted[i]);
  const proven = total <= lowerBound || isOptimal;
  const status: SearchReport['status'] = total <= lowerBound ? 'lower-bound' : isOptimal ? 'optimal' : 'timeout';
  const a: OffsetsAssignment = { kind: 'offsets', offsets, totalBytes: total };
  return outcome(a, total < base.totalBytes ? 'exact search' : base.label, proven, { status, nodes, partitions: parts.length });
}
