import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GapTree } from '../../src/util/gap-tree.js';
import { OrderedSet } from '../../src/util/ordered-set.js';
import { TimelineSampler } from '../../src/sim/timeline.js';

/** A small seeded generator (a linear congruential one): `rnd(m)` is in [0, m). */
function lcg(seed: number): (m: number) => number {
  let x = seed;
  return (m) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x % m;
  };
}

describe('OrderedSet agrees with a sorted array', () => {
  it('insert, remove, lowerBound, upperBound, predecessor, first, last, next', () => {
    const op = fc.record({ kind: fc.constantFrom('ins', 'ins', 'del', 'q'), a: fc.integer({ min: 0, max: 20 }), b: fc.integer({ min: 0, max: 5 }) });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const s = new OrderedSet(4);
        let ref: [number, number][] = [];
        const cmp = (x: [number, number], y: [number, number]): number => x[0] - y[0] || x[1] - y[1];
        const key = (n: number): [number, number] | null => (n < 0 ? null : [s.a(n), s.b(n)]);
        for (const o of ops) {
          const has = ref.some((r) => r[0] === o.a && r[1] === o.b);
          if (o.kind === 'ins' && !has) {
            s.insert(o.a, o.b, o.a * 10 + o.b);
            ref.push([o.a, o.b]);
            ref.sort(cmp);
          } else if (o.kind === 'del') {
            expect(s.remove(o.a, o.b)).toBe(has);
            ref = ref.filter((r) => !(r[0] === o.a && r[1] === o.b));
          }
          const q: [number, number] = [o.a, o.b];
          expect(key(s.lowerBound(o.a, o.b))).toEqual(ref.find((r) => cmp(r, q) >= 0) ?? null);
          expect(key(s.upperBound(o.a, o.b))).toEqual(ref.find((r) => cmp(r, q) > 0) ?? null);
          expect(key(s.predecessor(o.a, o.b))).toEqual([...ref].reverse().find((r) => cmp(r, q) < 0) ?? null);
          expect(s.size).toBe(ref.length);
        }
        expect(key(s.first())).toEqual(ref[0] ?? null);
        expect(key(s.last())).toEqual(ref[ref.length - 1] ?? null);
        const walk: [number, number][] = [];
        for (let n = s.first(); n >= 0; n = s.next(n)) {
          walk.push([s.a(n), s.b(n)]);
          expect(s.payload(n)).toBe(s.a(n) * 10 + s.b(n));
        }
        expect(walk).toEqual(ref);
      }),
      { numRuns: 200 },
    );
  });
});

describe('OrderedSet with thousands of elements (splits, empty leaves, a shrinking root)', () => {
  it('matches a sorted array through growth and shrinkage', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 200, max: 6000 }), (seed, n) => {
        const rnd = lcg(seed);
        const s = new OrderedSet(4);
        const ref = new Map<string, [number, number]>();
        const check = (): void => {
          const sorted = [...ref.values()].sort((p, q) => p[0] - q[0] || p[1] - q[1]);
          const walk: [number, number][] = [];
          s.forEach((a, b) => walk.push([a, b]));
          expect(walk).toEqual(sorted);
          expect(s.size).toBe(sorted.length);
          for (let k = 0; k < 20; k++) {
            const q: [number, number] = [rnd(n), rnd(4)];
            const lb = sorted.find((r) => r[0] > q[0] || (r[0] === q[0] && r[1] >= q[1])) ?? null;
            const c = s.lowerBound(q[0], q[1]);
            expect(c < 0 ? null : [s.a(c), s.b(c)]).toEqual(lb);
            const pr = [...sorted].reverse().find((r) => r[0] < q[0] || (r[0] === q[0] && r[1] < q[1])) ?? null;
            const p = s.predecessor(q[0], q[1]);
            expect(p < 0 ? null : [s.a(p), s.b(p)]).toEqual(pr);
          }
        };
        // Grow to about n elements, then shrink to a few, then grow again.
        for (const [target, rounds] of [[n, n * 2], [5, n * 2], [n / 2, n]] as const) {
          for (let k = 0; k < rounds; k++) {
            const a = rnd(n);
            const b = rnd(4);
            const key = `${a},${b}`;
            if (ref.size < target ? !ref.has(key) : false) {
              s.insert(a, b, a);
              ref.set(key, [a, b]);
            } else if (ref.size >= target && ref.size > 0) {
              const [ka, kb] = [...ref.values()][rnd(ref.size)] as [number, number];
              expect(s.remove(ka, kb)).toBe(true);
              ref.delete(`${ka},${kb}`);
            }
          }
          check();
        }
        expect(s.remove(-1, -1)).toBe(false);
      }),
      { numRuns: 12 },
    );
  });
});

