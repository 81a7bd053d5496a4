import { describe, expect, it } from 'vitest';
import { KiB } from '../helpers.js';
import { repeat, runPool, stats, stepEvents, type Op } from './fixtures.js';

// A 36 KiB and a 44 KiB request live at the same time.
const OVERLAPPING: Op[] = [['a', 'A', 36], ['a', 'B', 44], ['f', 'A'], ['f', 'B']];
// The same two, one after the other.
const SEQUENTIAL: Op[] = [['a', 'A', 36], ['f', 'A'], ['a', 'B', 44], ['f', 'B']];

describe('lifetime-pool statistics phase on hand-computed traces', () => {
  it('keeps the policy with the least total: 4 KiB packs 36 + 44 KiB into 80 KiB', () => {
    // 4 KiB: bins of 36 and 44 KiB, overlapping, so two blocks: 80 KiB.
    // 8 KiB: 36 -> 40 KiB, 44 -> 48 KiB: 88 KiB. 16 KiB: both in the 48 KiB bin, two blocks: 96 KiB.
    const r = runPool(repeat(0, 3, OVERLAPPING), { start_step: 1, stable_steps: 0 });
    const s = stats(r);
    expect(s.policyTotalBytes).toEqual({ '4096': 80 * KiB, '8192': 88 * KiB, '16384': 96 * KiB });
    expect(s.policyIntervalBytes).toBe(4 * KiB);
    expect(s.poolBytes).toBe(80 * KiB);
    expect(s.bins).toBe(2);
    expect(s.blocks).toBe(2);
  });

  it('breaks a tie between policies towards the smaller interval', () => {
    // One 40 KiB request: 40 KiB under 4 and 8 KiB, 48 KiB under 16 KiB.
    const r = runPool(repeat(0, 3, [['a', 'A', 40], ['f', 'A']]), { start_step: 1, stable_steps: 0 });
    expect(stats(r).policyTotalBytes).toEqual({ '4096': 40 * KiB, '8192': 40 * KiB, '16384': 48 * KiB });
    expect(stats(r).policyIntervalBytes).toBe(4 * KiB);
  });

  it('keeps the 8 KiB policy when it puts the sizes of different steps in one bin', () => {
    // Step 1: 36 KiB, step 2: 40 KiB, step 3: 36 KiB again (stable). 4 KiB: bins of 36 and 40 KiB,
    // one block each (the 36 KiB block came first, so step 2 cannot borrow): 76 KiB. 8 KiB: both
    // in the 40 KiB bin, one block: 40 KiB. 16 KiB: one 48 KiB block.
    const events = [...repeat(0, 1, [['a', 'A', 36], ['f', 'A']]), ...stepEvents(2, [['a', 'A', 40], ['f', 'A']]), ...repeat(3, 5, [['a', 'A', 36], ['f', 'A']])];
    const s = stats(runPool(events, { start_step: 1, stable_steps: 0 }));
    expect(s.policyTotalBytes).toEqual({ '4096': 76 * KiB, '8192': 40 * KiB, '16384': 48 * KiB });
    expect(s.policyIntervalBytes).toBe(8 * KiB);
    expect(s.poolsBuiltAfterStep).toBe(3);
    expect([s.poolBytes, s.hits, s.misses]).toEqual([40 * KiB, 2, 0]);
  });

  it('lets a lifetime borrow a block of a larger bin: 36 + 44 KiB one after the other take 44 KiB', () => {
    // 4 KiB: the 44 KiB bin is packed first; the 36 KiB lifetime fits its block. 8 KiB: 48 KiB.
    // 16 KiB: both in one 48 KiB block.
    const r = runPool(repeat(0, 3, SEQUENTIAL), { start_step: 1, stable_steps: 0 });
    const s = stats(r);
    expect(s.policyTotalBytes).toEqual({ '4096': 44 * KiB, '8192': 48 * KiB, '16384': 48 * KiB });
    expect(s.poolBytes).toBe(44 * KiB);
    expect(s.bins).toBe(1);
    expect(s.blocks).toBe(1);
    // Step 3 is served from the pool: the 36 KiB request takes the 44 KiB chunk it borrows.
    expect(s.hits).toBe(2);
    expect(s.borrowedHits).toBe(1);
    expect(s.misses).toBe(0);
  });

  it('lets adjacent lifetimes share a block (in event-index time, distinct events never share an endpoint)', () => {
    // A is freed at event 1 and B allocated at event 2: [0,1] and [2,3] do not overlap.
    const r = runPool(repeat(0, 3, [['a', 'A', 36], ['f', 'A'], ['a', 'B', 36], ['f', 'B']]), { start_step: 0, stable_steps: 0 });
    expect(stats(r).blocks).toBe(1);
    // B allocated before A is freed: two blocks.
    const r2 = runPool(repeat(0, 3, [['a', 'A', 36], ['a', 'B', 36], ['f', 'A'], ['f', 'B']]), { start_step: 0, stable_steps: 0 });
    expect(stats(r2).blocks).toBe(2);
  });

  it('counts stable steps in a row and builds after the step that makes them exceed stable_steps', () => {
    const X: Op[] = [['a', 'A', 36], ['f', 'A']];
    // Two 36 KiB requests at once: a second block, so the step is not stable.
    const Y: Op[] = [['a', 'A', 36], ['a', 'B', 36], ['f', 'A'], ['f', 'B']];
    const events = [
      ...stepEvents(0, X), // before start_step
      ...stepEvents(1, X), // new block: unstable (collected 1, stable 0)
      ...stepEvents(2, X), // stable 1
      ...stepEvents(3, Y), // new block: unstable, the count restarts (stable 0)
      ...stepEvents(4, X), // stable 1
      ...stepEvents(5, X), // stable 2 > 1: collection ends, pools built
      ...stepEvents(6, Y), // served from the pools
    ];
    const r = runPool(events, { start_step: 1, stable_steps: 1 });
    const s = stats(r);
    expect(s.collectionStartStep).toBe(1);
    expect(s.collectedSteps).toBe(5);
    expect(s.poolsBuiltAfterStep).toBe(5);
    expect(s.blocks).toBe(2);
    expect(s.poolBytes).toBe(72 * KiB);
    expect([s.hits, s.misses]).toEqual([2, 0]);
    // Steps 0..5 went to the device (7 requests), then one allocation for the pool; step 6 none.
    expect(r.report.summary.deviceAllocCalls).toBe(1 + 1 + 1 + 2 + 1 + 1 + 1);
    expect(r.report.summary.deviceFreeCalls).toBe(7);
  });

  it('ends collection when the collected steps exceed max_steps, stable or not', () => {
    const r = runPool(repeat(0, 6, [['a', 'A', 36], ['f', 'A']]), { start_step: 2, stable_steps: 10, max_steps: 2 });
    const s = stats(r);
    // Steps 2, 3, 4 collected: 3 > 2 after step 4.
    expect(s.collectedSteps).toBe(3);
    expect(s.poolsBuiltAfterStep).toBe(4);
    expect(s.hits).toBe(2);
  });

  it('records a lifetime when it ends in a collected step, even if it began before; one still open is not recorded', () => {
    const events = [
      ...stepEvents(0, [['a', 'W', 36]]), // before start_step, freed in step 1
      { op: 'free' as const, id: 'W@0', step: 1 },
      ...stepEvents(1, [['a', 'A', 36], ['f', 'A']]),
      ...stepEvents(2, [['a', 'A', 36], ['f', 'A'], ['a', 'L', 44]]), // L still open when step 2 ends
      ...stepEvents(3, [['a', 'A', 36], ['f', 'A']]),
      { op: 'free' as const, id: 'L@2', step: 3 },
    ];
    const r = runPool(events, { start_step: 1, stable_steps: 0 });
    const s = stats(r);
    // Step 1 records W (events 0..1) and A (2..3): they do not overlap, one 36 KiB block.
    // Step 2 records A only, fits: stable, build. L (44 KiB) was never recorded: no 44 KiB pool.
    expect(s.recordedLifetimes).toBe(3);
    expect(s.poolsBuiltAfterStep).toBe(2);
    expect(s.poolBytes).toBe(36 * KiB);
    // Device: W, A, A, L and the pool; step 3's A is a hit. L began before the build: its free goes
    // back to the device (W, A, A, L).
    expect(r.report.summary.deviceAllocCalls).toBe(5);
    expect(r.report.summary.deviceFreeCalls).toBe(4);
    expect([s.hits, s.misses]).toEqual([1, 0]);
  });

  it('creates a large bin above 32 MiB on demand with the same formula', () => {
    const big = 40 * 1024; // KiB tracked: 40 MiB exactly, a large bin of 4 KiB policy
    const r = runPool(repeat(0, 3, [['a', 'A', big + 1], ['f', 'A']]), { start_step: 1, stable_steps: 0 });
    const s = stats(r);
    // 40 MiB + 1 KiB rounds up to 40 MiB + 4 KiB under 4 KiB, + 8 KiB, + 16 KiB.
    expect(s.policyTotalBytes).toEqual({ '4096': (big + 4) * KiB, '8192': (big + 8) * KiB, '16384': (big + 16) * KiB });
    expect(s.poolBytes).toBe((big + 4) * KiB);
    expect(s.hits).toBe(1);
  });
});
