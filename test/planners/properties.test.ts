/**
 * Invariants over random records: every strategy's assignment is valid (checked by the checker),
 * no plan beats its lower bound, the fast implementations give exactly what the direct ports of the
 * real loops give, and the exact search agrees with brute force.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkObjects,
  checkOffsets,
  listPlanners,
  makeRecords,
  objectsLowerBound,
  offsetsLowerBound,
  positionalMaxima,
  positionalMaximaByTree,
  recordsFromTrace,
  runPlan,
  skipReason,
  bestPacking,
  type RecordObject,
  type UsageRecords,
} from '../../src/planners/index.js';
import { greedyByBreadthObjects } from '../../src/planners/strategies/greedy-by-breadth.js';
import { greedyBySizeObjects } from '../../src/planners/strategies/greedy-by-size-objects.js';
import { bySizeDescending, greedyBySizeOffsets } from '../../src/planners/strategies/greedy-by-size-offsets.js';
import { xlaBestFit, xlaOrder } from '../../src/planners/strategies/xla-best-fit.js';
import { alloc, type EventObject, free, traceFromEvents } from '../helpers.js';
import {
  bruteForceOptimum,
  referenceGreedyByBreadth,
  referenceGreedyBySizeOffsets,
  referencePositionalMaxima,
  referenceXla,
  referenceGreedyBySizeObjects,
  perfectPacking,
} from './reference.js';

/** Records in any order (not sorted by first), with repeated sizes, zero sizes and shared times. */
const recordsArb = (maxCount: number, maxTime = 30, sizes = fc.oneof(fc.integer({ min: 0, max: 64 }), fc.constantFrom(8, 16, 32, 64, 1000))) =>
  fc
    .array(
      fc.record({ size: sizes, first: fc.integer({ min: 0, max: maxTime }), len: fc.integer({ min: 0, max: 12 }) }),
      { maxLength: maxCount },
    )
    .map((xs) => makeRecords(xs.map((x): RecordObject => ({ size: x.size, first: x.first, last: x.first + x.len }))));

const alignments = fc.constantFrom(1, 1, 4, 64);

