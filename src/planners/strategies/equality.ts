import { PairHeap } from '../pair-heap.js';
import { executionOrder } from '../time-index.js';
import type { PlannerDefinition } from '../types.js';

/**
 * Reuse only objects of exactly the same size, as TFLite's EqualityAssignmentWithHash
 * (memory_management/equality_assignment.h): records in execution order; before record i, objects whose last
 * user ended before i's first return to a pool keyed by size, each size a stack (the last object
 * released is reused first); i takes one of its exact size or creates one.
 */
export const equality: PlannerDefinition = {
  name: 'equality',
  kind: 'objects',
  description: 'records by first time; reuse a free object of exactly the same size only',
  source: 'tflite EqualityAssignmentWithHash (memory_management/equality_assignment.h)',
  inBest: true,
  plan(r) {
    const objectIds = new Int32Array(r.count);
    const objectSizes: number[] = [];
    // Keyed lookups only: no iteration over the map, so its order never matters.
    const pool = new Map<number, number[]>();
    const inUse = new PairHeap(); // (last task, object id)
    const order = executionOrder(r);
    for (let k = 0; k < r.count; k++) {
      const i = order[k] as number;
      const first = r.first[i] as number;
      while (inUse.size > 0 && inUse.topA < first) {
        const obj = inUse.topB;
        const size = objectSizes[obj] as number;
        const stack = pool.get(size);
        if (stack) stack.push(obj);
        else pool.set(size, [obj]);
        inUse.pop();
      }
      const size = r.size[i] as number;
      const stack = pool.get(size);
      let obj: number;
      if (stack && stack.length > 0) {
        obj = stack.pop() as number;
      } else {
        obj = objectSizes.length;
        objectSizes.push(size);
      }
      objectIds[i] = obj;
      inUse.push(r.last[i] as number, obj);
    }
    return { kind: 'objects', objectIds, objectSizes };
  },
};
