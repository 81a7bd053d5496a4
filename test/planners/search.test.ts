/**
 * `best`'s exact search: feasibility at a capacity (found, proven infeasible, budget spent), the node
 * budget that decides where an unfinished search stops (the same packing whatever the clock), and the
 * clock that only caps it (and says so). Every packing is checked with the project's checker.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartitionSearch } from '../../src/planners/exact/search.js';
import { type PartitionOutcome, type SolveGoal, solvePartition } from '../../src/planners/exact/solve.js';
import { type Partition, partitionRecords } from '../../src/planners/exact/sweep.js';
import { checkOffsets, defaultNodeBudget, makeRecords, nodeCost, type PlanResultOk, runPlan, type UsageRecords } from '../../src/planners/index.js';
import { perfectPacking } from './reference.js';
import { referenceSearch } from './reference-search.js';

const bestOf = (r: UsageRecords, options: Parameters<typeof runPlan>[1]): PlanResultOk => {
  const report = runPlan(r, { strategy: 'best', ...options });
  const best = report.results[0] as PlanResultOk;
  expect(best.strategy).toBe('best');
  expect(checkOffsets(r, best.offsets ?? [], best.totalBytes, options?.alignmentBytes ?? 1)).toBeNull();
  return best;
};

/** A perfect packing (optimum = its height) as records in a scrambled order, so no heuristic finds it. */
function hardPerfect(seed: number, pieces: number): { r: UsageRecords; height: number } {
  let x = seed;
  const rand = (): number => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0), x / 2 ** 32);
  const { records, height } = perfectPacking(rand, pieces, 64, 1024);
  return { r: makeRecords(records), height };
}

describe('best --capacity: feasibility', () => {
  // TFLite's chain: the offsets lower bound is 96 and greedy-by-size reaches it.
  const chain = makeRecords([
    { size: 16, first: 0, last: 1 },
    { size: 8, first: 1, last: 2 },
    { size: 64, first: 2, last: 3 },
    { size: 32, first: 3, last: 4 },
    { size: 8, first: 4, last: 5 },
  ]);
  it('found: a heuristic already fits (no search)', () => {
    const best = bestOf(chain, { capacityBytes: 100 });
    expect([best.totalBytes, best.search?.status, best.search?.nodes, best.search?.capacityBytes]).toEqual([96, 'found', 0, 100]);
  });
  it('proven infeasible by the lower bound', () => {
    expect(bestOf(chain, { capacityBytes: 95 }).search?.status).toBe('infeasible');
  });
  it('proven infeasible by an exhausted search (above the lower bound)', () => {
    // Two 4-byte records live together, offsets aligned to 8: the lower bound is 8, and the second
    // record cannot start below 8, so 12 is the least; nothing fits in 11.
    const pair = makeRecords([
      { size: 4, first: 0, last: 1 },
      { size: 4, first: 0, last: 1 },
    ]);
    const no = bestOf(pair, { alignmentBytes: 8, capacityBytes: 11 });
    expect([no.search?.status, no.totalBytes]).toEqual(['infeasible', 12]);
    expect(no.search?.nodes).toBeGreaterThan(0);
    const yes = bestOf(pair, { alignmentBytes: 8, capacityBytes: 12 });
    expect(yes.search?.status).toBe('found');
  });
  it('found by the search where no heuristic fits; budget spent when given too few nodes', () => {
    const { r, height } = hardPerfect(12345, 40);
    const greedy = runPlan(r, { strategy: 'greedy-by-size:offsets' }).results[0] as PlanResultOk;
    expect(greedy.totalBytes).toBeGreaterThan(height);
    const found = bestOf(r, { capacityBytes: height });
    expect([found.totalBytes, found.search?.status, found.from]).toEqual([height, 'found', 'exact search']);
    expect(found.search?.foundAtNodes).toBe(found.search?.nodes);
    const starved = bestOf(r, { capacityBytes: height, nodeBudget: 10 });
    expect([starved.search?.status, starved.search?.nodes]).toEqual(['budget', 10]);
    expect(starved.totalBytes).toBeGreaterThan(height);
  });
});

