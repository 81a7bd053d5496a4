/**
 * Small hand-computed cases, one rule each: which object or gap a strategy picks when several would
 * do. The comments give the derivation.
 */
import { describe, expect, it } from 'vitest';
import { listPlanners, makeRecords, type RecordObject } from '../../src/planners/index.js';

const rec = (size: number, first: number, last: number): RecordObject => ({ size, first, last });

function run(name: string, kind: 'objects' | 'offsets', records: RecordObject[], alignmentBytes = 1) {
  const p = listPlanners().find((x) => x.name === name && x.kind === kind);
  if (!p) throw new Error(`no planner ${name}`);
  const a = p.plan(makeRecords(records), { alignmentBytes });
  return a.kind === 'objects' ? { ids: Array.from(a.objectIds), sizes: a.objectSizes } : { offsets: Array.from(a.offsets), total: a.totalBytes };
}

describe('equality', () => {
  it('reuses the object released last (each size is a stack)', () => {
    // Objects 0 and 1 both end at time 0 and are released in id order onto the 8-byte stack: 1 is on top.
    expect(run('equality', 'objects', [rec(8, 0, 0), rec(8, 0, 0), rec(8, 1, 1)])).toEqual({ ids: [0, 1, 1], sizes: [8, 8] });
  });
  it('never reuses an object of another size', () => {
    expect(run('equality', 'objects', [rec(8, 0, 0), rec(16, 1, 1), rec(8, 2, 2)])).toEqual({ ids: [0, 1, 0], sizes: [8, 16] });
  });
  it('processes records in execution order whatever the file order', () => {
    // Record 0 starts at time 5, after record 1 (time 0-1) is over: record 1 creates object 0, then 0 reuses it.
    expect(run('equality', 'objects', [rec(8, 5, 6), rec(8, 0, 1)])).toEqual({ ids: [0, 0], sizes: [8] });
  });
});

describe('greedy-in-order', () => {
  it('on equal size gaps takes the larger object', () => {
    // Free objects of 6 and 10 for a record of 8: both waste 2; the one >= the record wins.
    expect(run('greedy-in-order', 'objects', [rec(6, 0, 0), rec(10, 0, 0), rec(8, 1, 1)])).toEqual({ ids: [0, 1, 1], sizes: [6, 10] });
  });
  it('takes the smaller object when it wastes strictly less, and grows it', () => {
    // Free 7 and 10 for 8: growing 7 by 1 beats wasting 2.
    expect(run('greedy-in-order', 'objects', [rec(7, 0, 0), rec(10, 0, 0), rec(8, 1, 1)])).toEqual({ ids: [0, 1, 0], sizes: [8, 10] });
  });
  it('among objects of the same size takes the lowest id (the pool is ordered by size, then id)', () => {
    expect(run('greedy-in-order', 'objects', [rec(8, 0, 0), rec(8, 0, 0), rec(8, 1, 1)])).toEqual({ ids: [0, 1, 0], sizes: [8, 8] });
  });
});

describe('greedy-by-breadth', () => {
  it('among fitting objects of the same size takes the first', () => {
    // Time 0 (breadth 16) first: records 0 and 1 need two objects; at time 1 both fit record 2.
    expect(run('greedy-by-breadth', 'objects', [rec(8, 0, 0), rec(8, 0, 0), rec(8, 1, 1)])).toEqual({ ids: [0, 1, 0], sizes: [8, 8] });
  });
  it('when no object is large enough, grows the largest', () => {
    // Times 0 and 1 both have breadth 10; time 0 first: record 1 (6) then record 0 (4) make objects
    // 0 and 1. Record 2 (10) at time 1 fits neither: the larger (6) grows to 10.
    expect(run('greedy-by-breadth', 'objects', [rec(4, 0, 0), rec(6, 0, 0), rec(10, 1, 1)])).toEqual({ ids: [1, 0, 0], sizes: [10, 4] });
  });
  it('prefers the smallest object that fits over a larger one', () => {
    // Time 0 (breadth 24): record 0 (16) -> object 0, record 1 (8) -> object 1. At time 1, record 2 (6)
    // fits both; 8 is the smaller.
    expect(run('greedy-by-breadth', 'objects', [rec(16, 0, 0), rec(8, 0, 0), rec(6, 1, 1)])).toEqual({ ids: [0, 1, 1], sizes: [16, 8] });
  });
});

