/**
 * The cases of TFLite's own tests (tensorflow/lite/delegates/gpu/common/memory_management_test.cc),
 * which the spec's acceptance examples quote, with the exact object ids, sizes and offsets TFLite
 * expects.
 */
import { describe, expect, it } from 'vitest';
import {
  checkObjects,
  checkOffsets,
  listPlanners,
  makeRecords,
  objectsLowerBound,
  objectsToOffsets,
  offsetsLowerBound,
  type ObjectsAssignment,
  type PlannerDefinition,
  type UsageRecords,
} from '../../src/planners/index.js';

const planner = (name: string, kind: 'objects' | 'offsets' = 'objects'): PlannerDefinition => {
  const p = listPlanners().find((x) => x.name === name && x.kind === kind);
  if (!p) throw new Error(`no planner ${name} ${kind}`);
  return p;
};

const objects = (name: string, r: UsageRecords): { ids: number[]; sizes: number[] } => {
  const a = planner(name).plan(r, { alignmentBytes: 1 }) as ObjectsAssignment;
  expect(a.kind).toBe('objects');
  expect(checkObjects(r, a)).toBeNull();
  return { ids: Array.from(a.objectIds), sizes: a.objectSizes };
};

const offsets = (r: UsageRecords, alignmentBytes = 1): { offsets: number[]; total: number } => {
  const a = planner('greedy-by-size', 'offsets').plan(r, { alignmentBytes });
  if (a.kind !== 'offsets') throw new Error('expected offsets');
  expect(checkOffsets(r, a.offsets, a.totalBytes, alignmentBytes)).toBeNull();
  return { offsets: Array.from(a.offsets), total: a.totalBytes };
};

const rec = (size: number, first: number, last: number) => ({ size, first, last });

// TEST(Model, ChainRecords)
const chain = makeRecords([rec(16, 0, 1), rec(8, 1, 2), rec(64, 2, 3), rec(32, 3, 4), rec(8, 4, 5)]);
// TEST(Model, ComplexRecords)
const complex = makeRecords([
  rec(32, 0, 1), rec(32, 1, 4), rec(8, 2, 5), rec(16, 3, 5), rec(8, 4, 5),
  rec(64, 5, 7), rec(8, 6, 8), rec(8, 7, 8), rec(16, 8, 9),
]);

describe('TFLite ChainRecords (the spec acceptance table)', () => {
  it('naive: every record its own object', () => {
    expect(objects('naive', chain)).toEqual({ ids: [0, 1, 2, 3, 4], sizes: [16, 8, 64, 32, 8] });
  });
  it('equality reuses only the 8-byte object', () => {
    expect(objects('equality', chain)).toEqual({ ids: [0, 1, 2, 3, 1], sizes: [16, 8, 64, 32] });
  });
  it.each(['min-cost-flow', 'greedy-in-order', 'greedy-by-breadth', 'greedy-by-size', 'greedy-best'])('%s alternates two objects of 64 and 32', (name) => {
    expect(objects(name, chain)).toEqual({ ids: [0, 1, 0, 1, 0], sizes: [64, 32] });
  });
  it('greedy-by-size offsets: 0,64,0,64,0, total 96', () => {
    expect(offsets(chain)).toEqual({ offsets: [0, 64, 0, 64, 0], total: 96 });
  });
  it('greedy-by-size offsets with 128-byte alignment: 0,128,0,128,0, total 160', () => {
    expect(offsets(chain, 128)).toEqual({ offsets: [0, 128, 0, 128, 0], total: 160 });
  });
});

