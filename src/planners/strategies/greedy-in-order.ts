import { OrderedSet } from '../../util/ordered-set.js';
import { PairHeap } from '../pair-heap.js';
import { executionOrder } from '../time-index.js';
import type { PlannerDefinition } from '../types.js';

/**
 * TFLite's GreedyInOrderAssignment (memory_management/greedy_in_order_assignment.h, without a
 * reallocation graph): records in execution order; released objects go to a pool ordered by (size, id); a
 * record takes the smallest free object at least its size or the largest one below it, whichever
 * wastes strictly less (ties to the larger), and the object grows to fit. A new object is created
 * only when the pool is empty. O(n log n).
 */
export const greedyInOrder: PlannerDefinition = {
  name: 'greedy-in-order',
  kind: 'objects',
  description: 'records by first time, each takes the free object closest in size (objects grow)',
  source: 'tflite GreedyInOrderAssignment (memory_management/greedy_in_order_assignment.h)',
  inBest: true,
  plan(r) {
    const objectIds = new Int32Array(r.count);
    const objectSizes: number[] = [];
    const pool = new OrderedSet(64); // (object size, object id)
    const inUse = new PairHeap();
    const order = executionOrder(r);
    for (let k = 0; k < r.count; k++) {
      const i = order[k] as number;
      const first = r.first[i] as number;
      while (inUse.size > 0 && inUse.topA < first) {
        const obj = inUse.topB;
        pool.insert(objectSizes[obj] as number, obj);
        inUse.pop();
      }
      const size = r.size[i] as number;
      let obj: number;
      if (pool.size === 0) {
        obj = objectSizes.length;
        objectSizes.push(size);
      } else {
        // lower_bound({size, 0}): the smallest object >= size; then its predecessor, the largest < size.
        const above = pool.lowerBound(size, 0);
        let best = above;
        const diff = above >= 0 ? pool.a(above) - size : 0;
        const below = above >= 0 ? pool.predecessor(pool.a(above), pool.b(above)) : pool.last();
        if (below >= 0 && (best < 0 || size - pool.a(below) < diff)) best = below;
        obj = pool.b(best);
        pool.remove(pool.a(best), obj);
        objectSizes[obj] = Math.max(objectSizes[obj] as number, size);
      }
      objectIds[i] = obj;
      inUse.push(r.last[i] as number, obj);
    }
    return { kind: 'objects', objectIds, objectSizes };
  },
};
