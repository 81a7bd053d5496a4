/**
 * The structures behind the placement loops against plain definitions on random records: the
 * interval index lists exactly the records live at a time and those starting in a range, and the
 * placement's runs are exactly the union of the conflicting placed records' aligned ranges.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeRecords, type UsageRecords } from '../../src/planners/index.js';
import { OutOfAddressSpace } from '../../src/planners/limits.js';
import { Placement } from '../../src/planners/placement.js';
import { TimeClasses, type TimeClassesOptions } from '../../src/planners/time-classes.js';
import { intervalIndex, orderBy, timeAxis } from '../../src/planners/time-index.js';

const up = (n: number, a: number): number => Math.ceil(n / a) * a;

/** Records with shared and distinct first times, long and short lives, zero sizes. */
const recordsArb = fc
  .array(fc.record({ size: fc.integer({ min: 0, max: 100 }), first: fc.integer({ min: 0, max: 60 }), len: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 80 })) }), {
    maxLength: 80,
  })
  .map((xs) => makeRecords(xs.map((x) => ({ size: x.size, first: x.first, last: x.first + x.len }))));

/**
 * Records whose lengths differ by orders of magnitude: mostly short ones over many distinct first
 * times, some long and a few live from start to end, so that with small layout sizes every length
 * class, table step and block boundary is met.
 */
const mixedArb = fc
  .array(
    fc.record({
      size: fc.integer({ min: 0, max: 100 }),
      first: fc.integer({ min: 0, max: 200 }),
      len: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 6 }) }, { weight: 3, arbitrary: fc.integer({ min: 0, max: 60 }) }, { weight: 1, arbitrary: fc.constant(400) }),
    }),
    { maxLength: 80 },
  )
  .map((xs) => makeRecords(xs.map((x) => ({ size: x.size, first: x.first, last: x.first + x.len }))));

/** Layouts from one block of everything to blocks of one record and a class per factor of 16 from length 1. */
const layoutArb: fc.Arbitrary<TimeClassesOptions> = fc.record({
  grainBits: fc.integer({ min: 0, max: 3 }),
  blockBits: fc.integer({ min: 0, max: 7 }),
  shortBits: fc.integer({ min: 0, max: 8 }),
});

