/** Hand-computed cases: Extend (growth, doubling, back-off), garbage collection, region layout. */
import { describe, expect, it } from 'vitest';
import { FAILED } from '../../src/allocators/types.js';
import { replay } from '../../src/sim/run.js';
import { alloc, free, GiB, MiB, traceFromEvents } from '../helpers.js';
import { BASE, give, layout, makeBfc, must, off, take } from './util.js';

const regionSizes = (a: ReturnType<typeof makeBfc>): number[] => a.state().segments.map((s) => s.sizeBytes);

describe('bfc Extend', () => {
  it('without allow_growth, the first request reserves the whole limit (floored to 256)', () => {
    const a = makeBfc(GiB + 100);
    must(a, 1);
    expect(regionSizes(a)).toEqual([GiB]);
    // curr started at the limit rounded up (GiB + 256) and doubled after the region.
    expect(a.stats()).toMatchObject({ total_region_allocated_bytes: GiB, curr_region_allocation_bytes: 2 * (GiB + 256), bytes_limit: GiB + 100 });
  });

  it('with allow_growth, regions start at 2 MiB and double; a request that needs more grows without the extra doubling', () => {
    const a = makeBfc(GiB, { allowGrowth: true });
    must(a, MiB); // region 2 MiB, curr -> 4 MiB
    must(a, MiB); // the rest of region 1
    must(a, MiB); // region 4 MiB, curr -> 8 MiB
    must(a, 5 * MiB); // 3 MiB left in region 2: region 8 MiB, curr -> 16 MiB
    expect(a.stats().curr_region_allocation_bytes).toBe(16 * MiB);
    must(a, 40 * MiB); // 16 -> 32 -> 64 MiB to fit: region 64 MiB, and curr stays 64 MiB
    expect(regionSizes(a)).toEqual([2 * MiB, 4 * MiB, 8 * MiB, 64 * MiB]);
    expect(a.stats()).toMatchObject({ curr_region_allocation_bytes: 64 * MiB, total_region_allocated_bytes: 78 * MiB, regions: 4 });
    expect(a.deviceAllocCalls).toBe(4);
  });

  it('caps a region at what the limit leaves, and fails when even that is too small', () => {
    const a = makeBfc(100 * MiB, { allowGrowth: true });
    // Regions 2 + 4 + 8 + 64 = 78 MiB; 5 MiB and 40 MiB take their whole new regions (8 MiB is under
    // twice 5 MiB and the 3 MiB leftover under 128 MiB; likewise 64 MiB for 40 MiB).
    const hs = [MiB, MiB, MiB, 5 * MiB, 40 * MiB].map((n) => must(a, n));
    expect(hs.map((h) => a.blockBytes(h))).toEqual([MiB, MiB, MiB, 8 * MiB, 64 * MiB]);
    must(a, 20 * MiB); // curr is 64 MiB, but 22 MiB is all the limit leaves
    expect(regionSizes(a)).toEqual([2 * MiB, 4 * MiB, 8 * MiB, 64 * MiB, 22 * MiB]);
    expect(a.stats().curr_region_allocation_bytes).toBe(128 * MiB);
    expect(take(a, 4 * MiB)).toBe(FAILED); // 3 MiB free in region 2, nothing left under the limit
    must(a, 3 * MiB);
  });

  it('backs off by 0.9 in single precision when the device refuses the region', () => {
    // memory_limit 1 GiB on a device of 700 MiB: 1 GiB is refused, then 0.9x each step, rounded to 256.
    const a = makeBfc(GiB, { deviceCapacityBytes: 700 * MiB });
    must(a, 1024);
    // size_t -> float, float * 0.9f -> float, float -> size_t (truncating), then RoundedBytes, as TF computes it.
    const f32 = new Float32Array(1);
    const step = (b: number, single: boolean): number => {
      f32[0] = single ? Math.fround(b) * Math.fround(0.9) : 0;
      const next = single ? Math.trunc(f32[0]!) : Math.trunc(b * 0.9);
      return Math.ceil(next / 256) * 256;
    };
    const sizes = (single: boolean): number => {
      let b = GiB;
      do b = step(b, single);
      while (b > 700 * MiB);
      return b;
    };
    // 966367744, 869731072, 782758144 are refused; 704482304 fits. In double precision the last
    // step would give 704482560: the float arithmetic matters.
    expect(sizes(true)).toBe(704482304);
    expect(sizes(false)).toBe(704482560);
    expect(regionSizes(a)).toEqual([704482304]);
    expect(a.stats()).toMatchObject({ started_backpedal: true, curr_region_allocation_bytes: 2 * GiB, total_region_allocated_bytes: 704482304 });
    expect(a.deviceAllocCalls).toBe(1);
    expect(a.notes().join('\n')).toContain('backed off by 0.9 to 671.85MiB');
  });

  it('backs off only once per lifetime: a later refusal is an OOM even when a smaller region would fit', () => {
    // limit 1 GiB, device 800 MiB: the first region backs off to 782758144 B (746.5 MiB).
    const a = makeBfc(GiB, { deviceCapacityBytes: 800 * MiB });
    must(a, 1024);
    expect(regionSizes(a)).toEqual([782758144]);
    must(a, 740 * MiB); // takes the rest of the region (the 6.5 MiB leftover is not split off)
    // 10 MiB: the limit leaves 290983680 B, the device only 56102656 B, and no back-off this time.
    expect(take(a, 10 * MiB)).toBe(FAILED);
    expect(regionSizes(a)).toEqual([782758144]);
    const r = replay(traceFromEvents([alloc('a', 1024), alloc('b', 740 * MiB), alloc('c', 10 * MiB)]), {
      allocator: 'bfc',
      capacityBytes: 800 * MiB,
      options: { memory_limit: '1GiB' },
    });
    expect(r.report.ooms[0]).toMatchObject({ event: 2, kind: 'fragmentation', reservedBytes: 782758144 });
  });
});

