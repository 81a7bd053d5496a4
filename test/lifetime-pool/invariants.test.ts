import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getAllocator, resolveOptions } from '../../src/allocators/index.js';
import { FAILED, NO_BLOCK, type OnlineAllocator } from '../../src/allocators/types.js';
import { KiB, traceFromEvents } from '../helpers.js';

/** One request of a step's pattern: its size and when it is freed (after how many later allocs). */
const request = fc.record({
  size: fc.oneof(fc.integer({ min: 0, max: 40 * KiB }), fc.integer({ min: 32 * KiB, max: 300 * KiB }), fc.constantFrom(36 * KiB - 64, 40 * KiB - 64, 33 * 1024 * KiB)),
  holdFor: fc.integer({ min: 0, max: 4 }),
});

/** A training-like run: one pattern repeated, some steps perturbed, some lifetimes crossing steps. */
const scenario = fc.record({
  pattern: fc.array(request, { minLength: 1, maxLength: 8 }),
  steps: fc.integer({ min: 1, max: 12 }),
  perturbed: fc.array(fc.tuple(fc.nat(11), fc.nat(7), fc.integer({ min: 33 * KiB, max: 100 * KiB })), { maxLength: 4 }),
  crossing: fc.array(fc.tuple(fc.nat(11), fc.integer({ min: 1, max: 200 * KiB })), { maxLength: 3 }),
  start_step: fc.integer({ min: 0, max: 4 }),
  stable_steps: fc.integer({ min: 0, max: 2 }),
  max_steps: fc.integer({ min: 0, max: 6 }),
});

type Ev = { op: 'alloc' | 'free'; id: string; size?: number; step: number };

function build(s: { pattern: { size: number; holdFor: number }[]; steps: number; perturbed: [number, number, number][]; crossing: [number, number][] }): Ev[] {
  const out: Ev[] = [];
  const carried: string[] = [];
  for (let step = 0; step < s.steps; step++) {
    for (const id of carried.splice(0)) out.push({ op: 'free', id, step });
    const pending: { id: string; at: number }[] = [];
    s.pattern.forEach((r, k) => {
      const p = s.perturbed.find(([st, idx]) => st === step && idx === k);
      const id = `r${k}@${step}`;
      out.push({ op: 'alloc', id, size: p ? p[2] : r.size, step });
      pending.push({ id, at: k + r.holdFor });
      for (const q of pending.filter((x) => x.at <= k)) out.push({ op: 'free', id: q.id, step });
      pending.splice(0, pending.length, ...pending.filter((x) => x.at > k));
    });
    for (const q of pending) out.push({ op: 'free', id: q.id, step });
    for (const [st, size] of s.crossing) {
      if (st !== step) continue;
      const id = `c${out.length}`;
      out.push({ op: 'alloc', id, size, step });
      carried.push(id);
    }
  }
  const last = s.steps;
  for (const id of carried) out.push({ op: 'free', id, step: last });
  return out;
}

