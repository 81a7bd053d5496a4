import { describe, expect, it } from 'vitest';
import { DEFAULT_DEVICE_BASE } from '../../src/allocators/device.js';
import { replay } from '../../src/sim/run.js';
import { KiB, traceFromEvents } from '../helpers.js';
import { HEADER, repeat, runPool, stats, stepEvents, tracked, type Op } from './fixtures.js';

const SEQUENTIAL: Op[] = [['a', 'A', 36], ['f', 'A'], ['a', 'B', 44], ['f', 'B']];
const LEARN = { start_step: 1, stable_steps: 0 };

describe('lifetime-pool after the pools are built', () => {
  it('counts hits, misses with no bin, misses with a busy bin, and small requests', () => {
    const events = [
      ...repeat(0, 2, [['a', 'A', 36], ['f', 'A']]),
      // Step 3: A hits; a second 36 KiB at the same time finds the only chunk taken: a miss;
      // 100 KiB was never seen: no bin, a miss; 1 KiB is small.
      ...stepEvents(3, [['a', 'A', 36], ['a', 'B', 36], ['a', 'C', 100], ['f', 'A'], ['f', 'B'], ['f', 'C']]),
      { op: 'alloc' as const, id: 's', size: 1024, step: 3 },
      { op: 'free' as const, id: 's', step: 3 },
    ];
    const r = runPool(events, LEARN);
    const s = stats(r);
    expect(s.poolsBuiltAfterStep).toBe(2);
    expect([s.hits, s.misses, s.missesWithoutBin, s.smallRequests]).toEqual([1, 2, 1, 1]);
    // Steps 0-2: 3 device allocations; the pool: 1; step 3: B, C and the small one.
    expect(r.report.summary.deviceAllocCalls).toBe(3 + 1 + 3);
  });

  it('misses when the bin it borrows from has no free chunk', () => {
    const events = [
      ...repeat(0, 2, SEQUENTIAL),
      // B holds the 44 KiB chunk that A would borrow.
      ...stepEvents(3, [['a', 'B', 44], ['a', 'A', 36], ['f', 'A'], ['f', 'B']]),
    ];
    const s = stats(runPool(events, LEARN));
    expect([s.hits, s.borrowedHits, s.misses, s.missesWithoutBin]).toEqual([1, 0, 1, 0]);
  });

  it('returns chunks to their bin: a freed chunk serves the next request of its bin', () => {
    const s = stats(runPool(repeat(0, 9, [['a', 'A', 36], ['f', 'A']]), LEARN));
    // Built after step 2; steps 3..9 each reuse the one chunk.
    expect(s.poolsBuiltAfterStep).toBe(2);
    expect([s.hits, s.misses]).toEqual([7, 0]);
  });

  it('places pools and fallback blocks on the simulated device, chunks back to back', () => {
    const events = [
      ...repeat(0, 2, [['a', 'A', 36], ['a', 'B', 36], ['f', 'A'], ['f', 'B']]),
      ...stepEvents(3, [['a', 'A', 36], ['a', 'B', 36]]),
      { op: 'alloc' as const, id: 's', size: 100, step: 3 },
    ];
    const r = runPool(events, LEARN);
    const seg = r.allocator.state().segments;
    // Everything was freed before the build, so the pool starts at the device base; the small
    // request goes to the device after it (512-byte granularity, as naive).
    expect(seg.map((x) => [x.kind, x.address, x.sizeBytes])).toEqual([
      ['pool', DEFAULT_DEVICE_BASE, 72 * KiB],
      ['fallback', DEFAULT_DEVICE_BASE + 72 * KiB, 512],
    ]);
    const pool = seg[0]!;
    expect(pool.blocks.map((b) => [b.address - DEFAULT_DEVICE_BASE, b.sizeBytes, b.isFree])).toEqual([
      [0, 36 * KiB, false],
      [36 * KiB, 36 * KiB, false],
    ]);
    // DeepRec's chunk stack hands out the last chunk first; the pointer is past the header.
    const a = r.allocator;
    const placed = pool.blocks.map((b) => b.requestedBytes);
    expect(placed).toEqual([tracked(36), tracked(36)]);
    // The small request asks the device for 100 + max(8, 64) bytes (512 granted); its block is the user's from past that header.
    expect(r.report.summary.finalAllocatedBytes).toBe(2 * (36 * KiB - HEADER) + 512 - HEADER);
    expect(r.report.summary.finalReservedBytes).toBe(72 * KiB + 512);
    expect(a.largestFreeBlockBytes()).toBe(0);
  });

  it('hands out the pointer after the header, last chunk first', () => {
    const events = [
      ...repeat(0, 2, [['a', 'A', 36], ['a', 'B', 36], ['f', 'A'], ['f', 'B']]),
      ...stepEvents(3, [['a', 'A', 36]]),
    ];
    const placements: [number, number][] = [];
    replay(traceFromEvents(events), {
      allocator: 'lifetime-pool',
      options: LEARN,
      onPlacement: (event, _a, address, _s, bytes) => {
        if (event === events.length - 1) placements.push([address - DEFAULT_DEVICE_BASE, bytes]);
      },
    });
    expect(placements).toEqual([[36 * KiB + HEADER, 36 * KiB - HEADER]]);
  });
});

