import type { PlannerDefinition } from '../types.js';

/** Every record its own object: what a plan costs with no reuse at all (TFLite's NaiveAssignment). */
export const naive: PlannerDefinition = {
  name: 'naive',
  kind: 'objects',
  description: 'every record its own object (no reuse)',
  source: 'tflite NaiveAssignment (memory_management/naive_assignment.h)',
  inBest: true,
  plan(r) {
    const objectIds = new Int32Array(r.count);
    const objectSizes: number[] = new Array<number>(r.count);
    for (let i = 0; i < r.count; i++) {
      objectIds[i] = i;
      objectSizes[i] = r.size[i] as number;
    }
    return { kind: 'objects', objectIds, objectSizes };
  },
};
