import { type PartitionOutcome, type SolveGoal, solvePartition } from '../exact/solve.js';
import { type Partition, partitionRecords } from '../exact/sweep.js';
import { NO_LIMITS, type PlanLimits } from '../limits.js';
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
   * Minimizing: `lower-bound`: a packing reaches the offsets lower bound (optimal); `optimal`: the
   * search was exhausted, nothing smaller exists; `budget`: the node budget was spent first, the best
   * packing found is returned, not proven (the same on every run); `timeout`: the clock (the time
   * limit) stopped the search before its node budget, the best packing found so far is returned and
   * a rerun may give another; `too-large`: the problem is over the search's size limits, the best
   * heuristic is returned; `disabled`: a zero node budget or time limit.
   *
   * At a capacity (feasibility): `found`: a packing fits; `infeasible`: proven that none fits;
   * `budget` / `timeout` / `too-large` / `disabled`: not known.
   */
  status: 'lower-bound' | 'optimal' | 'found' | 'infeasible' | 'budget' | 'timeout' | 'too-large' | 'disabled';
  /** Search nodes visited (depends on the clock only when the status is `timeout`). */
  nodes: number;
  /** The node budget the search had. */
  nodeBudget: number;
  /**
   * Nodes visited past the budget because the search was still finding better packings as it ran
   * out (the default budget only: IMPROVING_WINDOW); 0 when none.
   */
  extraNodes: number;
  /** Nodes visited when the returned packing was found (0: a heuristic's packing, unimproved). */
  foundAtNodes: number;
  /** Time-disjoint groups of records, solved one by one. */
  partitions: number;
  /** The capacity a feasibility search was asked about; absent when minimizing. */
  capacityBytes?: number;
}

/** What `best` returns. */
export interface BestOutcome {
  assignment: OffsetsAssignment;
  /** Which method produced it: a candidate's label, or `exact search`. */
  from: string;
  proven: boolean;
  search: SearchReport;
}

/** Limits of the exact search. */
export interface BestLimits {
  alignmentBytes: number;
  /**
   * Search nodes in all (the work budget that decides where the search stops). Default:
   * defaultNodeBudget, which a search still improving as it runs out may overrun (IMPROVING_WINDOW);
   * a budget given here is a hard limit.
   */
  nodeBudget?: number;
  /** Feasibility at this capacity instead of minimization. */
  capacityBytes?: number;
  /** The run's deadline (the clock only caps the search). */
  limits?: PlanLimits;
}

/** Above these the exact search is not attempted. */
export const SEARCH_LIMITS = { maxRecords: 10_000, maxPartitionRecords: 2_000, maxOverlapPairs: 2_000_000 };

/**
 * The default work budget of the exact search, in units of what a search node reads (see nodeCost).
 * A node scans the unplaced buffers of its piece, the buffers that overlap the one it places and
 * that buffer's sections, so a node of a large, crowded partition costs several times one of a
 * small one; a budget in these units takes about as long on any input (a second or two of search
 * on a shared 2-core machine). On minimalloc's challenging benchmarks it gives from 555,108 nodes
 * (E) and 409,770 (A: 154 buffers) down to 162,823 (J: 409 buffers, 141 overlaps each); every
 * search there that reaches the lower bound does so within 65% of its budget (E), and the two
 * that cannot pass minimalloc's answer within 83% (D: 211,769 nodes) and 26% (J) of theirs.
 */
export const DEFAULT_WORK_BUDGET = 100_000_000;

/**
 * With the default budget, a minimizing search that found a better packing within the last third of
 * its budget goes on past it, only in the descent (the probes at the lowest capacity not ruled out
 * had their share), while better packings keep coming: it stops a third of its budget after the last
 * one, and at twice its budget in all. Deterministic as the budget is (node counts decide).
 * minimalloc's D (213 buffers, budget 255,785) finds 1,040,384 at 211,769 nodes, 1,038,336 at
 * 282,691 and 1,025,024 at 331,261, and stops at 416,522; every other challenging benchmark ends
 * within its budget (J's last improvement comes at 55,865 of 162,823).
 */
export const IMPROVING_WINDOW = 1 / 3;

/**
 * What one search node of a partition costs, in units of DEFAULT_WORK_BUDGET: its buffers, plus
 * the overlaps and twice the sections of its average buffer.
 */
export function nodeCost(p: Partition): number {
  const m = p.records.length;
  if (m === 0) return 1;
  let spans = 0;
  for (let b = 0; b < m; b++) spans += (p.sectionHi[b] as number) - (p.sectionLo[b] as number);
  return m + p.overlaps.length / m + (2 * spans) / m;
}

/**
 * The default node budget: DEFAULT_WORK_BUDGET over the cost of a node of the costliest partition
 * (over the number of records when the input is too large to search).
 */
export function defaultNodeBudget(parts: readonly Partition[] | null, records: number): number {
  let cost = parts ? 1 : Math.max(1, records);
  for (const p of parts ?? []) cost = Math.max(cost, nodeCost(p));
  return Math.floor(DEFAULT_WORK_BUDGET / cost);
}

/**
 * The best packing memsim can find: the smallest of the heuristics' packings and, for problems small
 * enough, an exact branch-and-bound search started from it (per time-disjoint partition, from
 * whichever candidate packs that partition lowest). Minimizing, the search stops early when a
 * packing reaches the offsets lower bound; when it finishes, the packing is optimal. With a capacity,
 * it stops at the first packing that fits or at a proof that none does. A node budget decides where
 * an unfinished search stops, so the result is the same on every run; the time limit only caps it
 * (status `timeout`).
 */
