/**
 * The rules DeepRec's own code decides (memory_planner.cc, tensorpool_allocator.cc): session runs
 * counted by change of step id, the sub-allocator asked for the request plus its header, a device
 * call for every bin of the chosen policy, an empty tracked large bin is a miss, alignment.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_DEVICE_BASE } from '../../src/allocators/device.js';
import { replay } from '../../src/sim/run.js';
import type { EventObject } from '../../src/trace/from-events.js';
import { KiB, MiB, traceFromEvents } from '../helpers.js';
import { runPool, stats, stepEvents, type Op } from './fixtures.js';

/** One run's pattern: A and B (36 KiB tracked) at once, then C (44 KiB tracked) alone. */
const PATTERN: Op[] = [['a', 'A', 36], ['a', 'B', 36], ['f', 'A'], ['f', 'B'], ['a', 'C', 44], ['f', 'C']];

/** Six runs of the pattern under the given step ids. */
function runsWithIds(ids: number[]): EventObject[] {
  // Ids repeat in some traces: give each run's allocations their own names.
  return ids.flatMap((id, run) => stepEvents(id, PATTERN).map((e) => ({ ...e, id: `${e.id}#${run}` })));
}

/** The decisions of a run: stats that do not name step ids, and every placement. */
function decisions(events: EventObject[], options: Record<string, unknown>) {
  const placements: number[] = [];
  const r = replay(traceFromEvents(events), {
    allocator: 'lifetime-pool',
    options,
    onPlacement: (_e, _a, address) => placements.push(address),
  });
  const { poolsBuiltAfterStep: _b, collectionStartStep: _c, ...rest } = r.report.allocator.stats as Record<string, unknown>;
  return { stats: rest, placements, summary: r.report.summary, built: r.report.allocator.stats.poolsBuiltAfterStep };
}

describe('lifetime-pool counts session runs, not step ids', () => {
  const options = { start_step: 2, stable_steps: 1 };
  const reference = decisions(runsWithIds([0, 1, 2, 3, 4, 5]), options);

  it('collects from run 2 of ids 0..5: pools built after run 4 (run 2 makes blocks, runs 3 and 4 are stable), served in run 5', () => {
    expect(reference.built).toBe(4);
    // Run 5: A in its bin, B borrows C's 44 KiB chunk, C takes it back once B is gone.
    expect(reference.stats).toMatchObject({ phase: 'built', collectedSteps: 3, hits: 3, borrowedHits: 1, misses: 0 });
  });

  it.each([
    ['ids starting at 1', [1, 2, 3, 4, 5, 6], 5],
    ['ids with gaps', [0, 10, 20, 30, 40, 50], 40],
    ['repeating ids', [0, 1, 2, 0, 1, 2], 1],
  ])('%s: the same decisions, placement by placement', (_what, ids, builtAfterId) => {
    const d = decisions(runsWithIds(ids), options);
    expect(d.stats).toEqual(reference.stats);
    expect(d.placements).toEqual(reference.placements);
    expect(d.summary).toEqual(reference.summary);
    expect(d.built).toBe(builtAfterId);
  });

  it('a start_step beyond the runs is said in runs, with a start_step the trace has', () => {
    const r = replay(traceFromEvents(runsWithIds([0, 10, 20, 30, 40, 50])), { allocator: 'lifetime-pool', options: { start_step: 6 } });
    expect(r.report.notes.join('\n')).toContain("start_step 6 is beyond the trace's 6 session runs");
    expect(r.report.notes.join('\n')).toContain("'lifetime-pool[start_step=2,stable_steps=1]' as the allocator");
  });
});

