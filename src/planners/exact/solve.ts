import type { UsageRecords } from '../types.js';
import { HEURISTICS, PartitionSearch, type SearchBudget } from './search.js';
import type { Partition } from './sweep.js';

/** The outcome for one partition. */
export interface PartitionOutcome {
  /** `optimal`: `height` is proven minimal; `target`: reached the target; `timeout`: best so far. */
  end: 'optimal' | 'target' | 'timeout';
  height: number;
  nodes: number;
}

/**
 * Minimises the height of one partition, starting from the incumbent packing in `offsets` (improved
 * in place). As minimalloc's capacity minimisation, a sequence of feasibility searches: alternately
 * at the lowest capacity not yet ruled out (the lower bound first: many packings reach it, and a
 * tight capacity prunes hardest) and halfway to the best packing found. Each search runs with a
 * node limit that doubles round-robin over three preorderings, as minimalloc's RoundRobin. The clock
 * only cuts the sequence short, so a search that finishes returns the same packing on every run.
 */
export function solvePartition(
  r: UsageRecords,
  p: Partition,
  offsets: Float64Array,
  alignmentBytes: number,
  target: number,
  budget: SearchBudget,
): PartitionOutcome {
  const search = new PartitionSearch(r, p, offsets, alignmentBytes, budget);
  const done = (end: PartitionOutcome['end']): PartitionOutcome => {
    p.records.forEach((rec, b) => (offsets[rec] = search.bestOffsets[b] as number));
    return { end, height: search.bestHeight, nodes: search.nodes };
  };
  if (search.bestHeight <= target) return done('target');
  let lo = Math.max(target, p.lowerBound); // nothing below lo is needed, or possible
  let probeLowest = true;
  for (let limit = 2 * p.records.length; ; limit *= 2) {
    for (let h = 0; h < HEURISTICS.length; h++) {
      const capacity = probeLowest ? lo : Math.floor((lo + search.bestHeight - 1) / 2);
      probeLowest = !probeLowest;
      const end = search.run(h, capacity, limit);
      if (end === 'timeout') return done('timeout');
      if (end === 'exhausted') lo = Math.min(capacity, search.bestHeight - 1) + 1;
      if (search.bestHeight <= target) return done('target');
      if (lo >= search.bestHeight) return done('optimal');
    }
  }
}
