import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { compareTrace } from '../../src/sweep/compare.js';
import { replay } from '../../src/sim/run.js';
import { alloc, free, KiB, MiB, traceFromEvents } from '../helpers.js';
import { needsHistory, registerFakes, sixtyPercent } from './fakes.js';

registerFakes(sixtyPercent, needsHistory);

// naive grants roundUp(size, 512) up to 1 MiB and roundUp(size, 2 MiB) above it.
const A = 1000; // granted 1024
const B = 3 * MiB; // granted 4 MiB
const C = 600 * KiB; // granted 600 KiB
const D = 2 * MiB + 1; // granted 4 MiB
const mixed = traceFromEvents([alloc('a', A), alloc('b', B), free('a'), alloc('c', C), free('b'), alloc('d', D)]);
// Peak live after event 3: B + C; peak reserved first reached there too: 4 MiB + 600 KiB.
const PEAK_LIVE = B + C;
const PEAK_RESERVED = 4 * MiB + C;

describe('compare on a hand-computed trace', () => {
  it('gives naive its exact figures, and the lower bound its own', async () => {
    const { report } = await compareTrace(mixed, { allocators: ['naive'], jobs: 1 });
    expect(report.schema).toBe('memsim.compare/1');
    expect(report.lowerBound).toEqual({ peakLiveBytes: PEAK_LIVE, peakLiveEvent: 3, minCapacityBytes: null });
    const [row] = report.allocators;
    expect(row?.name).toBe('naive');
    expect(row?.kind).toBe('allocator');
    expect(row?.options).toEqual({ alignment: 512, page: 2 * MiB, large_threshold: MiB });
    const s = row!.summary;
    expect(s.peakReservedBytes).toBe(PEAK_RESERVED);
    expect(s.peakReservedEvent).toBe(3);
    expect(s.internalFragmentation).toBe(Math.round(((PEAK_RESERVED - PEAK_LIVE) / PEAK_RESERVED) * 1e6) / 1e6);
    expect(s.externalFragmentation).toBe(0);
    expect(s.utilization).toBe(Math.round((PEAK_LIVE / PEAK_RESERVED) * 1e6) / 1e6);
    expect(s.overheadVsLowerBound).toBe(Math.round((PEAK_RESERVED / PEAK_LIVE - 1) * 1e6) / 1e6);
    expect([s.deviceAllocCalls, s.deviceFreeCalls]).toEqual([4, 2]);
    expect(row?.minCapacityBytes).toBeNull();
    expect(row?.replays).toBe(1);
    // The row's summary is the replay report's summary.
    expect(s).toEqual(replay(mixed, { allocator: 'naive' }).report.summary);
  });

  it('finds naive\'s minimum capacity: its peak reserved rounded up to the step', async () => {
    for (const step of [MiB, 64 * KiB, 512, 1]) {
      const { report } = await compareTrace(mixed, { allocators: ['naive'], minCapacity: true, capacityStepBytes: step, jobs: 1 });
      const row = report.allocators[0]!;
      expect(row.minCapacityBytes).toBe(Math.ceil(PEAK_RESERVED / step) * step);
      expect(report.lowerBound.minCapacityBytes).toBe(Math.ceil(PEAK_LIVE / step) * step);
      expect(row.search?.tried).toContainEqual({ capacityBytes: row.minCapacityBytes, fits: true });
      expect(row.search?.tried).toContainEqual({ capacityBytes: row.minCapacityBytes! - step, fits: false });
      expect(row.replays).toBe(1 + row.search!.replays);
      // What the search claims, replayed independently: the answer fits and the step below does not.
      expect(replay(mixed, { capacityBytes: row.minCapacityBytes! }).report.summary.oomCount).toBe(0);
      expect(replay(mixed, { capacityBytes: row.minCapacityBytes! - step }).report.summary.oomCount).toBe(1);
    }
  });

  it('records the OOM of a row with its kind and first event at the compared capacity', async () => {
    // At 4 MiB, b's 4 MiB grant does not fit beside a's 1 KiB, though 1000 + 3 MiB live bytes would.
    const { report } = await compareTrace(mixed, { allocators: ['naive'], capacityBytes: 4 * MiB, minCapacity: true, jobs: 1 });
    const row = report.allocators[0]!;
    expect(report.capacityBytes).toBe(4 * MiB);
    expect(row.completed).toBe(false);
    expect(row.summary.oomCount).toBe(1);
    expect(row.firstOom).toMatchObject({ event: 1, id: 'b', sizeBytes: B, roundedBytes: 4 * MiB, kind: 'fragmentation' });
    // The search does not depend on the compared capacity: it replays at unlimited capacity first.
    expect(row.search?.hintBytes).toBe(5 * MiB);
    expect(row.minCapacityBytes).toBe(5 * MiB);
  });

  it('handles an allocator that is not monotone in capacity', async () => {
    const t = traceFromEvents([alloc('a', 2 * KiB), alloc('b', 3 * KiB)]);
    const fitsAt = (c: number) => replay(t, { allocator: 'test-sixty-percent', capacityBytes: c }).report.summary.oomCount === 0;
    expect([5, 6, 7, 8, 9].map((k) => fitsAt(k * KiB))).toEqual([false, true, false, true, true]);
    const { report } = await compareTrace(t, { allocators: ['test-sixty-percent'], minCapacity: true, capacityStepBytes: KiB, jobs: 1 });
    const row = report.allocators[0]!;
    // Not "the capacity from which on everything fits" (8 KiB): the smallest that fits.
    expect(row.minCapacityBytes).toBe(6 * KiB);
    expect(row.search?.guarantee).toBe('step-below-fails');
    // Unlimited, the regions are the requests (5 KiB): the hint, which fails; 6 KiB is one step up.
    expect(row.search?.tried).toEqual([{ capacityBytes: 5 * KiB, fits: false }, { capacityBytes: 6 * KiB, fits: true }]);
    expect(row.replays).toBe(3);
  });

  it('ranks rows without OOM first, then by peak reserved, ties by name', async () => {
    const t = traceFromEvents([alloc('a', 2 * KiB), alloc('b', 3 * KiB)]);
    // At 7 KiB the sixty-percent allocator OOMs and naive (5 KiB) fits; at 9 KiB both fit, and
    // naive's 5 KiB equals sixty-percent's single 5 KiB region: the tie goes by name.
    const at7 = await compareTrace(t, { allocators: ['test-sixty-percent', 'naive'], capacityBytes: 7 * KiB, jobs: 1 });
    expect(at7.report.allocators.map((r) => [r.rank, r.name, r.summary.oomCount])).toEqual([[1, 'naive', 0], [2, 'test-sixty-percent', 1]]);
    const at9 = await compareTrace(t, { allocators: ['test-sixty-percent', 'naive'], capacityBytes: 9 * KiB, jobs: 1 });
    expect(at9.report.allocators.map((r) => [r.name, r.summary.peakReservedBytes])).toEqual([['naive', 5 * KiB], ['test-sixty-percent', 5 * KiB]]);
  });

  it('with all, skips allocators that need a recorded history and says why', async () => {
    const { report } = await compareTrace(mixed, { jobs: 1 });
    expect(report.allocators.map((r) => r.name)).toContain('naive');
    expect(report.allocators.map((r) => r.name)).not.toContain('test-needs-history');
    expect(report.skipped).toEqual([
      { name: 'recorded', reason: expect.stringContaining('recorded history') },
      { name: 'test-needs-history', reason: expect.stringContaining('recorded history') },
    ]);
    await expect(compareTrace(mixed, { allocators: ['test-needs-history'], jobs: 1 })).rejects.toThrow(UsageError);
  });

  it('rejects unknown names, duplicate rows and options for rows not compared', async () => {
    await expect(compareTrace(mixed, { allocators: ['nope'] })).rejects.toThrow(/unknown allocator "nope" \(known: naive/);
    await expect(compareTrace(mixed, { allocators: ['naive', 'naive'] })).rejects.toThrow(/listed twice/);
    await expect(compareTrace(mixed, { allocators: ['naive'], options: { other: { x: 1 } } })).rejects.toThrow(/not compared/);
    await expect(compareTrace(mixed, { allocators: ['naive'], options: { naive: { nope: 1 } } })).rejects.toThrow(/has no option "nope"/);
  });

  it('applies per-row options', async () => {
    const { report } = await compareTrace(mixed, { allocators: ['naive'], options: { naive: { page: '64KiB' } }, jobs: 1 });
    // b: 3 MiB (a whole number of 64 KiB pages), d: 2 MiB + 64 KiB; the peak is now b + c.
    expect(report.allocators[0]?.options['page']).toBe(64 * KiB);
    expect(report.allocators[0]?.summary.peakReservedBytes).toBe(B + C);
  });
});
