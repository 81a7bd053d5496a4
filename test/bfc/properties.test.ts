/** Invariants over random request sequences, and agreement with a slow reference model. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkBfc } from '../../src/allocators/bfc/index.js';
import { FAILED } from '../../src/allocators/types.js';
import { KiB, MiB } from '../helpers.js';
import { BASE, makeBfc } from './util.js';

/** A request: allocate `size`, or free the live block number `pick` (modulo the live count). */
const opsArb = fc.array(
  fc.record({
    free: fc.boolean(),
    pick: fc.nat(),
    size: fc.oneof(fc.integer({ min: 1, max: 2 * KiB }), fc.integer({ min: 1, max: 512 * KiB }), fc.integer({ min: 1, max: 24 * MiB })),
  }),
  { minLength: 1, maxLength: 250 },
);

const settingsArb = fc.record({
  limit: fc.constantFrom(8 * MiB, 32 * MiB, 64 * MiB + 100, 200 * MiB),
  allowGrowth: fc.boolean(),
  garbageCollection: fc.boolean(),
  coalesceRegions: fc.boolean(),
  fragmentationFraction: fc.constantFrom(0, 0, 0.001, 0.05),
  // Sometimes the device is smaller than the memory limit, so that Extend backs off.
  deviceShare: fc.constantFrom(1, 1, 0.7),
});

describe('bfc invariants (fast-check)', () => {
  it('chunks tile regions, no adjacent free chunks, bins match sizes, stats match the chunks', () => {
    fc.assert(
      fc.property(opsArb, settingsArb, (ops, s) => {
        const a = makeBfc(s.limit, { ...s, deviceCapacityBytes: Math.floor(s.limit * s.deviceShare) });
        const live: number[] = [];
        let numAllocs = 0;
        let peak = 0;
        ops.forEach((o, i) => {
          if (o.free && live.length > 0) {
            a.free(live.splice(o.pick % live.length, 1)[0]!);
          } else {
            const h = a.allocate(o.size, 0, 0, i);
            if (h !== FAILED) {
              live.push(h);
              numAllocs++;
            } else {
              expect(a.lastFailure().native).toContain('ran out of memory');
            }
          }
          const broken = checkBfc(a);
          if (broken) throw new Error(`after request ${i}: ${broken}`);
          peak = Math.max(peak, a.bytesInUse);
          // state() agrees with the stats: in-use blocks sum to bytes_in_use, regions to the total.
          const st = a.state();
          let used = 0;
          let total = 0;
          for (const seg of st.segments) {
            total += seg.sizeBytes;
            for (const b of seg.blocks) if (!b.isFree) used += b.sizeBytes;
          }
          expect(used).toBe(a.stats().bytes_in_use);
          expect(total).toBe(a.reservedBytes);
          expect(a.reservedBytes).toBeLessThanOrEqual(s.limit);
          expect(a.device.usedBytes).toBe(a.reservedBytes);
        });
        expect(a.stats()).toMatchObject({ num_allocs: numAllocs, peak_bytes_in_use: peak });
        for (const h of live) a.free(h);
        expect(checkBfc(a)).toBeNull();
        expect(a.bytesInUse).toBe(0);
        // Everything free: one free chunk per region.
        for (const seg of a.state().segments) expect(seg.blocks.map((b) => b.isFree)).toEqual([true]);
      }),
      { numRuns: 200 },
    );
  });
});

/**
 * BFC inside one region in the plainest terms: chunks as an address-ordered list; a request takes the
 * free chunk that is smallest, then lowest, among those large enough; split at 2x or a 128 MiB
 * leftover; a free merges with free neighbours.
 */
class Reference {
  chunks: { at: number; size: number; free: boolean }[];
  constructor(regionBytes: number) {
    this.chunks = [{ at: 0, size: regionBytes, free: true }];
  }
  alloc(n: number): { at: number; size: number } | null {
    const r = Math.ceil(n / 256) * 256;
    let best = -1;
    this.chunks.forEach((c, i) => {
      const b = this.chunks[best];
      if (c.free && c.size >= r && (!b || c.size < b.size || (c.size === b.size && c.at < b.at))) best = i;
    });
    const c = this.chunks[best];
    if (!c) return null;
    if (c.size >= 2 * r || c.size - r >= 128 * MiB) {
      this.chunks.splice(best + 1, 0, { at: c.at + r, size: c.size - r, free: true });
      c.size = r;
    }
    c.free = false;
    return { at: c.at, size: c.size };
  }
  free(at: number): void {
    const i = this.chunks.findIndex((c) => c.at === at);
    this.chunks[i]!.free = true;
    const next = this.chunks[i + 1];
    if (next?.free) {
      this.chunks[i]!.size += next.size;
      this.chunks.splice(i + 1, 1);
    }
    const prev = this.chunks[i - 1];
    if (prev?.free) {
      prev.size += this.chunks[i]!.size;
      this.chunks.splice(i, 1);
    }
  }
}

describe('bfc agrees with a slow reference model (one region)', () => {
  it('same addresses and block sizes for every request', () => {
    fc.assert(
      fc.property(opsArb, fc.constantFrom(16 * MiB, 300 * MiB), (ops, limit) => {
        const a = makeBfc(limit, { garbageCollection: false });
        const ref = new Reference(limit);
        const live: number[] = [];
        for (const o of ops) {
          if (o.free && live.length > 0) {
            const h = live.splice(o.pick % live.length, 1)[0]!;
            ref.free(a.address(h) - BASE);
            a.free(h);
          } else {
            const h = a.allocate(o.size, 0, 0, 0);
            const want = ref.alloc(o.size);
            if (want === null) {
              expect(h).toBe(FAILED);
            } else {
              expect([a.address(h) - BASE, a.blockBytes(h)]).toEqual([want.at, want.size]);
              live.push(h);
            }
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
