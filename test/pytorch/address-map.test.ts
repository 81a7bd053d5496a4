import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AddressMap } from '../../src/trace/pytorch/address-map.js';

/** Addresses as a snapshot holds them: 0, the largest safe integer and its neighbours, and a few near each other. */
const address = fc.oneof(
  fc.constantFrom(0, 1, 2 ** 53 - 1, 2 ** 53 - 2, 2 ** 32, 2 ** 32 - 1),
  fc.integer({ min: 0, max: 64 }).map((k) => 0x7f0000000000 + k * 512),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
);
const op = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), addr: address, value: fc.nat(1000) }),
  fc.record({ kind: fc.constant('increment' as const), addr: address }),
  fc.record({ kind: fc.constant('exchange' as const), addr: address, value: fc.nat(1000) }),
  fc.record({ kind: fc.constant('delete' as const), addr: address }),
  fc.record({ kind: fc.constant('get' as const), addr: address }),
);

describe('address map', () => {
  it('property: answers as a Map does, through growth and deletion, for any safe address including 0', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 3000 }), fc.constantFrom(1, 600), (ops, expected) => {
        const m = new AddressMap(expected);
        const model = new Map<number, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            m.set(o.addr, o.value);
            model.set(o.addr, o.value);
          } else if (o.kind === 'increment') {
            const v = model.get(o.addr) ?? 0;
            expect(m.increment(o.addr)).toBe(v);
            model.set(o.addr, v + 1);
          } else if (o.kind === 'exchange') {
            expect(m.exchange(o.addr, o.value)).toBe(model.get(o.addr) ?? -1);
            model.set(o.addr, o.value);
          } else if (o.kind === 'delete') {
            m.delete(o.addr);
            model.delete(o.addr);
          } else {
            expect(m.get(o.addr)).toBe(model.get(o.addr) ?? -1);
          }
          expect(m.size).toBe(model.size);
        }
        for (const [k, v] of model) expect(m.get(k)).toBe(v);
        const keys: number[] = [];
        m.forEachKey((k) => keys.push(k));
        expect(keys.sort((a, b) => a - b)).toEqual([...model.keys()].sort((a, b) => a - b));
      }),
      { numRuns: 150 },
    );
  });

  it('holds address 0 apart from an empty slot, and the largest safe address apart from its neighbour', () => {
    const m = new AddressMap();
    expect(m.get(0)).toBe(-1);
    m.set(0, 0);
    m.set(2 ** 53 - 1, 7);
    expect(m.get(0)).toBe(0);
    expect(m.get(2 ** 53 - 1)).toBe(7);
    expect(m.get(2 ** 53 - 2)).toBe(-1);
    expect(m.increment(0)).toBe(0);
    expect(m.get(0)).toBe(1);
    m.delete(0);
    expect(m.get(0)).toBe(-1);
    expect(m.size).toBe(1);
  });
});