describe('the node budget decides; the clock only caps', () => {
  const { r } = hardPerfect(777, 60);
  it('the same packing whatever the speed of the clock, while the budget ends the search', () => {
    let slow = 0;
    let fast = 0;
    const a = bestOf(r, { nodeBudget: 3_000, timeLimitMs: 1e9, now: () => (slow += 1) });
    const b = bestOf(r, { nodeBudget: 3_000, timeLimitMs: 1e9, now: () => (fast += 1000) });
    expect(a.search?.status === 'budget' || a.search?.status === 'lower-bound').toBe(true);
    expect(b).toEqual(a);
    expect(a.search?.nodes).toBeLessThanOrEqual(3_000);
  });
  it('a search cut by the clock says so, in its status and in a note', () => {
    // The search reads the clock every 1,024 nodes: at its first look, the time is up.
    const big = hardPerfect(4242, 400).r;
    let t = 0;
    const report = runPlan(big, { strategy: 'best', nodeBudget: 10_000_000, timeLimitMs: 50, now: () => (t += 20) });
    const best = report.results[0] as PlanResultOk;
    expect(best.search?.status).toBe('timeout');
    expect(best.proven).toBe(false);
    expect(best.search?.nodes).toBeLessThan(10_000_000);
    expect(report.notes.some((n) => n.includes('stopped best') && n.includes('may differ on a rerun'))).toBe(true);
    expect(checkOffsets(big, best.offsets ?? [], best.totalBytes)).toBeNull();
  });
  it('by default, 10^8 over the cost of a node of the costliest partition', () => {
    // Closed lifetimes [0,1], [1,2], [2,3] and, apart, [10,10]. The first three make a partition whose
    // sections (the intervals from a start to an end with nothing between) are [1,2) (buffers 0, 1)
    // and [2,3) (1, 2): spans 1, 2, 1; overlaps 0-1 and 1-2, 4 entries. Cost: 3 buffers + 4/3
    // overlaps + 2 x 4/3 sections per buffer = 7. The lone buffer: 1 + 0 + 2 x 1 = 3.
    const r = makeRecords([
      { size: 4, first: 0, last: 1 },
      { size: 2, first: 1, last: 2 },
      { size: 3, first: 2, last: 3 },
      { size: 5, first: 10, last: 10 },
    ]);
    const parts = partitionRecords(r, 1_000) ?? [];
    expect(parts.map((p) => nodeCost(p))).toEqual([7, 3]);
    expect(defaultNodeBudget(parts, r.count)).toBe(14_285_714); // floor(10^8 / 7)
    const report = runPlan(r, { strategy: 'best' });
    expect([report.nodeBudget, (report.results[0] as PlanResultOk).search?.nodeBudget]).toEqual([14_285_714, 14_285_714]);
    expect(runPlan(r, { strategy: 'best', nodeBudget: 123 }).nodeBudget).toBe(123);
    expect(runPlan(r, { strategy: 'naive' }).nodeBudget).toBe(0);
  });

  it('a node budget of 0 turns the search off', () => {
    expect(bestOf(r, { nodeBudget: 0 }).search?.status).toBe('disabled');
  });
});