describe('GapTree first fit agrees with a list of gaps', () => {
  it('takeFirstFit and release keep gaps merged and pick the lowest address that fits', () => {
    const SPACE = 1 << 16;
    const op = fc.record({ take: fc.boolean(), at: fc.integer({ min: -1, max: 60000 }), size: fc.integer({ min: 1, max: 4096 }), align: fc.constantFrom(1, 16, 256, 1024), pick: fc.nat() });
    // Small thresholds so that the array, the treap and the moves between them are all exercised.
    const shape = fc.constantFrom([128, 48], [4, 2], [8, 3]);
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), shape, (ops, [high, low]) => {
        const g = new GapTree(high, low);
        g.release(0, SPACE);
        const used = new Uint8Array(SPACE);
        const taken: [number, number][] = [];
        for (const o of ops) {
          if (o.at >= 0 && o.at % 3 === 0) {
            // takeAt: succeeds exactly when the whole range is free.
            let free = o.at + o.size <= SPACE;
            for (let k = o.at; free && k < o.at + o.size; k++) if (used[k]) free = false;
            expect(g.takeAt(o.at, o.size)).toBe(free);
            if (free) {
              used.fill(1, o.at, o.at + o.size);
              taken.push([o.at, o.size]);
            }
          } else if (o.take || taken.length === 0) {
            // Reference: the lowest aligned address with `size` free bytes.
            let want = -1;
            for (let a = 0; a + o.size <= SPACE; a += o.align) {
              let ok = true;
              for (let k = a; k < a + o.size; k++) if (used[k]) { ok = false; break; }
              if (ok) { want = a; break; }
            }
            const got = g.takeFirstFit(o.size, o.align);
            expect(got).toBe(want);
            if (got >= 0) {
              used.fill(1, got, got + o.size);
              taken.push([got, o.size]);
            }
          } else {
            const [blk] = taken.splice(o.pick % taken.length, 1) as [[number, number]];
            g.release(blk[0], blk[1]);
            used.fill(0, blk[0], blk[0] + blk[1]);
          }
        }
        // Gaps are maximal runs of free bytes, listed in order.
        const gaps: [number, number][] = [];
        g.forEach((s, l) => gaps.push([s, l]));
        const ref: [number, number][] = [];
        for (let k = 0; k < SPACE; ) {
          if (used[k]) { k++; continue; }
          let e = k;
          while (e < SPACE && !used[e]) e++;
          ref.push([k, e - k]);
          k = e;
        }
        expect(gaps).toEqual(ref);
        expect(g.largest).toBe(Math.max(0, ...ref.map((r) => r[1])));
      }),
      { numRuns: 100 },
    );
  });
});

