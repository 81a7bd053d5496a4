import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GapTree } from '../../src/util/gap-tree.js';
import { OrderedSet } from '../../src/util/ordered-set.js';
import { TimelineSampler } from '../../src/sim/timeline.js';

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

describe('GapTree first fit agrees with a list of gaps', () => {
  it('takeFirstFit and release keep gaps merged and pick the lowest address that fits', () => {
    const SPACE = 1 << 16;
    const op = fc.record({ take: fc.boolean(), size: fc.integer({ min: 1, max: 4096 }), align: fc.constantFrom(1, 16, 256, 1024), pick: fc.nat() });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const g = new GapTree(4);
        g.release(0, SPACE);
        const used = new Uint8Array(SPACE);
        const taken: [number, number][] = [];
        for (const o of ops) {
          if (o.take || taken.length === 0) {
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
});