describe('bfc garbage collection', () => {
  /** allow_growth under a 10 MiB limit: region 1 (2 MiB) emptied, region 2 (4 MiB) taken whole by 3 MiB. */
  function twoRegions(gc: boolean) {
    const a = makeBfc(10 * MiB, { allowGrowth: true, garbageCollection: gc });
    const x = must(a, MiB);
    must(a, 3 * MiB);
    give(a, x);
    return a;
  }

  it('returns empty regions to the device before an OOM, then extends', () => {
    const a = twoRegions(true);
    expect(regionSizes(a)).toEqual([2 * MiB, 4 * MiB]);
    const h = must(a, 6 * MiB); // the limit leaves 4 MiB; with region 1 gone, 6 MiB
    expect(regionSizes(a)).toEqual([4 * MiB, 6 * MiB]);
    // Region 1's 2 MiB hole at the base is too small for 6 MiB: the device places it after region 2.
    expect(off(a, h)).toBe(6 * MiB);
    expect([a.deviceAllocCalls, a.deviceFreeCalls]).toEqual([3, 1]);
    expect(a.stats()).toMatchObject({ total_region_allocated_bytes: 10 * MiB, curr_region_allocation_bytes: 16 * MiB, garbage_collections: 1 });
    expect(a.notes().join('\n')).toContain('garbage collection returned 1 empty region(s) (2.00MiB)');
  });

  it('keeps the regions when freeing them could not make room', () => {
    const a = twoRegions(true);
    expect(take(a, 7 * MiB)).toBe(FAILED); // 4 MiB + 2 MiB < 7 MiB
    expect(regionSizes(a)).toEqual([2 * MiB, 4 * MiB]);
    expect(a.deviceFreeCalls).toBe(0);
  });

  it('is an OOM with garbage_collection=false', () => {
    const a = twoRegions(false);
    expect(take(a, 6 * MiB)).toBe(FAILED);
    expect(a.deviceFreeCalls).toBe(0);
  });

  it('recycles the chunk handles of the freed regions, last one first', () => {
    const a = twoRegions(true);
    must(a, 6 * MiB);
    // Freeing x released handle 1 (merged into x); garbage collection then released handle 0 (all of
    // region 1) on top of it: the new region's chunk takes handle 0, and the 6 MiB block is that chunk.
    expect(a.state().segments[1]!.blocks.map((b) => b.sizeBytes)).toEqual([6 * MiB]);
    expect(a.address(0)).toBe(BASE + 6 * MiB);
  });
});