export function bestPacking(r: UsageRecords, candidates: readonly Candidate[], lowerBound: number, limits: BestLimits): BestOutcome {
  const { alignmentBytes, capacityBytes } = limits;
  const parts = r.count <= SEARCH_LIMITS.maxRecords ? partitionRecords(r, SEARCH_LIMITS.maxOverlapPairs) : null;
  const nodeBudget = limits.nodeBudget ?? defaultNodeBudget(parts, r.count);
  const { deadlineMs, now } = limits.limits ?? NO_LIMITS;
  const feasible = capacityBytes !== undefined;
  let top = candidates[0];
  for (const c of candidates) if (top && c.totalBytes < top.totalBytes) top = c;
  const base: Candidate = top ?? { label: 'empty', offsets: new Float64Array(r.count), totalBytes: 0 };
  const report = (status: SearchReport['status'], extra: Partial<SearchReport> = {}): SearchReport => ({
    status, nodes: 0, nodeBudget, extraNodes: 0, foundAtNodes: 0, partitions: 0, ...(feasible ? { capacityBytes } : {}), ...extra,
  });
  const asIs = (status: SearchReport['status'], proven: boolean, partitions = 0): BestOutcome => ({
    assignment: { kind: 'offsets', offsets: base.offsets, totalBytes: base.totalBytes },
    from: base.label,
    proven,
    search: report(status, { partitions }),
  });
  if (feasible && base.totalBytes <= capacityBytes) return asIs('found', base.totalBytes <= lowerBound);
  if (feasible && lowerBound > capacityBytes) return asIs('infeasible', base.totalBytes <= lowerBound);
  if (base.totalBytes <= lowerBound) return asIs(feasible ? 'found' : 'lower-bound', true);
  if (nodeBudget <= 0) return asIs('disabled', false);
  if (!parts || parts.some((p) => p.records.length > SEARCH_LIMITS.maxPartitionRecords)) return asIs('too-large', false, parts?.length ?? 0);

  // Start each partition from the candidate that packs it lowest (partitions never meet in time, so
  // the pieces combine into one valid packing). Zero-sized records sit at offset 0.
  const offsets = new Float64Array(r.count);
  const heights: number[] = new Array<number>(parts.length).fill(0);
  parts.forEach((p, i) => {
    let from: Candidate = base;
    let bestHeight = Infinity;
    for (const c of candidates) {
      let h = 0;
      for (const rec of p.records) h = Math.max(h, (c.offsets[rec] as number) + (r.size[rec] as number));
      if (h < bestHeight) {
        bestHeight = h;
        from = c;
      }
    }
    for (const rec of p.records) offsets[rec] = from.offsets[rec] as number;
    heights[i] = bestHeight;
  });

  // The total is the highest partition: solve the hardest first; once one is proven at height h,
  // the others need not go below h. Each partition that still needs work gets an equal share of
  // the budget left (what one does not use passes on). With the default budget, nodes a partition
  // visits past its share while still improving come from a second pool as large as the budget, so
  // that they never take from the partitions after it.
  const order = parts.map((_, i) => i).sort((a, b) => (parts[b] as { lowerBound: number }).lowerBound - (parts[a] as { lowerBound: number }).lowerBound || a - b);
  let target = feasible ? capacityBytes : lowerBound;
  const improving = limits.nodeBudget === undefined && !feasible;
  let nodes = 0;
  let extraNodes = 0;
  let foundAtNodes = 0;
  const ends: (PartitionOutcome['end'] | null)[] = new Array<PartitionOutcome['end'] | null>(parts.length).fill(null);
  const pending = order.filter((i) => (heights[i] as number) > target);
  for (let q = 0; q < pending.length; q++) {
    const i = pending[q] as number;
    const p = parts[i] as (typeof parts)[number];
    if ((heights[i] as number) <= target) continue;
    const share = Math.floor((nodeBudget - (nodes - extraNodes)) / (pending.length - q));
    const goal: SolveGoal = { target, mode: feasible ? 'feasible' : 'minimize', nodeBudget: share };
    if (improving) goal.improving = { window: Math.floor(share * IMPROVING_WINDOW), extra: Math.min(share, nodeBudget - extraNodes) };
    const o = solvePartition(r, p, offsets, alignmentBytes, goal, { deadlineMs, now });
    if (o.foundAtNodes > 0) foundAtNodes = nodes + o.foundAtNodes;
    nodes += o.nodes;
    extraNodes += o.extraNodes;
    heights[i] = o.height;
    ends[i] = o.end;
    if (o.end === 'optimal') target = Math.max(target, o.height);
    if (o.end === 'timeout' || o.end === 'infeasible') break;
  }
  const total = Math.max(0, ...heights);
  const a: OffsetsAssignment = { kind: 'offsets', offsets, totalBytes: total };
  const from = total < base.totalBytes ? 'exact search' : base.label;
  const summary = { nodes, extraNodes, foundAtNodes: total < base.totalBytes ? foundAtNodes : 0, partitions: parts.length };
  const timedOut = ends.includes('timeout');
  if (feasible) {
    const status: SearchReport['status'] = ends.includes('infeasible') ? 'infeasible' : total <= capacityBytes ? 'found' : timedOut ? 'timeout' : 'budget';
    return { assignment: a, from, proven: total <= lowerBound, search: report(status, summary) };
  }
  const isOptimal = heights.some((h, i) => h === total && ends[i] === 'optimal');
  const proven = total <= lowerBound || isOptimal;
  const status: SearchReport['status'] = total <= lowerBound ? 'lower-bound' : isOptimal ? 'optimal' : timedOut ? 'timeout' : 'budget';
  return { assignment: a, from, proven, search: report(status, summary) };
}
