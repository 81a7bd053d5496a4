import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiveAddresses } from '../../src/trace/pytorch/live-addresses.js';

/** Addresses as a snapshot holds them: 0, the largest safe integer and its neighbours, and a few near each other. */
const address = fc.oneof(
  fc.constantFrom(0, 1, 2 ** 53 - 1, 2 ** 53 - 2, 2 ** 32, 2 ** 32 - 1),
  fc.integer({ min: 0, max: 64 }).map((k) => 0x7f0000000000 + k * 512),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
);
const op = fc.oneof(
  fc.record({ kind: fc.constant('alloc' as const), addr: address, a: fc.nat(1000) }),
  fc.record({ kind: fc.constant('free' as const), addr: address }),
  fc.record({ kind: fc.constant('get' as const), addr: address }),
  fc.record({ kind: fc.constant('expect' as const), n: fc.nat(5000) }),
);

describe('live addresses', () => {
  it('property: the live allocation and the count of allocations per address, as two Maps keep them, through growth (and room made ahead)', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 3000 }), fc.constantFrom(1, 600), (ops, expected) => {
        const t = new LiveAddresses(expected);
        const live = new Map<number, number>();
        const made = new Map<number, number>();
        for (const o of ops) {
          if (o.kind === 'alloc') {
            const i = t.slot(o.addr);
            expect(t.liveIn(i)).toBe(live.get(o.addr) ?? -1);
            expect(t.bump(i)).toBe(made.get(o.addr) ?? 0);
            made.set(o.addr, (made.get(o.addr) ?? 0) + 1);
            t.setLive(i, o.a);
            live.set(o.addr, o.a);
          } else if (o.kind === 'free') {
            const i = t.find(o.addr);
            expect(i >= 0).toBe(made.has(o.addr));
            if (i >= 0) {
              expect(t.madeIn(i)).toBe(made.get(o.addr));
              t.setLive(i, -1);
            }
            live.delete(o.addr);
          } else if (o.kind === 'expect') {
            t.expect(o.n);
          } else {
            expect(t.liveAt(o.addr)).toBe(live.get(o.addr) ?? -1);
          }
        }
        expect(t.liveCount).toBe(live.size);
      }),
      { numRuns: 100 },
    );
  });

  it('a hand-made history: ids count on after a free, and a free of an address never allocated finds nothing', () => {
    const t = new LiveAddresses();
    const A = 0x7f0000000000;
    let i = t.slot(A);
    expect(t.bump(i)).toBe(0);
    t.setLive(i, 7);
    expect(t.liveAt(A)).toBe(7);
    t.setLive(i, 8);
    expect(t.liveCount).toBe(1);
    t.setLive(t.find(A), -1);
    expect(t.liveAt(A)).toBe(-1);
    expect(t.liveCount).toBe(0);
    i = t.slot(A);
    expect(t.liveIn(i)).toBe(-1);
    expect(t.bump(i)).toBe(1);
    expect(t.madeIn(i)).toBe(2);
    expect(t.find(A + 512)).toBe(-1);
  });
});

describe('live addresses cleared for another pass', () => {
  it('property: keeps its addresses (and no other), nothing live and nothing made at any, and grows on as a new table does', () => {
    fc.assert(
      fc.property(fc.uniqueArray(address, { maxLength: 2000 }), fc.array(address, { maxLength: 300 }), fc.nat(600), (keys, more, room) => {
        const t = new LiveAddresses();
        for (const [j, k] of keys.entries()) {
          const i = t.slot(k);
          t.setLive(i, j % 3 === 0 ? -1 : j);
          if (j % 2 === 0) t.bump(i);
        }
        t.clear(room);
        expect(t.size).toBe(keys.length);
        expect(t.liveCount).toBe(0);
        for (const k of keys) {
          const i = t.find(k);
          expect(i).toBeGreaterThanOrEqual(0);
          expect(t.liveIn(i)).toBe(-1);
          expect(t.madeIn(i)).toBe(0);
        }
        const known = new Set(keys);
        for (const [j, k] of more.entries()) {
          if (!known.has(k)) expect(t.find(k)).toBe(-1);
          const i = t.slot(k);
          expect(t.bump(i)).toBe(more.slice(0, j).filter((x) => x === k).length);
          t.setLive(i, j);
          known.add(k);
        }
        expect(t.size).toBe(known.size);
        for (const k of keys) expect(t.find(k)).toBeGreaterThanOrEqual(0);
        for (const [j, k] of more.entries()) if (more.lastIndexOf(k) === j) expect(t.liveAt(k)).toBe(j);
      }),
      { numRuns: 100 },
    );
  });
});
