import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { makeRecords, planTrace, runPlan } from '../../src/planners/index.js';
import { alloc, free, traceFromEvents } from '../helpers.js';

// a (100) and b (50) live together; a is freed before c (100) comes: c can take a's place.
const trace = traceFromEvents([alloc('a', 100), alloc('b', 50), free('a'), alloc('c', 100), free('b'), free('c')]);

describe('planTrace (for compare rows)', () => {
  it('reports a strategy total next to the lower bound of its kind', () => {
    expect(planTrace(trace, 'greedy-by-size:offsets')).toEqual({
      strategy: 'greedy-by-size:offsets',
      status: 'ok',
      kind: 'offsets',
      totalBytes: 150,
      lowerBoundBytes: 150,
      offsetsLowerBoundBytes: 150,
      objectsLowerBoundBytes: 150,
      ratioToLowerBound: 1,
    });
    expect(planTrace(trace, 'naive')).toMatchObject({ kind: 'objects', totalBytes: 250, ratioToLowerBound: 1.666667 });
  });
  it('a strategy with both kinds reports the smaller, offsets on ties; best says whether it is proven', () => {
    expect(planTrace(trace, 'greedy-by-size')).toMatchObject({ kind: 'offsets', totalBytes: 150 });
    expect(planTrace(trace, 'best')).toMatchObject({ kind: 'offsets', totalBytes: 150, proven: true });
  });
  it('alignment applies to offsets', () => {
    expect(planTrace(trace, 'greedy-by-size:offsets', { alignmentBytes: 64 })).toMatchObject({ totalBytes: 178 });
  });
  it('unknown strategies are usage errors', () => {
    expect(() => planTrace(trace, 'fastest')).toThrow(UsageError);
  });
});

describe('edge cases', () => {
  it('no records: every plan is empty, the bounds are 0, ratios 1', () => {
    const report = runPlan(makeRecords([]), { timeLimitMs: 100 });
    expect(report.lowerBounds).toEqual({ offsetsBytes: 0, objectsBytes: 0 });
    for (const r of report.results) expect(r).toMatchObject({ status: 'ok', totalBytes: 0, ratioToLowerBound: 1 });
  });
  it('zero-sized records take no room', () => {
    const report = runPlan(makeRecords([{ size: 0, first: 0, last: 3 }, { size: 8, first: 1, last: 2 }]), { strategy: 'best,greedy-by-size:offsets' });
    expect(report.results.map((r) => (r.status === 'ok' ? r.totalBytes : -1))).toEqual([8, 8]);
  });
  it('planners skipped for too many records say why (and best works without them)', () => {
    const many = makeRecords(Array.from({ length: 1001 }, (_, i) => ({ size: 8, first: i, last: i })));
    const report = runPlan(many, { strategy: 'min-cost-flow,best', timeLimitMs: 100 });
    expect(report.results[0]).toMatchObject({ strategy: 'best', totalBytes: 8 });
    expect(report.results[1]).toEqual({
      strategy: 'min-cost-flow',
      kind: 'objects',
      source: 'tflite MinCostFlowAssignment (memory_management/min_cost_flow_assignment.cc)',
      status: 'skipped',
      reason: '1001 records is over its limit of 1000 (its cost grows as n²)',
    });
  });
});