describe('TFLite ComplexRecords', () => {
  it('naive', () => {
    expect(objects('naive', complex)).toEqual({ ids: [0, 1, 2, 3, 4, 5, 6, 7, 8], sizes: [32, 32, 8, 16, 8, 64, 8, 8, 16] });
  });
  it('equality', () => {
    expect(objects('equality', complex)).toEqual({ ids: [0, 1, 2, 3, 4, 5, 4, 2, 3], sizes: [32, 32, 8, 16, 8, 64] });
  });
  it('min-cost-flow', () => {
    expect(objects('min-cost-flow', complex)).toEqual({ ids: [0, 1, 2, 0, 3, 1, 3, 2, 0], sizes: [32, 64, 8, 8] });
  });
  it('greedy-in-order', () => {
    expect(objects('greedy-in-order', complex)).toEqual({ ids: [0, 1, 0, 2, 3, 1, 3, 2, 0], sizes: [32, 64, 16, 8] });
  });
  it('greedy-by-breadth', () => {
    expect(objects('greedy-by-breadth', complex)).toEqual({ ids: [0, 4, 2, 1, 3, 0, 2, 3, 1], sizes: [64, 16, 8, 8, 32] });
  });
  it('greedy-by-size (objects)', () => {
    expect(objects('greedy-by-size', complex)).toEqual({ ids: [1, 0, 2, 1, 3, 0, 1, 2, 0], sizes: [64, 32, 8, 8] });
  });
  it('greedy-best picks greedy-by-size here (breadth needs 128 > 112)', () => {
    expect(objects('greedy-best', complex)).toEqual({ ids: [1, 0, 2, 1, 3, 0, 1, 2, 0], sizes: [64, 32, 8, 8] });
  });
  it('greedy-by-size offsets', () => {
    expect(offsets(complex)).toEqual({ offsets: [0, 32, 80, 64, 88, 0, 64, 72, 0], total: 96 });
  });
});

describe('TFLite OneRecord and EmptyRecords', () => {
  const one = makeRecords([rec(16, 0, 1)]);
  const empty = makeRecords([]);
  it.each(listPlanners().map((p) => [p.name, p.kind, p] as const))('%s (%s)', (_n, _k, p) => {
    const a1 = p.plan(one, { alignmentBytes: 1 });
    const a0 = p.plan(empty, { alignmentBytes: 1 });
    if (a1.kind === 'objects' && a0.kind === 'objects') {
      expect([Array.from(a1.objectIds), a1.objectSizes]).toEqual([[0], [16]]);
      expect([Array.from(a0.objectIds), a0.objectSizes]).toEqual([[], []]);
    } else if (a1.kind === 'offsets' && a0.kind === 'offsets') {
      expect([Array.from(a1.offsets), a1.totalBytes]).toEqual([[0], 16]);
      expect([Array.from(a0.offsets), a0.totalBytes]).toEqual([[], 0]);
    }
  });
});

describe('TFLite ObjectsToOffsets', () => {
  it('lays objects back to back in id order (ManyObjectsAssignment)', () => {
    const a: ObjectsAssignment = { kind: 'objects', objectSizes: [16, 8, 32, 32, 4, 16], objectIds: Int32Array.from([2, 0, 2, 1, 3, 3, 1, 5]) };
    expect(Array.from(objectsToOffsets(a).offsets)).toEqual([24, 0, 24, 16, 56, 56, 16, 92]);
    expect(objectsToOffsets(a).totalBytes).toBe(108);
  });
  it('aligns each object base when asked (TFLite ignores alignment here)', () => {
    const a: ObjectsAssignment = { kind: 'objects', objectSizes: [10, 20, 5], objectIds: Int32Array.from([0, 1, 2, 1]) };
    const l = objectsToOffsets(a, 16);
    expect(Array.from(l.offsets)).toEqual([0, 16, 48, 16]);
    expect(l.totalBytes).toBe(53);
  });
  it('one object shared by several records (OneObjectAssignment)', () => {
    const a: ObjectsAssignment = { kind: 'objects', objectSizes: [16], objectIds: Int32Array.from([0, 0, 0]) };
    expect([Array.from(objectsToOffsets(a).offsets), objectsToOffsets(a).totalBytes]).toEqual([[0, 0, 0], 16]);
  });
});

describe('lower bounds', () => {
  it('spec example: greedy-by-size offsets reach the offsets lower bound of 124', () => {
    const r = makeRecords([rec(32, 0, 1), rec(28, 1, 4), rec(36, 2, 5), rec(16, 3, 5), rec(8, 4, 5), rec(64, 5, 7), rec(10, 6, 8), rec(40, 7, 8)]);
    expect(offsetsLowerBound(r)).toBe(124);
    expect(offsets(r).total).toBe(124);
  });
  it('chain: offsets bound 96 (64+32 at time 3), objects bound 64+32', () => {
    expect(offsetsLowerBound(chain)).toBe(96);
    expect(objectsLowerBound(chain)).toBe(96);
  });
  it('complex: positional maxima 64,32,8,8 sum to greedy-by-size objects total 112', () => {
    // At time 5: 64,16,8,8 live; at time 1: 32,32; positions take the maxima 64,32,8,8.
    expect(objectsLowerBound(complex)).toBe(112);
    expect(offsetsLowerBound(complex)).toBe(96);
  });
});
