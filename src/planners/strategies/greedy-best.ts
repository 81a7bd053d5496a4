import type { PlannerDefinition } from '../types.js';
import { greedyByBreadthObjects } from './greedy-by-breadth.js';
import { greedyBySizeObjects } from './greedy-by-size-objects.js';

const sum = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);

/**
 * TFLite's BestGreedy (memory_management.cc, MemoryStrategy::GREEDY_BEST): the size-and-distance
 * greedy, unless greedy-by-breadth needs strictly fewer bytes.
 */
export const greedyBest: PlannerDefinition = {
  name: 'greedy-best',
  kind: 'objects',
  description: 'greedy-by-size (objects), or greedy-by-breadth when strictly smaller',
  source: 'tflite BestGreedy (memory_management.cc)',
  maxRecords: 10_000,
  // Both of its candidates are in `best` already.
  inBest: false,
  plan(r) {
    const bySize = greedyBySizeObjects(r);
    const byBreadth = greedyByBreadthObjects(r);
    return sum(byBreadth.objectSizes) < sum(bySize.objectSizes) ? byBreadth : bySize;
  },
};