describe('lifetime-pool when the pools are never built', () => {
  const trace = traceFromEvents(repeat(0, 5, SEQUENTIAL));

  it('says plainly that start_step is beyond the trace, and behaves as naive', () => {
    const r = replay(trace, { allocator: 'lifetime-pool' });
    const n = replay(trace, { allocator: 'naive' });
    expect(r.report.allocator.stats).toMatchObject({ poolsBuiltAfterStep: null, policyIntervalBytes: null, poolBytes: 0, hits: 0, misses: 0 });
    expect(r.report.notes.join('\n')).toMatch(/pools were never built: start_step 100 is beyond the trace's 6 session runs \(DeepRec counts a run per change of step id; the ids run from 0 to 5\)/);
    expect(r.report.summary.peakReservedBytes).toBe(n.report.summary.peakReservedBytes);
    expect(r.report.summary.deviceAllocCalls).toBe(n.report.summary.deviceAllocCalls);
    expect(r.report.summary.deviceFreeCalls).toBe(n.report.summary.deviceFreeCalls);
  });

  it('says so when the trace ends while collecting', () => {
    const r = replay(trace, { allocator: 'lifetime-pool', options: { start_step: 2 } });
    expect(r.report.allocator.stats.collectedSteps).toBe(4);
    expect(r.report.notes.join('\n')).toMatch(/pools were never built: the trace ended while collecting statistics \(4 steps collected from step 2, 3 stable in a row/);
  });

  it('says so when collection ends with the last step, and builds nothing after the last event', () => {
    const r = replay(trace, { allocator: 'lifetime-pool', options: { start_step: 4, stable_steps: 0 } });
    // Step 4 unstable, step 5 stable: collection is over at the end of the trace.
    expect(r.report.allocator.stats).toMatchObject({ poolsBuiltAfterStep: null, poolBytes: 0, collectedSteps: 2 });
    expect(r.report.notes.join('\n')).toMatch(/collection ended with the trace's last step \(5\); DeepRec would now build 44\.00 KiB of pools/);
    expect(r.report.summary.finalReservedBytes).toBe(0);
  });

  it('keeps serving from the device when the pools do not fit in the capacity', () => {
    // Step 1 needs a 36 KiB block, step 2 a 60 KiB one, step 3 is stable: pools of 96 KiB (the
    // 4 KiB policy; 8 KiB: 40 + 64, 16 KiB: 48 + 64), more than the 64 KiB device, though no step
    // needs more than 60 KiB at once.
    const events = [...repeat(0, 1, [['a', 'A', 36], ['f', 'A']]), ...stepEvents(2, [['a', 'A', 60], ['f', 'A']]), ...repeat(3, 5, [['a', 'A', 36], ['f', 'A']])];
    const r = runPool(events, LEARN, 64 * KiB);
    expect(r.report.completed).toBe(true);
    expect(r.report.allocator.stats).toMatchObject({ poolsBuiltAfterStep: null, phase: 'build-failed', hits: 0, poolBytes: 0 });
    expect(r.report.notes.join('\n')).toMatch(/after step 3 they needed 96\.00 KiB/);
    expect(r.report.summary.deviceAllocCalls).toBe(6);
  });

  it('reports the OOM text of the device when a request does not fit', () => {
    const r = runPool([{ op: 'alloc', id: 'x', size: 100 * KiB, step: 0 }], {}, 64 * KiB);
    // The device is asked for the request and its 64-byte header, which it rounds to 512 bytes.
    expect(r.report.ooms[0]?.native).toBe(`cudaMalloc(${100 * KiB + 512}) failed: cudaErrorMemoryAllocation: out of memory`);
  });
});