describe('bfc regions: separate (default) and contiguous (coalesce_regions)', () => {
  it('separate regions never merge; contiguous ones extend the region and merge with its free tail', () => {
    const run = (coalesce: boolean) => {
      const a = makeBfc(GiB, { allowGrowth: true, coalesceRegions: coalesce });
      must(a, MiB); // region 1: 2 MiB, the second MiB free
      const h = must(a, 2 * MiB); // a new 4 MiB region right after region 1
      return { a, h };
    };
    const sep = run(false);
    expect(off(sep.a, sep.h)).toBe(2 * MiB);
    expect(layout(sep.a)).toEqual([
      [[0, MiB, false], [MiB, MiB, true]],
      [[2 * MiB, 2 * MiB, false], [4 * MiB, 2 * MiB, true]],
    ]);
    const con = run(true);
    // The new memory joins region 1 and merges with its free last MiB: the block starts at 1 MiB.
    expect(off(con.a, con.h)).toBe(MiB);
    expect(layout(con.a)).toEqual([[[0, MiB, false], [MiB, 2 * MiB, false], [3 * MiB, 3 * MiB, true]]]);
    expect(con.a.stats().regions).toBe(1);
  });

  it('frees coalesce across the old region boundary only with coalesce_regions', () => {
    const run = (coalesce: boolean) => {
      const a = makeBfc(GiB, { allowGrowth: true, coalesceRegions: coalesce });
      const x = must(a, 2 * MiB); // all of region 1
      const y = must(a, 4 * MiB); // all of region 2
      give(a, x);
      give(a, y);
      return a;
    };
    expect(layout(run(false))).toEqual([[[0, 2 * MiB, true]], [[2 * MiB, 4 * MiB, true]]]);
    const con = run(true);
    expect(layout(con)).toEqual([[[0, 6 * MiB, true]]]);
    expect(off(con, must(con, 5 * MiB))).toBe(0);
  });
});

describe('bfc through replay', () => {
  it('reports reserved = total_region_allocated_bytes, allocated = bytes_in_use, device calls = regions', () => {
    const t = traceFromEvents([alloc('a', MiB), alloc('b', 3 * MiB), free('a'), alloc('c', 6 * MiB), free('b'), free('c')]);
    const r = replay(t, { allocator: 'bfc', capacityBytes: 10 * MiB, options: { allow_growth: 'true' } });
    // a: 1 MiB of a 2 MiB region; b: a whole 4 MiB region (no split: 4 < 6, 1 MiB leftover); c: 6 MiB
    // only after garbage collection frees the first region.
    expect(r.report.summary).toMatchObject({
      peakReservedBytes: 10 * MiB,
      peakAllocatedBytes: 10 * MiB,
      finalAllocatedBytes: 0,
      finalReservedBytes: 10 * MiB,
      deviceAllocCalls: 3,
      deviceFreeCalls: 1,
    });
    expect(r.report.allocator.stats).toMatchObject({ num_allocs: 3, peak_bytes_in_use: 10 * MiB, bytes_limit: 10 * MiB, regions: 2 });
  });

  it('assumes an 80 GiB limit without a capacity, and says so', () => {
    const r = replay(traceFromEvents([alloc('a', MiB)]), { allocator: 'bfc' });
    expect(r.report.summary.peakReservedBytes).toBe(80 * GiB);
    expect(r.report.allocator.stats).toMatchObject({ bytes_limit: 80 * GiB });
    expect(r.report.notes.join('\n')).toContain('no capacity given: bfc assumed a memory limit of 80.00 GiB');
    const grow = replay(traceFromEvents([alloc('a', MiB)]), { allocator: 'bfc', options: { allow_growth: true } });
    expect(grow.report.summary.peakReservedBytes).toBe(2 * MiB);
  });
});