describe('lifetime-pool invariants', () => {
  it('never overlaps live blocks, keeps allocated <= reserved, and gets everything back', () => {
    // How many runs reached the pools, so that the property is known to cover them.
    const seen = { built: 0, hits: 0, borrowed: 0, misses: 0 };
    fc.assert(
      fc.property(scenario, (s) => {
        const evs = build(s);
        const trace = traceFromEvents(evs);
        const def = getAllocator('lifetime-pool');
        const opts = resolveOptions(def, { start_step: s.start_step, stable_steps: s.stable_steps, max_steps: s.max_steps }).values;
        const a: OnlineAllocator = def.create(opts as never, { capacityBytes: Infinity, trace });
        const handle = new Map<string, number>();
        const live = new Map<string, [number, number]>();
        evs.forEach((e, i) => {
          if (e.op === 'alloc') {
            const h = a.allocate(e.size as number, 0, e.step, i);
            expect(h).not.toBe(FAILED);
            handle.set(e.id, h);
            if (h === NO_BLOCK) return;
            const start = a.address(h);
            const end = start + a.blockBytes(h);
            expect(a.blockBytes(h)).toBeGreaterThanOrEqual(e.size as number);
            for (const [s0, e0] of live.values()) expect(end <= s0 || start >= e0).toBe(true);
            live.set(e.id, [start, end]);
          } else {
            const h = handle.get(e.id) as number;
            if (h !== NO_BLOCK) {
              const before = a.allocatedBytes;
              const bytes = a.blockBytes(h);
              a.free(h, e.step, i);
              expect(before - a.allocatedBytes).toBe(bytes);
            }
            live.delete(e.id);
          }
          expect(a.allocatedBytes).toBeLessThanOrEqual(a.reservedBytes);
          expect(a.largestFreeBlockBytes()).toBeLessThanOrEqual(a.reservedBytes - a.allocatedBytes);
        });
        a.finish?.(evs.length - 1);
        const st = a.stats();
        const built = (st.poolsBuiltAfterStep as number | null) ?? Infinity;
        const bigAfterBuild = evs.filter((e) => e.op === 'alloc' && e.step > built && (e.size as number) > 32 * KiB).length;
        expect(a.allocatedBytes).toBe(0);
        expect(a.reservedBytes).toBe(st.poolBytes);
        expect(a.freeBlockCount()).toBe(st.blocks);
        expect((st.hits as number) + (st.misses as number)).toBe(bigAfterBuild);
        // What is left on the device is exactly the pools, one segment per bin with blocks.
        const segs = a.state().segments;
        expect(segs.every((g) => g.kind === 'pool' && g.blocks.every((b) => b.isFree))).toBe(true);
        expect(segs.length).toBe(st.bins);
        expect(segs.reduce((n, g) => n + g.sizeBytes, 0)).toBe(st.poolBytes);
        // One device call per planned bin (zero bytes for a bin without chunks of its own), none freed.
        expect(a.deviceAllocCalls - a.deviceFreeCalls).toBe(st.poolCalls);
        expect(st.poolCalls as number).toBeGreaterThanOrEqual(st.bins as number);
        if (st.phase === 'built') seen.built++;
        if ((st.hits as number) > 0) seen.hits++;
        if ((st.borrowedHits as number) > 0) seen.borrowed++;
        if ((st.misses as number) > 0) seen.misses++;
      }),
      { numRuns: 250 },
    );
    expect(seen.built).toBeGreaterThan(50);
    expect(Math.min(seen.hits, seen.borrowed, seen.misses)).toBeGreaterThan(5);
  });

  it('stays within a device capacity: failed requests are results, reserved never exceeds it', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 40 * KiB, max: 2048 * KiB }), (s, capacityBytes) => {
        const evs = build(s);
        const trace = traceFromEvents(evs);
        const def = getAllocator('lifetime-pool');
        const opts = resolveOptions(def, { start_step: s.start_step, stable_steps: s.stable_steps, max_steps: s.max_steps }).values;
        const a: OnlineAllocator = def.create(opts as never, { capacityBytes, trace });
        const handle = new Map<string, number>();
        const live = new Map<string, [number, number]>();
        evs.forEach((e, i) => {
          if (e.op === 'alloc') {
            const h = a.allocate(e.size as number, 0, e.step, i);
            handle.set(e.id, h);
            if (h === FAILED) expect(a.lastFailure().native).toMatch(/^cudaMalloc\(\d+\) failed: cudaErrorMemoryAllocation: out of memory$/);
            if (h < 0) return;
            const start = a.address(h);
            const end = start + a.blockBytes(h);
            for (const [s0, e0] of live.values()) expect(end <= s0 || start >= e0).toBe(true);
            live.set(e.id, [start, end]);
          } else {
            const h = handle.get(e.id) as number;
            if (h >= 0) a.free(h, e.step, i);
            live.delete(e.id);
          }
          expect(a.allocatedBytes).toBeLessThanOrEqual(a.reservedBytes);
          expect(a.reservedBytes).toBeLessThanOrEqual(capacityBytes);
        });
        a.finish?.(evs.length - 1);
        expect(a.allocatedBytes).toBe(0);
        expect(a.reservedBytes).toBe(a.stats().poolBytes);
      }),
      { numRuns: 150 },
    );
  });
});