/** The union of [s, e) ranges, coalesced (overlapping or touching ranges are one run), as pairs. */
function union(ranges: [number, number][]): [number, number][] {
  const sorted = ranges.filter(([s, e]) => e > s).sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

const overlaps = (r: UsageRecords, i: number, j: number): boolean =>
  (r.first[i] as number) <= (r.last[j] as number) && (r.first[j] as number) <= (r.last[i] as number);

describe('time axis and orders', () => {
  it('the axis is the distinct first times, each record at the last time not after its first and its last', () => {
    // In trace order (firsts ascending, consecutive integers), ascending with holes, and shuffled.
    const arb = fc.oneof(
      recordsArb,
      mixedArb,
      fc.array(fc.record({ first: fc.integer({ min: 0, max: 30 }), len: fc.integer({ min: 0, max: 40 }) }), { maxLength: 40 }).map((xs) =>
        makeRecords(xs.map((x) => x.first * 3).sort((a, b) => a - b).map((first, i) => ({ size: 1, first, last: first + (xs[i] as { len: number }).len }))),
      ),
      fc.integer({ min: 0, max: 60 }).chain((n) =>
        fc.array(fc.integer({ min: 0, max: 80 }), { minLength: n, maxLength: n }).map((lens) => makeRecords(lens.map((len, i) => ({ size: 1, first: i, last: i + len })))),
      ),
    );
    fc.assert(
      fc.property(arb, (r) => {
        const axis = timeAxis(r);
        const want = [...new Set(Array.from(r.first))].sort((x, y) => x - y);
        expect(Array.from(axis.times)).toEqual(want);
        for (let i = 0; i < r.count; i++) {
          expect(axis.fi[i]).toBe(want.filter((t) => t <= (r.first[i] as number)).length - 1);
          expect(axis.li[i]).toBe(want.filter((t) => t <= (r.last[i] as number)).length - 1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('orderBy is a stable ascending sort by the key, for integer keys and any others', () => {
    const keyArb = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.integer({ min: -2e9, max: 2e9 }), fc.double({ min: -10, max: 10, noNaN: true }), fc.constantFrom(2 ** 52, -(2 ** 52)));
    fc.assert(
      fc.property(fc.array(keyArb, { maxLength: 60 }), (keys) => {
        const want = keys.map((_, i) => i).sort((a, b) => (keys[a] as number) - (keys[b] as number) || a - b);
        expect(Array.from(orderBy(keys.length, (i) => keys[i] as number))).toEqual(want);
      }),
      { numRuns: 500 },
    );
  });
});

describe('interval index', () => {
  it('lists every record live at each time index once, and those starting in any range', () => {
    fc.assert(
      fc.property(recordsArb, (r) => {
        const axis = timeAxis(r);
        const index = intervalIndex(r);
        const out = new Int32Array(r.count + 1);
        for (let t = 0; t < axis.times.length; t++) {
          const k = index.liveAt(t, out, 0);
          const got = Array.from(out.subarray(0, k)).sort((a, b) => a - b);
          const want = Array.from({ length: r.count }, (_, i) => i).filter((i) => (axis.fi[i] as number) <= t && t <= (axis.li[i] as number));
          expect(got).toEqual(want);
          for (let b = t; b < axis.times.length; b++) {
            const starting = Array.from(index.startOrder.subarray(index.timeStart[t + 1] as number, index.timeStart[b + 1] as number));
            const want = Array.from({ length: r.count }, (_, i) => i).filter((i) => (axis.fi[i] as number) > t && (axis.fi[i] as number) <= b);
            // By first time, ties in record order.
            want.sort((x, y) => (axis.fi[x] as number) - (axis.fi[y] as number) || x - y);
            expect(starting).toEqual(want);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('placement', () => {
  /** Places records at the given spots, checking occupied() and conflicting() against their definitions before each. */
  function check(r: UsageRecords, align: number, spots: number[], indexedFlags: boolean[], layout?: TimeClassesOptions, gapBytes = 1): void {
    const p = new Placement(r, align, layout);
    const placed: number[] = [];
    for (let i = 0; i < r.count; i++) {
      const m = p.occupied(i);
      const got: [number, number][] = [];
      for (let j = 0; j < m; j++) got.push([p.runStart[j] as number, p.runEnd[j] as number]);
      const want = union(placed.filter((j) => overlaps(r, i, j)).map((j) => [p.offsets[j] as number, up((p.offsets[j] as number) + (r.size[j] as number), align)]));
      expect(got).toEqual(want);
      // With a least gap, runs closer than it are one.
      const mg = p.occupiedAt(p.positions([i])[0] as number, gapBytes);
      const gotGapped: [number, number][] = [];
      for (let j = 0; j < mg; j++) gotGapped.push([p.runStart[j] as number, p.runEnd[j] as number]);
      const wantGapped: [number, number][] = [];
      for (const [s, e] of want) {
        const lastRun = wantGapped[wantGapped.length - 1];
        if (lastRun && s - lastRun[1] < gapBytes) lastRun[1] = e;
        else wantGapped.push([s, e]);
      }
      expect(gotGapped).toEqual(wantGapped);
      // bestFitAt: the smallest gap of the runs that holds gapBytes (the lowest on ties), else the last end.
      let bestAt = -1;
      let best = Infinity;
      let prev = 0;
      for (const [s, e] of want) {
        if (s - prev >= gapBytes && s - prev < best) [best, bestAt] = [s - prev, prev];
        prev = e;
      }
      expect(p.bestFitAt(p.positions([i])[0] as number, gapBytes)).toBe(bestAt < 0 ? prev : bestAt);
      // bestFitBelow: the same over the gaps up to a heap size too (XLA's free chunks), -1 when none holds it.
      for (const heap of [0, prev - 1, prev, prev + gapBytes - 1, prev + gapBytes, prev + 3 * gapBytes]) {
        let below = -1;
        let bestBelow = Infinity;
        let end = 0;
        for (const [s, e] of [...want, [heap, heap]] as [number, number][]) {
          if (s - end >= gapBytes && s - end < bestBelow) [bestBelow, below] = [s - end, end];
          end = Math.max(end, e);
        }
        expect(p.bestFitBelow(p.positions([i])[0] as number, gapBytes, heap)).toBe(below);
        expect(p.lastRunEnd).toBe(prev);
      }
      const conflicting = Array.from(p.conflicting(i));
      const byOffset = placed.filter((j) => overlaps(r, i, j)); // placement order: a stable sort by offset keeps it on ties
      byOffset.sort((x, y) => (p.offsets[x] as number) - (p.offsets[y] as number));
      expect(conflicting).toEqual(byOffset);
      const offset = (spots[i] as number) * align;
      const indexed = indexedFlags[i] as boolean;
      p.place(i, offset, indexed);
      if (indexed) placed.push(i);
    }
  }
  const spotsArb = fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 80, maxLength: 80 });
  const flagsArb = fc.array(fc.boolean(), { minLength: 80, maxLength: 80 });

  it('occupied() is the union of the aligned ranges of the placed records that conflict (with a least gap, closer runs are one)', () => {
    fc.assert(
      fc.property(recordsArb, fc.constantFrom(1, 1, 8, 64), spotsArb, flagsArb, fc.constantFrom(1, 2, 64, 600), (r, align, spots, flags, gap) =>
        check(r, align, spots, flags, undefined, gap),
      ),
      { numRuns: 300 },
    );
  });

  it('and so with lengths across classes, in layouts of every size', () => {
    fc.assert(
      fc.property(mixedArb, fc.constantFrom(1, 8), spotsArb, flagsArb, layoutArb, fc.constantFrom(1, 8, 300), (r, align, spots, flags, layout, gap) =>
        check(r, align, spots, flags, layout, gap),
      ),
      { numRuns: 300 },
    );
  });

  it('runs exactly a least gap apart stay apart, closer ones are one', () => {
    // Three records live together at [0, 10), [11, 20) and [30, 40); the fourth asks.
    const r = makeRecords([
      { size: 10, first: 0, last: 5 },
      { size: 9, first: 0, last: 5 },
      { size: 10, first: 0, last: 5 },
      { size: 1, first: 2, last: 3 },
    ]);
    const p = new Placement(r, 1);
    p.place(0, 0);
    p.place(1, 11);
    p.place(2, 30);
    const runs = (gap: number): number[][] => {
      const m = p.occupiedAt(p.positions([3])[0] as number, gap);
      return Array.from({ length: m }, (_, j) => [p.runStart[j] as number, p.runEnd[j] as number]);
    };
    expect(runs(1)).toEqual([[0, 10], [11, 20], [30, 40]]);
    expect(runs(2)).toEqual([[0, 20], [30, 40]]);
    expect(runs(10)).toEqual([[0, 20], [30, 40]]);
    expect(runs(11)).toEqual([[0, 40]]);
    // Gaps [10, 11) and [20, 30): one byte fits the first, ten only the second, eleven neither.
    const at = (size: number): number => p.bestFitAt(p.positions([3])[0] as number, size);
    expect([at(1), at(2), at(10), at(11)]).toEqual([10, 20, 20, 40]);
  });

  it('keeps every run when one record meets more of them than the run buffers first hold', () => {
    // 700 records live together, one byte each, every other byte from 0: 700 runs (the buffers
    // start at 256), over blocks of 4, 128 and 1,024 positions. The last one asks after each
    // hundred placements, so the buffers grow while the runs so far are kept.
    const count = 700;
    const r = makeRecords([...Array.from({ length: count }, () => ({ size: 1, first: 0, last: 9 })), { size: 1, first: 5, last: 5 }]);
    for (const blockBits of [2, 7, 10]) {
      const p = new Placement(r, 1, { grainBits: 3, blockBits, shortBits: 8 });
      const ask = p.positions([count])[0] as number;
      // Placed from the top down, so that each block's slots are inserted below the ones before.
      for (let i = 0; i < count; i++) {
        p.place(i, 2 * (count - 1 - i));
        if (i % 100 === 99 || i === count - 1) {
          const m = p.occupiedAt(ask);
          expect(m).toBe(i + 1);
          const lo = 2 * (count - 1 - i);
          expect([p.runStart[0], p.runEnd[0], p.runStart[m - 1], p.runEnd[m - 1]]).toEqual([lo, lo + 1, 2 * (count - 1), 2 * count - 1]);
          for (let j = 0; j < m; j++) expect((p.runEnd[j] as number) - (p.runStart[j] as number)).toBe(1);
        }
      }
      // Gaps of one byte close under a least gap of two: one run.
      expect(p.occupiedAt(ask, 2)).toBe(1);
      expect([p.runStart[0], p.runEnd[0]]).toEqual([0, 2 * count - 1]);
      expect(p.bestFitAt(ask, 1)).toBe(1);
      expect(p.bestFitAt(ask, 2)).toBe(2 * count - 1);
    }
  });

  it('the layout finds, for each class, a run of positions holding every record that meets a window', () => {
    fc.assert(
      fc.property(mixedArb, layoutArb, (r, layout) => {
        const axis = timeAxis(r);
        const L = new TimeClasses(axis, layout);
        const T = axis.times.length;
        // The records' positions are a permutation, class-major and by first time within a class,
        // each class from the start of a block (the positions left between hold no record).
        expect(Array.from(L.recAt).filter((i) => i >= 0).sort((x, y) => x - y)).toEqual(Array.from({ length: r.count }, (_, i) => i));
        for (let i = 0; i < r.count; i++) expect(L.recAt[L.posOf[i] as number]).toBe(i);
        for (let p = 1; p < L.positions; p++) {
          const [x, y] = [L.recAt[p - 1] as number, L.recAt[p] as number];
          const classOf = (i: number): number => Math.max(0, 32 - Math.clz32((axis.li[i] as number) - (axis.fi[i] as number)) - layout.shortBits + 3) >> 2;
          if (y >= 0 && (x < 0 || classOf(x) !== classOf(y))) expect(p % (1 << layout.blockBits)).toBe(0);
        }
        for (let a = 0; a < T; a++) {
          for (let b = a; b < T; b++) {
            const found = new Set<number>();
            for (let k = 0; k < L.classCount; k++) for (let p = L.windowStart(k, a); p < L.windowEnd(k, b); p++) found.add(L.recAt[p] as number);
            for (let i = 0; i < r.count; i++) {
              if ((axis.fi[i] as number) <= b && (axis.li[i] as number) >= a) expect(found.has(i)).toBe(true);
            }
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('placement limits', () => {
  it('refuses, before allocating, more records than a WebAssembly memory holds slots for', () => {
    // 24 bytes a slot and 32 a block of 128 slots (its bounds): 4 GiB holds about 177.1 million; the
    // check reads only the count.
    const huge = { count: 180_000_000 } as UsageRecords;
    expect(() => new Placement(huge, 1)).toThrow(OutOfAddressSpace);
    expect(() => new Placement(huge, 1)).toThrow(
      /^180,000,000 records need 4\.07 GiB of WebAssembly memory for their placement, over its limit of 4\.00 GiB \(at most 177,111,\d{3} records\)$/,
    );
  });
});