describe('every strategy gives a valid assignment that respects its lower bound', () => {
  it.each(listPlanners().map((p) => [`${p.name} (${p.kind})`, p] as const))('%s', (_label, p) => {
    fc.assert(
      fc.property(recordsArb(40), alignments, (r, align) => {
        if (skipReason(p, r)) return;
        const a = p.plan(r, { alignmentBytes: align });
        if (a.kind === 'objects') {
          expect(checkObjects(r, a)).toBeNull();
          expect(a.objectSizes.reduce((s, x) => s + x, 0)).toBeGreaterThanOrEqual(objectsLowerBound(r));
        } else {
          expect(checkOffsets(r, a.offsets, a.totalBytes, align)).toBeNull();
          expect(a.totalBytes).toBeGreaterThanOrEqual(offsetsLowerBound(r));
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('the fast implementations equal the direct ports of the real loops', () => {
  it('greedy-by-size offsets: conflict index + sort == walking every placed record', () => {
    fc.assert(
      fc.property(recordsArb(60), alignments, (r, align) => {
        const fast = greedyBySizeOffsets(r, align);
        const ref = referenceGreedyBySizeOffsets(r, align);
        expect(Array.from(fast.offsets)).toEqual(ref.offsets);
        expect(fast.totalBytes).toBe(ref.total);
      }),
      { numRuns: 300 },
    );
  });
  it('the size order (a radix sort below 2^32 bytes) == a stable sort by decreasing size', () => {
    const size = fc.oneof(
      fc.integer({ min: 0, max: 3000 }),
      fc.constantFrom(0, 2047, 2048, 4_194_303, 4_194_304, 0xffffffff),
      fc.integer({ min: 0, max: 0xffffffff }),
      fc.integer({ min: 0, max: 2 ** 40 }),
    );
    fc.assert(
      fc.property(fc.array(size, { maxLength: 200 }), (sizes) => {
        const r = makeRecords(sizes.map((s, i): RecordObject => ({ size: s, first: i, last: i })));
        const expected = sizes.map((_, i) => i).sort((x, y) => (sizes[y] as number) - (sizes[x] as number) || x - y);
        expect(Array.from(bySizeDescending(r))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
  it("XLA's orders (radix sorts for integer keys below 2^32) == the comparator sorts: size, range, id and range, size, id", () => {
    const size = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom(0, 2047, 2048, 0xffffffff), fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 2 ** 40 }));
    const time = fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 2 ** 33 }));
    const rec = fc.record({ size, a: time, b: time });
    fc.assert(
      fc.property(fc.array(rec, { maxLength: 150 }), (rs) => {
        const r = makeRecords(rs.map(({ size: s, a, b }): RecordObject => ({ size: s, first: Math.min(a, b), last: Math.max(a, b) })));
        const range = (i: number): number => (r.last[i] as number) - (r.first[i] as number);
        const bySize = (x: number, y: number): number => (r.size[y] as number) - (r.size[x] as number);
        const byRange = (x: number, y: number): number => range(y) - range(x);
        const ids = rs.map((_, i) => i);
        expect(Array.from(xlaOrder(r, 'spatial'))).toEqual([...ids].sort((x, y) => bySize(x, y) || byRange(x, y) || x - y));
        expect(Array.from(xlaOrder(r, 'temporal'))).toEqual([...ids].sort((x, y) => byRange(x, y) || bySize(x, y) || x - y));
      }),
      { numRuns: 300 },
    );
  });
  it('greedy-by-size offsets and XLA best fit on hundreds of records over hundreds of times, lengths from 0 to all of it', () => {
    // Enough distinct times for the default layout's length classes, blocks and table steps to matter.
    const manyArb = fc
      .array(
        fc.record({
          size: fc.oneof(fc.integer({ min: 1, max: 5000 }), fc.constantFrom(0, 64, 4096)),
          first: fc.integer({ min: 0, max: 700 }),
          len: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 40 }) }, { weight: 2, arbitrary: fc.integer({ min: 0, max: 400 }) }, { weight: 1, arbitrary: fc.constant(800) }),
        }),
        { minLength: 300, maxLength: 500 },
      )
      .map((xs) => makeRecords(xs.map((x): RecordObject => ({ size: x.size, first: x.first, last: x.first + x.len }))));
    fc.assert(
      fc.property(manyArb, fc.constantFrom(1, 64), (r, align) => {
        const fast = greedyBySizeOffsets(r, align);
        const ref = referenceGreedyBySizeOffsets(r, align);
        expect(Array.from(fast.offsets)).toEqual(ref.offsets);
        expect(fast.totalBytes).toBe(ref.total);
        const xla = xlaBestFit(r, align, 'spatial');
        const xlaRef = referenceXla(r, align, 'spatial');
        expect(Array.from(xla.offsets)).toEqual(xlaRef.offsets);
      }),
      { numRuns: 12 },
    );
  });
  it.each(['spatial', 'temporal'] as const)('XLA best fit (%s) == scanning every chunk', (type) => {
    fc.assert(
      fc.property(recordsArb(60), alignments, (r, align) => {
        const fast = xlaBestFit(r, align, type);
        const ref = referenceXla(r, align, type);
        expect(Array.from(fast.offsets)).toEqual(ref.offsets);
        expect(fast.totalBytes).toBe(ref.total);
      }),
      { numRuns: 200 },
    );
  });
  it('greedy-by-breadth on first times only == on every task', () => {
    fc.assert(
      fc.property(recordsArb(40), (r) => {
        const fast = greedyByBreadthObjects(r);
        expect({ ids: Array.from(fast.objectIds), sizes: fast.objectSizes }).toEqual(referenceGreedyByBreadth(r));
      }),
      { numRuns: 300 },
    );
  });
  it('greedy-by-size objects, choosing in the update pass == selection pass then update pass', () => {
    fc.assert(
      fc.property(recordsArb(40), (r) => {
        const fast = greedyBySizeObjects(r);
        expect({ ids: Array.from(fast.objectIds), sizes: fast.objectSizes }).toEqual(referenceGreedyBySizeObjects(r, referencePositionalMaxima(r)));
      }),
      { numRuns: 300 },
    );
  });
  it('positional maxima by the sweep and by counting == from every task profile', () => {
    fc.assert(
      fc.property(recordsArb(50), (r) => {
        const expected = referencePositionalMaxima(r);
        expect(positionalMaxima(r)).toEqual(expected);
        expect(positionalMaximaByTree(r)).toEqual(expected);
        // Sorting the live sizes allowed no time: the sweep hands over to the tree.
        expect(positionalMaxima(r, 0)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe('best and the exact search', () => {
  const small = recordsArb(7, 10, fc.integer({ min: 0, max: 40 }));
  it('never below the optimum; proven means equal to the brute-force optimum', () => {
    fc.assert(
      fc.property(small, fc.constantFrom(1, 1, 8), (r, align) => {
        const report = runPlan(r, { strategy: 'best', alignmentBytes: align, timeLimitMs: 10_000 });
        const best = report.results[0];
        if (!best || best.status !== 'ok' || !best.offsets) throw new Error('no best result');
        expect(checkOffsets(r, best.offsets, best.totalBytes, align)).toBeNull();
        const opt = bruteForceOptimum(r, align);
        expect(best.totalBytes).toBeGreaterThanOrEqual(opt);
        expect(best.proven).toBe(true); // tiny problems always finish
        expect(best.totalBytes).toBe(opt);
      }),
      { numRuns: 400 },
    );
  });
  /** The search alone, from the worst start: every record stacked on the previous one. */
  const searchFromStack = (r: UsageRecords, align: number) => {
    const stacked = new Float64Array(r.count);
    let top = 0;
    for (let i = 0; i < r.count; i++) {
      top = Math.ceil(top / align) * align;
      stacked[i] = top;
      top += r.size[i] as number;
    }
    return bestPacking(r, [{ label: 'stacked', offsets: stacked, totalBytes: top }], offsetsLowerBound(r), { alignmentBytes: align, nodeBudget: 10_000_000 });
  };
  it('the search alone reaches the brute-force optimum and proves it', () => {
    fc.assert(
      fc.property(recordsArb(8, 10, fc.integer({ min: 1, max: 40 })), fc.constantFrom(1, 1, 8), (r, align) => {
        const out = searchFromStack(r, align);
        expect(checkOffsets(r, out.assignment.offsets, out.assignment.totalBytes, align)).toBeNull();
        expect([out.assignment.totalBytes, out.proven]).toEqual([bruteForceOptimum(r, align), true]);
      }),
      { numRuns: 300 },
    );
  });
  it('the search alone finds perfect packings (guillotine cuts: the optimum is the capacity)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 8, max: 30 }), (seed, pieces) => {
        let x = seed;
        const rand = (): number => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0), x / 2 ** 32);
        const { records, height } = perfectPacking(rand, pieces);
        const r = makeRecords(records);
        expect(offsetsLowerBound(r)).toBe(height);
        const out = searchFromStack(r, 1);
        expect(checkOffsets(r, out.assignment.offsets, out.assignment.totalBytes)).toBeNull();
        expect([out.assignment.totalBytes, out.proven, out.search.status]).toEqual([height, true, 'lower-bound']);
      }),
      { numRuns: 150 },
    );
  });
  it('with all strategies: best is valid and no larger than any of them', () => {
    fc.assert(
      fc.property(recordsArb(30), alignments, (r, align) => {
        const report = runPlan(r, { strategy: 'all', alignmentBytes: align, timeLimitMs: 2_000 });
        const best = report.results.find((x) => x.strategy === 'best');
        if (!best || best.status !== 'ok' || !best.offsets) throw new Error('no best result');
        expect(checkOffsets(r, best.offsets, best.totalBytes, align)).toBeNull();
        for (const x of report.results) if (x.status === 'ok') expect(best.totalBytes).toBeLessThanOrEqual(x.totalBytes);
        expect(report.results[0]?.strategy).toBe('best');
      }),
      { numRuns: 60 },
    );
  });
  it('gives the same packing on every run when the search finishes', () => {
    fc.assert(
      fc.property(recordsArb(25), (r) => {
        const a = runPlan(r, { strategy: 'best', timeLimitMs: 60_000 });
        const b = runPlan(r, { strategy: 'best', timeLimitMs: 60_000 });
        if (a.results[0]?.status === 'ok' && a.results[0].search?.status !== 'timeout') expect(b).toEqual(a);
      }),
      { numRuns: 40 },
    );
  });
});

describe('records from traces', () => {
  const traceArb = fc
    .array(fc.record({ size: fc.integer({ min: 0, max: 100 }), freeAfter: fc.integer({ min: 0, max: 6 }), leak: fc.boolean() }), { maxLength: 40 })
    .map((xs) => {
      // Each allocation is freed after `freeAfter` more allocations (or never).
      const events: EventObject[] = [];
      const pending: { id: number; at: number }[] = [];
      xs.forEach((x, i) => {
        for (const p of pending.filter((q) => q.at <= i)) events.push(free(p.id));
        pending.splice(0, pending.length, ...pending.filter((q) => q.at > i));
        events.push(alloc(i, x.size));
        if (!x.leak) pending.push({ id: i, at: i + x.freeAfter });
      });
      return traceFromEvents(events);
    });
  it('the offsets lower bound is the trace peak of live bytes, and plans are valid', () => {
    fc.assert(
      fc.property(traceArb, (t) => {
        const r: UsageRecords = recordsFromTrace(t);
        expect(offsetsLowerBound(r)).toBe(t.summary.peakLiveBytes);
        const report = runPlan(r, { strategy: 'greedy-by-size,xla-best-fit', nodeBudget: 0 });
        for (const x of report.results) if (x.status === 'ok' && x.offsets) expect(checkOffsets(r, x.offsets, x.totalBytes)).toBeNull();
      }),
      { numRuns: 200 },
    );
  });
});