describe('the fast search against a plain reference', () => {
  it('same end, same node count, same packing (random partitions and capacities, every preordering)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ size: fc.integer({ min: 1, max: 12 }), first: fc.integer({ min: 0, max: 14 }), width: fc.integer({ min: 0, max: 6 }) }), { minLength: 1, maxLength: 14 }),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom(1, 1, 4),
        (xs, heuristic, slack, align) => {
          const r = makeRecords(xs.map((x) => ({ size: x.size, first: x.first, last: x.first + x.width })));
          for (const p of partitionRecords(r, 1e9) ?? []) {
            const stacked = new Float64Array(r.count).fill(1e9); // an incumbent no search beats by accident
            const capacity = p.lowerBound + slack;
            const fast = new PartitionSearch(r, p, stacked, align, { deadlineMs: Infinity, now: () => 0 });
            const end = fast.run(heuristic, capacity, 5_000);
            const ref = referenceSearch(r, p, capacity, heuristic, 5_000, align);
            expect([end, fast.nodes]).toEqual([ref.end, ref.nodes]);
            if (end === 'found') {
              expect(Array.from(fast.bestOffsets)).toEqual(ref.offsets);
              const offsets = new Float64Array(r.count);
              p.records.forEach((rec, b) => (offsets[rec] = fast.bestOffsets[b] as number));
              const sub = makeRecords(Array.from(p.records, (rec) => ({ size: r.size[rec] as number, first: r.first[rec] as number, last: r.last[rec] as number })));
              expect(checkOffsets(sub, Array.from(p.records, (rec) => offsets[rec] as number), capacity, align)).toBeNull();
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('a search still improving as its budget runs out goes on (the default budget)', () => {
  /** Partition 0 of a scrambled perfect packing, searched from the records stacked one on another. */
  const solve = (seed: number, nodeBudget: number, improving?: SolveGoal['improving']): { out: PartitionOutcome; valid: string | null } => {
    const { r } = hardPerfect(seed, 60);
    const p = (partitionRecords(r, 1e9) ?? [])[0] as Partition;
    const offsets = new Float64Array(r.count);
    let top = 0;
    for (let i = 0; i < r.count; i++) {
      offsets[i] = top;
      top += r.size[i] as number;
    }
    const goal: SolveGoal = { target: p.lowerBound, mode: 'minimize', nodeBudget, ...(improving ? { improving } : {}) };
    const out = solvePartition(r, p, offsets, 1, goal, { deadlineMs: Infinity, now: () => 0 });
    // Valid as a whole (records of other partitions stay stacked), the partition's own as high as reported.
    let total = 0;
    for (let i = 0; i < r.count; i++) total = Math.max(total, (offsets[i] as number) + (r.size[i] as number));
    let height = 0;
    for (const rec of p.records) height = Math.max(height, (offsets[rec] as number) + (r.size[rec] as number));
    return { out, valid: checkOffsets(r, Array.from(offsets), total) ?? (height === out.height ? null : `height ${height}, reported ${out.height}`) };
  };

  it('reaches the optimum past a budget that ended it just after an improvement', () => {
    // Seed 37: 1,040 after 268 nodes of 300; 34 nodes more find the perfect packing (1,024).
    const hard = solve(37, 300);
    expect(hard.out).toEqual({ end: 'nodes', height: 1_040, nodes: 300, foundAtNodes: 268, extraNodes: 0 });
    const more = solve(37, 300, { window: 100, extra: 300 });
    expect(more.out).toEqual({ end: 'target', height: 1_024, nodes: 334, foundAtNodes: 334, extraNodes: 34 });
    expect(more.valid).toBeNull();
  });

  it('stops `window` nodes after the last improvement, and never past `extra`', () => {
    // Seed 1: 1,038 after 243 nodes; nothing better in the 100 after it.
    expect(solve(1, 300, { window: 100, extra: 300 }).out).toEqual({ end: 'nodes', height: 1_038, nodes: 343, foundAtNodes: 243, extraNodes: 43 });
    expect(solve(1, 300, { window: 100, extra: 20 }).out).toMatchObject({ end: 'nodes', nodes: 320, extraNodes: 20 });
    // An improvement long before the end of the budget: the budget is the limit.
    expect(solve(1, 300, { window: 50, extra: 300 }).out).toEqual({ end: 'nodes', height: 1_038, nodes: 300, foundAtNodes: 243, extraNodes: 0 });
  });

  it('never worse than the hard limit, and where it stops follows from node counts alone', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 50, max: 1_500 }), fc.integer({ min: 1, max: 800 }), fc.integer({ min: 0, max: 1_500 }), (seed, budget, window, extra) => {
        const hard = solve(seed, budget);
        const more = solve(seed, budget, { window, extra });
        expect(more.valid).toBeNull();
        expect(more.out.height).toBeLessThanOrEqual(hard.out.height);
        expect(more.out.nodes).toBeGreaterThanOrEqual(hard.out.nodes);
        expect(more.out.extraNodes).toBe(Math.max(0, more.out.nodes - budget));
        if (more.out.end === 'nodes') {
          const until = more.out.foundAtNodes > 0 ? Math.min(budget + extra, Math.max(budget, more.out.foundAtNodes + window)) : budget;
          expect(more.out.nodes).toBe(until);
        }
        expect(solve(seed, budget, { window, extra }).out).toEqual(more.out);
      }),
      { numRuns: 40 },
    );
  });
});