describe('greedy-by-size (objects)', () => {
  it('assigns the record closest in time first', () => {
    // Positional maxima [8, 8]: every record has position 1. Record 0 goes first (all tie, lowest
    // index) and makes object 0. Record 2 is 2 away from it, record 1 is 3 away: 2 joins object 0;
    // record 1 now conflicts with 2 there and makes object 1. (By index, 1 would have joined first.)
    expect(run('greedy-by-size', 'objects', [rec(8, 0, 0), rec(8, 3, 4), rec(8, 2, 3)])).toEqual({ ids: [0, 1, 0], sizes: [8, 8] });
  });
  it('takes larger records first when positions and distances tie', () => {
    // Positional maxima [10, 4, 4]: record 1 (10) has position 0, records 0 and 2 position 2. Record
    // 1 makes object 0; records 0 and 2 conflict with it (no distance) and tie on size too, so index
    // 0 makes object 1, and record 2 (which conflicts with 0 as well) makes object 2.
    expect(run('greedy-by-size', 'objects', [rec(4, 0, 1), rec(10, 0, 1), rec(4, 1, 1)])).toEqual({ ids: [1, 0, 2], sizes: [10, 4, 4] });
  });
});

describe('greedy-by-size (offsets)', () => {
  // Built so that at time 1 three records leave gaps of 21 bytes at 9 and 5 bytes at 40:
  // P(45) at 0; Q(30) at 0 (time 2 only); H3(15) over P at 45; H2(10) between Q and H3 at 30;
  // H1(9) below H2 at 0. X(5) at time 1 fits both gaps: the smaller one, at 40, not the first one at 9.
  const layout = [rec(45, 0, 0), rec(30, 2, 2), rec(15, 0, 1), rec(10, 1, 2), rec(9, 1, 1), rec(5, 1, 1)];
  it('takes the smallest gap that fits, not the first', () => {
    expect(run('greedy-by-size', 'offsets', layout)).toEqual({ offsets: [0, 0, 45, 30, 0, 40], total: 60 });
  });
  it('XLA best fit picks the same chunks here', () => {
    expect(run('xla-best-fit', 'offsets', layout)).toEqual({ offsets: [0, 0, 45, 30, 0, 40], total: 60 });
  });
  it('places equal sizes in record order (a stable sort)', () => {
    expect(run('greedy-by-size', 'offsets', [rec(8, 0, 1), rec(8, 0, 1)])).toEqual({ offsets: [0, 8], total: 16 });
    expect(run('greedy-by-size', 'offsets', [rec(8, 0, 1), rec(16, 1, 2), rec(8, 0, 1)])).toEqual({ offsets: [16, 0, 24], total: 32 });
  });
  it('aligns the end of each conflicting record, not the record itself', () => {
    // 10 bytes at 0, the next one after align(10, 16) = 16; the total is the unaligned end 26.
    expect(run('greedy-by-size', 'offsets', [rec(10, 0, 1), rec(10, 1, 2)], 16)).toEqual({ offsets: [0, 16], total: 26 });
  });
});

describe('XLA best fit: orders and the space above the others', () => {
  it('spatial order is size first; temporal order is live range first', () => {
    // A (8 bytes, long) and B (16 bytes, short) overlap. Spatial: B at 0, A on top at 16.
    // Temporal: A (longest) at 0, B on top at 8.
    const rs = [rec(8, 0, 9), rec(16, 4, 5)];
    expect(run('xla-best-fit', 'offsets', rs)).toEqual({ offsets: [16, 0], total: 24 });
    expect(run('xla-best-fit-temporal', 'offsets', rs)).toEqual({ offsets: [0, 8], total: 24 });
  });
  it('counts the free space up to the heap size as a candidate chunk (TFLite does not)', () => {
    // A (150, time 0) makes the heap 150. Y (70, time 2) at 0; U (60, times 1-2) over Y at 70.
    // E (15, time 1) meets only U [70, 130): below it a gap of 70 at 0, above it 20 bytes up to the
    // heap size. XLA takes the tighter chunk, at 130; TFLite only knows gaps below conflicting
    // records and takes 0.
    const rs = [rec(150, 0, 0), rec(70, 2, 2), rec(60, 1, 2), rec(15, 1, 1)];
    expect(run('xla-best-fit', 'offsets', rs)).toEqual({ offsets: [0, 0, 70, 130], total: 150 });
    expect(run('greedy-by-size', 'offsets', rs)).toEqual({ offsets: [0, 0, 70, 0], total: 150 });
  });
});
