import { describe, expect, it } from 'vitest';
import { replay } from '../../src/sim/run.js';
import { alloc, free, KiB, MiB, traceFromEvents } from '../helpers.js';

describe('naive allocator', () => {
  it('rounds small requests to 512 B and large ones to 2 MiB pages', () => {
    const t = traceFromEvents([alloc('a', 1), alloc('b', 513), alloc('c', MiB), alloc('d', MiB + 1)]);
    const r = replay(t, { allocator: 'naive' });
    expect(r.report.summary.peakLiveBytes).toBe(1 + 513 + MiB + MiB + 1);
    expect(r.report.summary.peakAllocatedBytes).toBe(512 + 1024 + MiB + 2 * MiB);
    expect(r.report.summary.peakReservedBytes).toBe(512 + 1024 + MiB + 2 * MiB);
    expect(r.report.summary.deviceAllocCalls).toBe(4);
  });

  it('counts one device call per alloc and per free, and 0-byte requests take nothing', () => {
    const t = traceFromEvents([alloc('a', 100), alloc('z', 0), free('a'), free('z'), alloc('b', 4 * KiB), free('b')]);
    const s = replay(t).report.summary;
    expect(s.deviceAllocCalls).toBe(2);
    expect(s.deviceFreeCalls).toBe(2);
    expect(s.finalReservedBytes).toBe(0);
    expect(s.peakReservedBytes).toBe(4 * KiB);
  });

  it('fails with a capacity OOM when allocated + granted exceeds the capacity', () => {
    const t = traceFromEvents([alloc('a', 600), alloc('b', 600), alloc('c', 600)]);
    const r = replay(t, { capacityBytes: 2048 });
    expect(r.report.completed).toBe(false);
    expect(r.report.summary.oomCount).toBe(1);
    const oom = r.report.ooms[0]!;
    expect(oom.event).toBe(2);
    expect(oom.id).toBe('c');
    expect(oom.roundedBytes).toBe(1024);
    expect(oom.liveBytes).toBe(1200);
    expect(oom.allocatedBytes).toBe(2048);
    // 1200 live + 600 requested fits in 2048: a perfect allocator would have served it.
    expect(oom.kind).toBe('fragmentation');
    expect(oom.native).toBe('cudaMalloc(1024) failed: cudaErrorMemoryAllocation: out of memory');
  });
});