describe('lifetime-pool asks the device what DeepRec asks its sub-allocator', () => {
  it('a big request before the pools: its size plus the 64-byte header', () => {
    const r = runPool([{ op: 'alloc', id: 'x', size: 40_000, step: 0 }]);
    // 40,064 bytes asked; the simulated device rounds to 512.
    expect(r.report.summary.peakReservedBytes).toBe(40_448);
  });

  it('a small request: its size plus max(8, alignment); a zero-byte one still calls the device for its header', () => {
    const r = runPool([
      { op: 'alloc', id: 's', size: 1000, step: 0 },
      { op: 'alloc', id: 'e', size: 8, step: 0, align: 8 },
      { op: 'alloc', id: 'z', size: 0, step: 0 },
      { op: 'free', id: 's', step: 0 },
      { op: 'free', id: 'e', step: 0 },
      { op: 'free', id: 'z', step: 0 },
    ]);
    // 1064 -> 1536, 16 -> 512, 64 -> 512
    expect(r.report.summary.peakReservedBytes).toBe(1536 + 512 + 512);
    expect([r.report.summary.deviceAllocCalls, r.report.summary.deviceFreeCalls]).toEqual([3, 3]);
    expect(stats(r).smallRequests).toBe(3);
  });

  it('a larger alignment makes the header, and the device block is aligned to it', () => {
    const placements: number[] = [];
    replay(traceFromEvents([{ op: 'alloc', id: 'x', size: 1000, step: 0, align: 4096 }, { op: 'alloc', id: 'y', size: 40_000, step: 0, align: 8192 }]), {
      allocator: 'lifetime-pool',
      onPlacement: (_e, _a, address) => placements.push(address - DEFAULT_DEVICE_BASE),
    });
    // x: 1000 + 4096 at the base, user pointer past the header; y: 40,000 + 8192 at the next 8 KiB boundary.
    expect(placements).toEqual([4096, 8192 + 8192]);
  });
});

describe('lifetime-pool builds every bin of the chosen policy', () => {
  it('a large bin tracked while collecting exists without blocks: a zero-byte device call, and a request of it is a miss', () => {
    const big = 40 * MiB;
    const events: EventObject[] = [
      { op: 'alloc', id: 'a', size: KiB, step: 0 },
      { op: 'free', id: 'a', step: 0 },
      // Run 1 collects: L is tracked (its bin comes to exist) but lives on, so no lifetime is recorded.
      { op: 'alloc', id: 'L', size: big, step: 1 },
      { op: 'alloc', id: 'b', size: KiB, step: 1 },
      { op: 'free', id: 'b', step: 1 },
      // Built after run 1; M finds L's bin empty.
      { op: 'alloc', id: 'M', size: big, step: 2 },
      { op: 'free', id: 'M', step: 2 },
      { op: 'free', id: 'L', step: 2 },
    ];
    const r = runPool(events, { start_step: 1, stable_steps: 0 });
    expect(stats(r)).toMatchObject({ poolsBuiltAfterStep: 1, poolBytes: 0, bins: 0, poolCalls: 1, hits: 0, misses: 1, missesWithoutBin: 0 });
    // a, L, b, the pool of L's bin (zero bytes), M
    expect(r.report.summary.deviceAllocCalls).toBe(5);
  });

  it('a bin whose requests asked a larger alignment lays its chunks out at that stride', () => {
    // 44 KiB with an 8 KiB header: tracked 52 KiB, a 52 KiB chunk (the 4 KiB policy is the smallest), stride 56 KiB.
    const size = 44 * KiB;
    const run = (step: number): EventObject[] => [
      { op: 'alloc', id: `A${step}`, size, step, align: 8192 },
      { op: 'alloc', id: `B${step}`, size, step, align: 8192 },
      { op: 'free', id: `A${step}`, step },
      { op: 'free', id: `B${step}`, step },
    ];
    const placements: [number, number][] = [];
    const r = replay(traceFromEvents([...run(0), ...run(1), ...run(2), ...run(3).slice(0, 2)]), {
      allocator: 'lifetime-pool',
      options: { start_step: 1, stable_steps: 0 },
      onPlacement: (e, _a, address, _s, bytes) => {
        if (e >= 12) placements.push([address, bytes]);
      },
    });
    const s = r.report.allocator.stats as Record<string, number>;
    expect([s['policyIntervalBytes'], s['poolBytes'], s['blocks'], s['hits']]).toEqual([4 * KiB, 112 * KiB, 2, 2]);
    const base = r.allocator.state().segments.find((g) => g.kind === 'pool')!.address;
    // The last chunk first; the user pointer past the 8 KiB header; the block runs to the chunk's end.
    expect(placements).toEqual([
      [base + 56 * KiB + 8192, size],
      [base + 8192, size],
    ]);
  });
});
