import type { UsageRecords } from '../types.js';
import { HEURISTICS, PartitionSearch, type SearchBudget } from './search.js';
import type { Partition } from './sweep.js';

/**
 * How the search of one partition ended. `optimal`: `height` is proven minimal; `target`: reached
 * the target (in a feasibility search: found a packing at or under it); `infeasible`: proven that
 * nothing fits under the target; `nodes`: the work budget ran out (the best so far); `timeout`: the
 * clock ran out first (the best so far, and a rerun may differ).
 */
export interface PartitionOutcome {
  end: 'optimal' | 'target' | 'infeasible' | 'nodes' | 'timeout';
  height: number;
  nodes: number;
  /** Nodes visited when the returned packing was found (0 when it is the starting one). */
  foundAtNodes: number;
  /** Nodes visited past the budget because the search was still improving (SolveGoal.improving). */
  extraNodes: number;
}

/** What a partition's search is after, and how much work it may do. */
export interface SolveGoal {
  /** No need to go below this (minimize), or the capacity to fit under (feasible). */
  target: number;
  /** `minimize`: the lowest height; `feasible`: any packing no higher than the target. */
  mode: 'minimize' | 'feasible';
  /** Search nodes this partition may visit. */
  nodeBudget: number;
  /**
   * Minimizing: when the search is still improving as its budget runs out, the descent alone goes
   * on, until `window` nodes pass without a better packing (counted from the last one found), and
   * `extra` nodes past the budget at most. Absent: the budget is a hard limit.
   */
  improving?: { window: number; extra: number };
}

/**
 * Searches one partition, starting from the incumbent packing in `offsets` (improved in place).
 *
 * `feasible`: as minimalloc at a given capacity, runs at the target capacity with a node limit that
 * doubles round-robin over the three preorderings (minimalloc's RoundRobin), until one finds a
 * packing or one proves there is none.
 *
 * `minimize`: a sequence of such runs at changing capacities, alternately at the lowest capacity
 * not ruled out (`lo`: the lower bound first; many packings reach it, and a tight capacity prunes
 * hardest, so this is where quick proofs of optimality come from) and halfway between a soft lower
 * end and the best packing so far. A run that ends on its node limit raises the soft end past its
 * capacity, so the next midpoint probes higher, where a packing is easier to find; the soft end
 * falls back to `lo` when the limit doubles, so lower capacities get the larger budget. A run
 * that is exhausted raises `lo` for good.
 *
 * With `goal.improving`, a search that found a better packing within the last `window` nodes of its
 * budget goes on past it, descent only (the probes at `lo` had their share), as long as packings keep
 * coming: it stops `window` nodes after the last one, or `extra` nodes past the budget.
 *
 * Every decision depends on node counts only: with the same budget, the same packing on every run.
 * The clock only cuts the sequence short.
 */
export function solvePartition(
  r: UsageRecords,
  p: Partition,
  offsets: Float64Array,
  alignmentBytes: number,
  goal: SolveGoal,
  budget: SearchBudget,
): PartitionOutcome {
  const search = new PartitionSearch(r, p, offsets, alignmentBytes, budget);
  let foundAtNodes = 0;
  const done = (end: PartitionOutcome['end']): PartitionOutcome => {
    p.records.forEach((rec, b) => (offsets[rec] = search.bestOffsets[b] as number));
    return { end, height: search.bestHeight, nodes: search.nodes, foundAtNodes, extraNodes: Math.max(0, search.nodes - goal.nodeBudget) };
  };
  const { target } = goal;
  if (search.bestHeight <= target) return done('target');
  if (p.lowerBound > target && goal.mode === 'feasible') return done('infeasible');
  // Every height is a sum of sizes and aligned offsets: a multiple of their greatest common divisor,
  // so capacities in between need no probe.
  let step = alignmentBytes > 1 ? alignmentBytes : 0;
  for (const rec of p.records) step = gcd(step, r.size[rec] as number);
  step = Math.max(1, step);
  const down = (c: number): number => Math.floor(c / step) * step;
  let lo = Math.max(target, p.lowerBound); // nothing below lo is needed, or possible
  const first = 2 * p.records.length;
  // Two probe sequences share the work, each taking the next probe when it has used fewer nodes:
  // at `lo`, round robin over the preorderings with a limit that doubles every round; and the
  // descent, a binary search between a soft lower end and the best packing at its own limit.
  let loLimit = first;
  let loH = 0;
  let loNodes = 0;
  let midLimit = first;
  let midH = 0;
  let midNodes = 0;
  let soft = lo;
  const more = goal.mode === 'minimize' ? goal.improving : undefined;
  for (;;) {
    // Past the budget: up to `window` nodes after the last packing found, `extra` at most.
    const until = more && foundAtNodes > 0 ? Math.min(goal.nodeBudget + more.extra, Math.max(goal.nodeBudget, foundAtNodes + more.window)) : goal.nodeBudget;
    const left = until - search.nodes;
    if (left <= 0) return done('nodes');
    const descentOnly = search.nodes >= goal.nodeBudget;
    const atLowest = goal.mode === 'feasible' || (!descentOnly && loNodes <= midNodes) || down(search.bestHeight - 1) <= lo;
    const capacity = atLowest ? lo : Math.max(lo, down((Math.max(soft, lo) + search.bestHeight - 1) / 2));
    const h = atLowest ? loH : midH;
    const n0 = search.nodes;
    const end = search.run(h, capacity, Math.min(atLowest ? loLimit : midLimit, left));
    if (atLowest) {
      loNodes += search.nodes - n0;
      if (++loH === HEURISTICS.length) {
        loH = 0;
        loLimit *= 2;
      }
    } else {
      midNodes += search.nodes - n0;
      midH = (midH + 1) % HEURISTICS.length;
    }
    if (end === 'timeout') return done('timeout');
    if (end === 'found') foundAtNodes = search.nodes;
    if (end === 'exhausted') {
      lo = Math.ceil((Math.min(capacity, search.bestHeight - 1) + 1) / step) * step;
      if (goal.mode === 'feasible') return done(search.bestHeight <= target ? 'target' : 'infeasible');
    }
    if (end === 'nodes' && !atLowest) soft = capacity + step;
    if (search.bestHeight <= target) return done('target');
    if (lo >= search.bestHeight) return done('optimal');
    if (down(search.bestHeight - 1) < Math.max(soft, lo)) {
      // Every capacity below the best failed at this limit: again from the bottom, with twice as many.
      soft = lo;
      midLimit *= 2;
    }
  }
}

function gcd(a: number, b: number): number {
  while (b > 0) [a, b] = [b, a % b];
  return a;
}
