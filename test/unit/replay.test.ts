import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrace } from '../../src/trace/read.js';
import { replay } from '../../src/sim/run.js';
import { alloc, FIXTURES, free, MiB, traceFromEvents } from '../helpers.js';

describe('replay of a hand-computed trace through naive', () => {
  // w 1000 -> 1024; a 3,000,000 -> 4 MiB (pages); b 512 -> 512; 7 1,048,577 -> 2 MiB.
  it.each(['three-steps.json', 'three-steps.jsonl', 'three-steps.csv'])('%s gives the same exact figures', (name) => {
    const { report } = replay(readTrace(join(FIXTURES, name)), { allocator: 'naive', capacityBytes: 8 * MiB });
    expect(report.capacityBytes).toBe(8 * MiB);
    expect(report.completed).toBe(true);
    expect(report.summary).toEqual({
      peakLiveBytes: 3001000,
      peakLiveEvent: 1,
      peakAllocatedBytes: 1024 + 4 * MiB,
      peakReservedBytes: 1024 + 4 * MiB,
      peakReservedEvent: 1,
      finalLiveBytes: 1000,
      finalAllocatedBytes: 1024,
      finalReservedBytes: 1024,
      utilization: Math.round((3001000 / (1024 + 4 * MiB)) * 1e6) / 1e6,
      fragmentation: Math.round((1 - 3001000 / (1024 + 4 * MiB)) * 1e6) / 1e6,
      internalFragmentation: Math.round(((1024 + 4 * MiB - 3001000) / (1024 + 4 * MiB)) * 1e6) / 1e6,
      externalFragmentation: 0,
      overheadVsLowerBound: Math.round(((1024 + 4 * MiB) / 3001000 - 1) * 1e6) / 1e6,
      deviceAllocCalls: 4,
      deviceFreeCalls: 3,
      oomCount: 0,
      eventsReplayed: 7,
      ignoredFrees: 0,
    });
    expect(report.steps).toEqual([
      { step: 0, events: 3, peakLiveBytes: 3001000, peakAllocatedBytes: 1024 + 4 * MiB, peakReservedBytes: 1024 + 4 * MiB },
      { step: 1, events: 3, peakLiveBytes: 1000 + 512 + 1048577, peakAllocatedBytes: 1024 + 512 + 2 * MiB, peakReservedBytes: 1024 + 512 + 2 * MiB },
      { step: 2, events: 1, peakLiveBytes: 1000, peakAllocatedBytes: 1024, peakReservedBytes: 1024 },
    ]);
    expect(report.timeline.points).toEqual([
      [0, 1000, 1024, 1024],
      [1, 3001000, 1024 + 4 * MiB, 1024 + 4 * MiB],
      [2, 1000, 1024, 1024],
      [3, 1512, 1536, 1536],
      [4, 1050089, 1536 + 2 * MiB, 1536 + 2 * MiB],
      [5, 1049577, 1024 + 2 * MiB, 1024 + 2 * MiB],
      [6, 1000, 1024, 1024],
    ]);
  });

  it('places blocks first fit from the device base', () => {
    const t = traceFromEvents([alloc('a', 512), alloc('b', 1024), free('a'), alloc('c', 100), alloc('d', 600)]);
    const placed: [string, number, number][] = [];
    replay(t, { onPlacement: (_e, a, address, _s, allocated) => placed.push([t.ids.get(a), address - 0x7f0000000000, allocated]) });
    expect(placed).toEqual([
      ['a', 0, 512],
      ['b', 512, 1024],
      ['c', 0, 512],
      ['d', 1536, 1024],
    ]);
  });

  it('--on-oom continue records every failure, drops the allocation and ignores its free', () => {
    const t = traceFromEvents([alloc('a', 3 * MiB), alloc('b', 3 * MiB), free('b'), alloc('c', MiB), free('a'), free('c')]);
    const stop = replay(t, { capacityBytes: 5 * MiB });
    expect(stop.report.completed).toBe(false);
    expect(stop.report.summary.eventsReplayed).toBe(2);
    expect(stop.report.ooms.map((o) => [o.event, o.kind])).toEqual([[1, 'capacity']]);
    const cont = replay(t, { capacityBytes: 5 * MiB, onOom: 'continue' });
    expect(cont.report.completed).toBe(true);
    expect(cont.report.summary.oomCount).toBe(1);
    expect(cont.report.summary.ignoredFrees).toBe(1);
    expect(cont.report.summary.peakLiveBytes).toBe(4 * MiB);
    expect(cont.report.summary.finalLiveBytes).toBe(0);
  });

  it('classifies an OOM as fragmentation when a perfect allocator would have fitted it', () => {
    // 1.5 MiB requests take 2 MiB pages: the third does not fit in 5 MiB, though 4.5 MiB would.
    const t = traceFromEvents([alloc('a', 1.5 * MiB), alloc('b', 1.5 * MiB), alloc('c', 1.5 * MiB)]);
    const oom = replay(t, { capacityBytes: 5 * MiB }).report.ooms[0]!;
    expect(oom).toMatchObject({ event: 2, line: 3, id: 'c', sizeBytes: 1.5 * MiB, roundedBytes: 2 * MiB, liveBytes: 3 * MiB, allocatedBytes: 4 * MiB, reservedBytes: 4 * MiB, capacityBytes: 5 * MiB, deviceFreeBytes: MiB, kind: 'fragmentation' });
  });

  it('takes the capacity from the trace meta unless given', () => {
    const t = traceFromEvents([alloc('a', 3 * MiB)], { capacityBytes: 2 * MiB });
    expect(replay(t).report.summary.oomCount).toBe(1);
    expect(replay(t, { capacityBytes: 4 * MiB }).report.summary.oomCount).toBe(0);
  });

  it('rejects unknown allocators and options with usage errors', () => {
    const t = traceFromEvents([alloc('a', 1)]);
    expect(() => replay(t, { allocator: 'nope' })).toThrow(/unknown allocator "nope" \(known: naive/);
    expect(() => replay(t, { options: { page_size: '1' } })).toThrow(/allocator "naive" has no option "page_size" \(its options: alignment, page, large_threshold\)/);
    expect(() => replay(t, { options: { page: '3 apples' } })).toThrow(/option page=3 apples: unknown unit "apples"/);
  });

  it('accepts option text and typed values alike', () => {
    const t = traceFromEvents([alloc('a', 5000)]);
    expect(replay(t, { options: { alignment: '4KiB' } }).report.summary.peakReservedBytes).toBe(8192);
    expect(replay(t, { options: { alignment: 1024 } }).report.summary.peakReservedBytes).toBe(5120);
  });
});

describe('warm-up before a long replay', () => {
  it('runs a throwaway allocator of streaming kinds only, and leaves the replay as it was', async () => {
    const { loadAllocator, getAllocator, resolveOptions } = await import('../../src/allocators/registry.js');
    const { warmUp } = await import('../../src/sim/warm-up.js');
    const { replayTrace } = await import('../../src/sim/replay.js');
    const trace = traceFromEvents([alloc('a', 3 * MiB), alloc('b', 2 ** 31 + 5), free('a'), alloc('c', 1000), free('b'), free('c')]);
    for (const name of ['bfc', 'caching', 'naive', 'lifetime-pool']) {
      await loadAllocator(name);
      const def = getAllocator(name);
      const values = resolveOptions(def, name === 'bfc' ? { memory_limit: 2 ** 34 } : {}, trace).values;
      const run = (): unknown => {
        const a = def.create(values as never, { capacityBytes: 2 ** 34, trace });
        const o = replayTrace(trace, a, 2 ** 34);
        return { o, stats: a.stats(), state: a.state() };
      };
      const before = run();
      expect(warmUp(def, values, trace)).toBe(name !== 'lifetime-pool');
      expect(run()).toEqual(before);
    }
  });
});

describe('external fragmentation', () => {
  it('is 0 when nothing is free: held bytes in no free block (headers before the pools are built) are overhead', () => {
    const { report, outcome } = replay(readTrace(join(FIXTURES, 'three-steps.csv')), { allocator: 'lifetime-pool' });
    expect(outcome.atPeak.reservedBytes).toBeGreaterThan(outcome.atPeak.allocatedBytes);
    expect(outcome.atPeak.largestFreeBlockBytes).toBe(0);
    expect(report.summary.externalFragmentation).toBe(0);
  });

  it('is the share of free bytes outside the largest free block when blocks are free', () => {
    // bfc, one 4 MiB region: a 1 MiB hole between two live blocks, and the free tail.
    const t = traceFromEvents([alloc('a', MiB), alloc('b', MiB), alloc('c', MiB), free('b')]);
    const { outcome, report } = replay(t, { allocator: 'bfc', options: { allow_growth: true, garbage_collection: false, memory_limit: '4MiB' } });
    const p = outcome.atPeak;
    expect(p.largestFreeBlockBytes).toBeGreaterThan(0);
    expect(report.summary.externalFragmentation).toBe(Math.round((1 - p.largestFreeBlockBytes / (p.reservedBytes - p.allocatedBytes)) * 1e6) / 1e6);
  });
});
