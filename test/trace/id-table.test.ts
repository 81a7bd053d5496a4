import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalId, IdTable, NOT_DECIMAL } from '../../src/trace/id-table.js';

const enc = new TextEncoder();

describe('id table', () => {
  it('decimalId takes plain decimal numbers below 2^31 only', () => {
    const v = (s: string): number => {
      const b = enc.encode(`<${s}>`);
      return decimalId(b, 1, b.length - 1);
    };
    expect([v('0'), v('7'), v('500127'), v('2147483647')]).toEqual([0, 7, 500127, 2147483647]);
    for (const s of ['', '00', '007', '-1', '+1', '1e3', '2147483648', '12345678901', ' 1', '1.0']) expect(v(s)).toBe(NOT_DECIMAL);
  });

  it('finds the latest allocation of every id, decimal or not, dense or sparse (fast-check against a Map)', () => {
    const id = fc.oneof(
      fc.integer({ min: 0, max: 5000 }).map(String),
      fc.tuple(fc.constantFrom('a', 'g', 'w', 'é', 'prefix9x'), fc.integer({ min: 0, max: 300 })).map(([p, n]) => `${p}${n}`),
      fc.integer({ min: 0, max: 2 ** 31 - 1 }).map(String),
      fc.constantFrom('007', 'w3', 'é', '', '2147483648'),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(id, { maxLength: 300 }), (ids) => {
        const t = new IdTable();
        const model = new Map<string, number>();
        ids.forEach((s) => {
          const b = enc.encode(s);
          expect(t.lookup(b, 0, b.length)).toBe(model.get(s) ?? -1);
          const a = t.insert(b, 0, b.length, decimalId(b, 0, b.length), true);
          model.set(s, a);
        });
        t.trim();
        expect(t.toArray()).toEqual(ids);
        for (const [s, a] of model) {
          const b = enc.encode(s);
          expect(t.lookup(b, 0, b.length)).toBe(a);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('ids numbered as allocated keep no index until one is not, through both paths (fast-check against a Map)', () => {
    // Mostly the next number (the identity), then a reuse, a jump, a prefix or text now and then.
    const step = fc.oneof(
      { weight: 8, arbitrary: fc.constant('next') },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 40 }).map(String) },
      { weight: 1, arbitrary: fc.constantFrom('w3', 'x', '100000') },
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), fc.boolean(), (steps, short) => {
        const t = new IdTable();
        const model = new Map<string, number>();
        let next = 0;
        for (const st of steps) {
          const s = st === 'next' ? String(next) : st;
          const b = enc.encode(s);
          const v = decimalId(b, 0, b.length);
          const latest = v >= 0 ? t.latestDecimal(v) : -2;
          // The short path's answer, when it gives one, is the lookup's.
          if (latest !== -2) expect(latest).toBe(model.get(s) ?? -1);
          expect(t.lookup(b, 0, b.length)).toBe(model.get(s) ?? -1);
          const a = short && latest !== -2 ? t.addDecimal(v) : t.insert(b, 0, b.length, v, true);
          expect(a).toBe(model.size === 0 ? 0 : Math.max(...model.values()) + 1);
          model.set(s, a);
          if (st === 'next') next = a + 1;
        }
        expect(t.toArray().length).toBe(Math.max(0, ...[...model.values()].map((a) => a + 1)));
        for (const [s, a] of model) {
          const b = enc.encode(s);
          expect(t.lookup(b, 0, b.length)).toBe(a);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps prefixed numbers as numbers while no number has two prefixes', () => {
    const t = new IdTable();
    const ids = ['a1', 'g2', 'a3', '4', 'w5', 'a1'];
    for (const s of ids) {
      const b = enc.encode(s);
      t.insert(b, 0, b.length);
    }
    const held = t.byteLength;
    expect(t.toArray()).toEqual(ids);
    expect(t.lookup(enc.encode('a1'), 0, 2)).toBe(5);
    expect(t.lookup(enc.encode('g1'), 0, 2)).toBe(-1);
    expect(t.lookup(enc.encode('1'), 0, 1)).toBe(-1);
    // g3 shares its number with a3: the table leaves number mode, and still finds every id.
    const g3 = enc.encode('g3');
    t.insert(g3, 0, 2);
    expect(t.byteLength).toBeGreaterThan(held);
    expect(t.toArray()).toEqual([...ids, 'g3']);
    for (const [s, a] of [['a1', 5], ['a3', 2], ['g3', 6], ['4', 3], ['w5', 4], ['g2', 1]] as const) expect(t.lookup(enc.encode(s), 0, s.length)).toBe(a);
    expect(t.lookup(enc.encode('3'), 0, 1)).toBe(-1);
  });

  it('keeps decimal ids as numbers until the first other id, then as bytes', () => {
    const t = new IdTable();
    for (let k = 0; k < 3000; k++) {
      const b = enc.encode(String(k));
      t.insert(b, 0, b.length);
    }
    const numbers = t.byteLength;
    const w = enc.encode('w0');
    t.insert(w, 0, w.length);
    expect(t.byteLength).toBeGreaterThan(numbers);
    expect(t.get(2999)).toBe('2999');
    expect(t.get(3000)).toBe('w0');
    expect(t.lookup(enc.encode('1234'), 0, 4)).toBe(1234);
  });

  it('finds ids added unindexed by appendNew, between and after ordinary ones, and after trim (fast-check against a Map)', () => {
    const step = fc.record({ fresh: fc.boolean(), n: fc.integer({ min: 0, max: 3000 }), lookupAfter: fc.boolean() });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 400 }), (steps) => {
        const t = new IdTable();
        const model = new Map<string, number>();
        let made = 0;
        steps.forEach((x) => {
          // appendNew only for ids never added (its contract); ordinary inserts may repeat one.
          const s = x.fresh ? `b${(made++).toString(16)}_0` : `b${x.n.toString(16)}_1`;
          const b = enc.encode(s);
          const a = x.fresh ? t.appendNew(b, 0, b.length) : t.insert(b, 0, b.length, NOT_DECIMAL);
          model.set(s, a);
          if (x.lookupAfter) expect(t.lookup(b, 0, b.length)).toBe(a);
        });
        t.trim();
        expect(t.length).toBe(steps.length);
        for (const [s, a] of model) {
          const b = enc.encode(s);
          expect(t.lookup(b, 0, b.length)).toBe(a);
          expect(t.get(a)).toBe(s);
        }
        const missing = enc.encode('b_none');
        expect(t.lookup(missing, 0, missing.length)).toBe(-1);
      }),
      { numRuns: 100 },
    );
  });
});
