/** Hand-computed cases: when BFC splits a chunk, and how it coalesces on free. */
import { describe, expect, it } from 'vitest';
import { NO_BLOCK } from '../../src/allocators/types.js';
import { GiB, KiB, MiB } from '../helpers.js';
import { give, layout, makeBfc, must, off } from './util.js';

/** A free chunk of `bytes` at offset 0, kept apart from the rest of the 1 GiB region by a guard. */
function freeChunkAtStart(bytes: number, fraction = 0) {
  const a = makeBfc(GiB, { fragmentationFraction: fraction });
  const h = must(a, bytes);
  must(a, 256);
  give(a, h);
  return a;
}

describe('bfc splitting', () => {
  it('splits when the chunk is at least twice the rounded request', () => {
    const a = freeChunkAtStart(1024);
    const h = must(a, 512); // 1024 >= 2 * 512
    expect([off(a, h), a.blockBytes(h)]).toEqual([0, 512]);
    expect(layout(a)[0]!.slice(0, 3)).toEqual([[0, 512, false], [512, 512, true], [1024, 256, false]]);
  });

  it('hands out the whole chunk below twice the request (small leftover): internal fragmentation', () => {
    const a = freeChunkAtStart(1024);
    const h = must(a, 513); // rounded 768: 1024 < 1536 and the 256 B leftover < 128 MiB
    expect([off(a, h), a.blockBytes(h)]).toEqual([0, 1024]);
    expect(a.stats()).toMatchObject({ bytes_in_use: 1024 + 256, largest_alloc_size: 1024 });
  });

  it('splits when the leftover reaches 128 MiB even below twice the request', () => {
    const a = freeChunkAtStart(300 * MiB);
    expect(a.blockBytes(must(a, 172 * MiB))).toBe(172 * MiB); // leftover exactly 128 MiB: split
    const b = freeChunkAtStart(300 * MiB);
    expect(b.blockBytes(must(b, 173 * MiB))).toBe(300 * MiB); // leftover 127 MiB: no split
    const c = freeChunkAtStart(300 * MiB);
    expect(c.blockBytes(must(c, 172 * MiB + 1))).toBe(300 * MiB); // rounded up past the line
  });

  it('uses fragmentation_fraction of the limit as the leftover threshold when it is set', () => {
    // 0.01 of 1 GiB = 10737418 B (truncated to an integer, as the int64 in FindChunkPtr).
    const a = freeChunkAtStart(300 * MiB, 0.01);
    expect(a.blockBytes(must(a, 290 * MiB))).toBe(300 * MiB); // 10 MiB leftover = 10485760 < 10737418: no split
    const b = freeChunkAtStart(300 * MiB, 0.01);
    expect(b.blockBytes(must(b, 289 * MiB))).toBe(289 * MiB); // 11 MiB leftover >= 10737418: split
    const c = freeChunkAtStart(300 * MiB, 0.5);
    expect(c.blockBytes(must(c, 170 * MiB))).toBe(300 * MiB); // 130 MiB < 512 MiB: no split (default would)
  });

  it('takes the smallest fitting chunk across bins, the lowest address among equal sizes', () => {
    const a = makeBfc(GiB);
    const hs = [4 * KiB, 256, 2 * KiB, 256, 2 * KiB, 256, 64 * KiB, 256].map((n) => must(a, n));
    for (const i of [0, 2, 4, 6]) give(a, hs[i]!); // free 4 KiB @0, 2 KiB @4352, 2 KiB @6656, 64 KiB @8960
    expect(off(a, must(a, 1500))).toBe(4352); // 2 KiB is the best fit; of the two, the lower address
    expect(off(a, must(a, 2048))).toBe(6656);
    expect(off(a, must(a, 3 * KiB))).toBe(0); // bin 3 has 4 KiB; the 64 KiB of bin 8 is larger
    expect(off(a, must(a, 5 * KiB))).toBe(8960);
  });

  it('serves a 0-byte request with no block and changes nothing', () => {
    const a = makeBfc(GiB);
    expect(a.allocate(0, 0, 0, 0)).toBe(NO_BLOCK);
    expect(a.stats()).toMatchObject({ num_allocs: 0, total_region_allocated_bytes: 0, regions: 0 });
  });
});

describe('bfc coalescing on free', () => {
  it('merges with the next chunk, with the previous one, and with both', () => {
    const a = makeBfc(MiB);
    const [x, y, z] = [KiB, KiB, KiB].map((n) => must(a, n)) as [number, number, number];
    const rest = MiB - 3 * KiB;
    give(a, z); // next is the free rest: z absorbs it
    expect(layout(a)[0]).toEqual([[0, KiB, false], [KiB, KiB, false], [2 * KiB, KiB + rest, true]]);
    give(a, x); // both neighbours taken: x stays alone
    expect(layout(a)[0]).toEqual([[0, KiB, true], [KiB, KiB, false], [2 * KiB, KiB + rest, true]]);
    give(a, y); // next free, then previous free: one chunk again
    expect(layout(a)[0]).toEqual([[0, MiB, true]]);
    expect(a.stats()).toMatchObject({ bytes_in_use: 0, fragmentation_metric: 0 });
  });

  it('merges into the previous chunk only', () => {
    const a = makeBfc(MiB);
    const [x, y] = [KiB, KiB, KiB].map((n) => must(a, n)) as [number, number, number];
    give(a, x);
    give(a, y); // previous free, next (the third) in use
    expect(layout(a)[0]!.slice(0, 2)).toEqual([[0, 2 * KiB, true], [2 * KiB, KiB, false]]);
    // The fragmentation metric: free 2 KiB + the rest; the largest free chunk is the rest.
    const free = MiB - KiB;
    const rest = MiB - 3 * KiB;
    expect(a.stats().fragmentation_metric).toBeCloseTo((free - rest) / free, 12);
  });
});
