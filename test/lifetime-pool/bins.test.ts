import { describe, expect, it } from 'vitest';
import { binIndex, chunkBytes, lifetimesOverlap, regularBinCount } from '../../src/allocators/lifetime-pool/bins.js';
import { MemoryPlanner } from '../../src/allocators/lifetime-pool/planner.js';
import { LifetimePolicy, PlanBlock, type StepLifetimes } from '../../src/allocators/lifetime-pool/policy.js';
import { KiB, MiB } from '../helpers.js';

/** A step of lifetimes [begin, end] with tracked sizes in KiB, in recorded (free) order. */
function lifetimes(list: readonly [number, number, number][]): StepLifetimes {
  return {
    begin: Int32Array.from(list.map((l) => l[0])),
    end: Int32Array.from(list.map((l) => l[1])),
    totalBytes: Float64Array.from(list.map((l) => l[2] * KiB)),
    count: list.length,
  };
}

describe('lifetime-pool bins', () => {
  it('maps sizes to bins with DeepRec formulas for the 4, 8 and 16 KiB intervals', () => {
    // 32 KiB + 1 rounds up to 36 / 40 / 48 KiB: bin 0 of every policy.
    expect([4, 8, 16].map((a) => binIndex(32 * KiB + 1, a * KiB))).toEqual([0, 0, 0]);
    expect([4, 8, 16].map((a) => chunkBytes(0, a * KiB))).toEqual([36 * KiB, 40 * KiB, 48 * KiB]);
    // 100 KiB: 4 KiB -> (100-32)/4-1 = 16; 8 KiB -> aligned 104, (104-32)/8-1 = 8; 16 KiB -> aligned 112, 4.
    expect([4, 8, 16].map((a) => binIndex(100 * KiB, a * KiB))).toEqual([16, 8, 4]);
    expect(chunkBytes(8, 8 * KiB)).toBe(104 * KiB);
    expect(binIndex(32 * KiB, 4 * KiB)).toBe(-1);
  });

  it('has 8184 / 4092 / 2046 regular bins up to 32 MiB and large bins beyond', () => {
    expect([4, 8, 16].map((a) => regularBinCount(a * KiB))).toEqual([8184, 4092, 2046]);
    expect(binIndex(32 * MiB, 4 * KiB)).toBe(8183);
    expect(chunkBytes(8183, 4 * KiB)).toBe(32 * MiB);
    // 40 MiB + 64: aligned 40 MiB + 4 KiB, a large bin whose chunk is exactly that.
    const i = binIndex(40 * MiB + 64, 4 * KiB);
    expect(i).toBe(10232);
    expect(chunkBytes(i, 4 * KiB)).toBe(40 * MiB + 4 * KiB);
  });

  it('treats lifetimes as closed intervals: equal endpoints overlap', () => {
    expect(lifetimesOverlap(0, 5, 5, 9)).toBe(true);
    expect(lifetimesOverlap(5, 9, 0, 5)).toBe(true);
    expect(lifetimesOverlap(0, 5, 6, 9)).toBe(false);
    expect(lifetimesOverlap(2, 3, 0, 9)).toBe(true);
    const b = new PlanBlock(0);
    b.insert(10, 20);
    b.insert(0, 5);
    expect(b.canInsert(5, 9)).toBe(false);
    expect(b.canInsert(6, 9)).toBe(true);
    expect(b.canInsert(21, 30)).toBe(true);
    expect(b.canInsert(9, 10)).toBe(false);
    expect(b.canInsert(3, 25)).toBe(false);
  });
});

describe('lifetime-pool packing (LifetimePolicy.bestFit)', () => {
  it('puts lifetimes that share an endpoint in separate blocks', () => {
    const touching = new LifetimePolicy(4 * KiB);
    expect(touching.bestFit(lifetimes([[0, 5, 36], [5, 9, 36]]))).toBe(false);
    expect(touching.blockCount).toBe(2);
    const apart = new LifetimePolicy(4 * KiB);
    apart.bestFit(lifetimes([[0, 5, 36], [6, 9, 36]]));
    expect(apart.blockCount).toBe(1);
    expect(apart.totalBytes).toBe(36 * KiB);
  });

  it('packs the largest bin first, then borrows a larger block before making a new one', () => {
    const p = new LifetimePolicy(4 * KiB);
    // Recorded order: the 36 KiB lifetime first, yet the 44 KiB bin is packed first, so the
    // 36 KiB lifetime borrows its block (no overlap) instead of getting a block of its own.
    p.bestFit(lifetimes([[0, 1, 36], [2, 3, 44]]));
    expect(p.totalBytes).toBe(44 * KiB);
    const bins = p.plannedBins();
    expect(bins.map((b) => [b.index, b.blocks.length, b.borrowedFrom])).toEqual([
      [2, 1, []],
      [0, 0, [2]],
    ]);
  });

  it('first fit goes to the earliest block that fits, across steps too', () => {
    const p = new LifetimePolicy(4 * KiB);
    // Two overlapping lifetimes need two blocks; the next step's two fit them again: stable.
    expect(p.bestFit(lifetimes([[0, 3, 36], [1, 2, 36]]))).toBe(false);
    expect(p.bestFit(lifetimes([[4, 7, 36], [5, 6, 36]]))).toBe(true);
    // A third concurrent lifetime needs a third block.
    expect(p.bestFit(lifetimes([[8, 12, 36], [9, 11, 36], [10, 10, 36]]))).toBe(false);
    expect(p.blockCount).toBe(3);
    expect(p.totalBytes).toBe(3 * 36 * KiB);
  });

  it('chooses the least total, ties to the smaller interval', () => {
    const planner = new MemoryPlanner(10, 100);
    const [p4, p8, p16] = planner.policies as [LifetimePolicy, LifetimePolicy, LifetimePolicy];
    p4.totalBytes = 80;
    p8.totalBytes = 72;
    p16.totalBytes = 72;
    expect(planner.bestPolicy().intervalBytes).toBe(8 * KiB);
    p4.totalBytes = 72;
    expect(planner.bestPolicy().intervalBytes).toBe(4 * KiB);
  });
});