describe('TimelineSampler', () => {
  it('keeps at most the asked number of points, the first and last events and the pinned peaks', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 5000 }), fc.integer({ min: 16, max: 200 }), (ys, max) => {
        const s = new TimelineSampler(max);
        ys.forEach((y, e) => s.add(e, y, y, y));
        const peak = ys.indexOf(Math.max(...ys));
        s.pin(0, ys[0]!, ys[0]!, ys[0]!);
        s.pin(peak, ys[peak]!, ys[peak]!, ys[peak]!);
        s.pin(ys.length - 1, ys[ys.length - 1]!, ys[ys.length - 1]!, ys[ys.length - 1]!);
        const pts = s.points();
        expect(pts.length).toBeLessThanOrEqual(max);
        expect(pts[0]![0]).toBe(0);
        expect(pts[pts.length - 1]![0]).toBe(ys.length - 1);
        expect(pts.some((p) => p[0] === peak)).toBe(true);
        for (const p of pts) expect(p[1]).toBe(ys[p[0]]);
        for (let k = 1; k < pts.length; k++) expect(pts[k]![0]).toBeGreaterThan(pts[k - 1]![0]);
      }),
      { numRuns: 100 },
    );
  });
  it('keeps, per bucket, the events of highest and lowest live bytes (events 0, 1, 2, … as a replay adds them)', () => {
    // Reference: each event's bucket by division, buckets halved (pairs merged) whenever they run out.
    const reference = (evs: [number, number][], max: number): [number, number, number, number][] => {
      const cap = Math.max(4, Math.floor((max - 6) / 2));
      let width = 1;
      let buckets: [number, number][][] = [];
      for (const [e, y] of evs) {
        while (Math.floor(e / width) >= cap) {
          const merged: [number, number][][] = [];
          for (let k = 0; k < buckets.length; k += 2) {
            const a = buckets[k]!;
            const b = buckets[k + 1];
            if (!b) merged.push(a);
            else merged.push([b[0]![1] > a[0]![1] ? b[0]! : a[0]!, b[1]![1] < a[1]![1] ? b[1]! : a[1]!]);
          }
          buckets = merged;
          width *= 2;
        }
        const k = Math.floor(e / width);
        const bucket = buckets[k];
        if (!bucket) {
          buckets.push([[e, y], [e, y]]);
          continue;
        }
        if (y > bucket[0]![1]) bucket[0] = [e, y];
        if (y < bucket[1]![1]) bucket[1] = [e, y];
      }
      const byEvent = new Map<number, [number, number, number, number]>();
      for (const b of buckets) for (const [e, y] of b) byEvent.set(e, [e, y, y, y]);
      return [...byEvent.values()].sort((x, y) => x[0] - y[0]);
    };
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 5000 }),
        fc.integer({ min: 16, max: 120 }),
        (ys, max) => {
          const evs = ys.map((y, e): [number, number] => [e, y]);
          const s = new TimelineSampler(max);
          for (const [ev, y] of evs) s.add(ev, y, y, y);
          expect(s.points()).toEqual(reference(evs, max));
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('OrderedSet.shift', () => {
  it('changes a pair in place only where searches still find every element, else changes nothing', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 100, max: 500 }), (seed, n) => {
        const rnd = lcg(seed);
        const s = new OrderedSet(4);
        const ref = new Map<string, [number, number]>();
        const sorted = (): [number, number][] => [...ref.values()].sort((p, q) => p[0] - q[0] || p[1] - q[1]);
        for (let k = 0; k < n * 2; k++) {
          const a = rnd(n * 4);
          const b = rnd(4);
          if (ref.has(`${a},${b}`)) {
            if (ref.size > 4 && rnd(3) === 0) {
              s.remove(a, b);
              ref.delete(`${a},${b}`);
            }
          } else {
            s.insert(a, b);
            ref.set(`${a},${b}`, [a, b]);
          }
        }
        let replaced = 0;
        for (let k = 0; k < n; k++) {
          const all = sorted();
          const [oa, ob] = all[rnd(all.length)] as [number, number];
          // A nearby new pair, often between the neighbours, sometimes past them.
          const na = oa + rnd(9) - 4;
          const nb = rnd(4);
          if (ref.has(`${na},${nb}`)) continue;
          const c = s.lowerBound(oa, ob);
          if (s.shift(c, na - oa, nb - ob)) {
            replaced++;
            ref.delete(`${oa},${ob}`);
            ref.set(`${na},${nb}`, [na, nb]);
          }
          const want = sorted();
          const walk: [number, number][] = [];
          s.forEach((a, b) => walk.push([a, b]));
          expect(walk).toEqual(want);
          // Every element is found by a search from the root.
          for (let j = 0; j < 5; j++) {
            const [qa, qb] = want[rnd(want.length)] as [number, number];
            expect(s.find(qa, qb)).toBeGreaterThanOrEqual(0);
            const p = s.predecessor(qa, qb);
            const i = want.findIndex((r) => r[0] === qa && r[1] === qb);
            expect(p < 0 ? null : [s.a(p), s.b(p)]).toEqual(i > 0 ? want[i - 1] : null);
          }
        }
        expect(replaced).toBeGreaterThan(0);
      }),
      { numRuns: 10 },
    );
  });
});

describe('OrderedSet.shift at the ends of the set', () => {
  it('grows the last pair and lowers the first in place, where no later or earlier leaf bounds them', () => {
    const s = new OrderedSet(4);
    // Several leaves: the first and the last pair lie in different ones.
    for (let k = 0; k < 300; k++) s.insert(10 * k + 5, 10 * k + 8);
    const last = s.last();
    expect([s.a(last), s.b(last)]).toEqual([2995, 2998]);
    expect(s.shift(last, -4, 2002)).toBe(true);
    expect(s.shift(s.first(), -4, 0)).toBe(true);
    const walk: [number, number][] = [];
    s.forEach((a, b) => walk.push([a, b]));
    expect(walk[0]).toEqual([1, 8]);
    expect(walk[walk.length - 1]).toEqual([2991, 5000]);
    expect(s.find(2991, 5000)).toBeGreaterThanOrEqual(0);
    expect(s.find(1, 8)).toBeGreaterThanOrEqual(0);
    // The last pair of the first leaf (cursors of one leaf follow each other) has a later leaf: it
    // may not grow past its own old value, even though its neighbour is far above.
    let c = s.first();
    while (s.next(c) === c + 1) c = s.next(c);
    expect(s.next(c)).toBeGreaterThanOrEqual(0);
    expect(s.shift(c, 1, 0)).toBe(false);
  });
});
