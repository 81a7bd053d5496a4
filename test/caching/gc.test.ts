import { describe, expect, it } from 'vitest';
import { alloc, free, MiB } from '../helpers.js';
import { BASE, runCaching } from './run.js';

// allowed = 0.5 · 200 MiB = 100 MiB; collection starts above 0.5 · 100 MiB = 50 MiB reserved.
const GC = { per_process_memory_fraction: 0.5, garbage_collection_threshold: 0.5 };
const CAP = 200 * MiB;

/** Free segments of `sizes` MiB, in address order, after the replay. */
function segments(r: ReturnType<typeof runCaching>): [number, boolean][] {
  return r.alloc.state().segments.map((s) => [s.sizeBytes / MiB, s.blocks.every((b) => b.isFree)]);
}

describe('garbage collection', () => {
  it('frees the cached blocks at least as old as the average, oldest by searches of the pool', () => {
    // Searches of the large pool: a1=1, a2=2, a3=3, a4=4, a5=5. A is cached at 2, B at 3:
    // at a5 their ages are 3 and 2, the average 2.5: A goes, B stays (10 MiB covers the 2 MiB excess).
    const r = runCaching(
      [alloc('a1', 10 * MiB), alloc('a2', 12 * MiB), free('a1'), alloc('a3', 14 * MiB), free('a2'), alloc('a4', 16 * MiB), alloc('a5', 18 * MiB)],
      GC,
      CAP,
    );
    expect(r.stats.num_device_free).toBe(1);
    expect(segments(r)).toEqual([
      [12, true],
      [14, false],
      [16, false],
      [18, false],
    ]);
    expect(r.at.a5).toBe(BASE + 52 * MiB);
  });

  it('frees the other one when it is the older', () => {
    const r = runCaching(
      [alloc('a1', 10 * MiB), alloc('a2', 12 * MiB), free('a2'), alloc('a3', 14 * MiB), free('a1'), alloc('a4', 16 * MiB), alloc('a5', 18 * MiB)],
      GC,
      CAP,
    );
    expect(r.stats.num_device_free).toBe(1);
    expect(segments(r)).toEqual([
      [10, true],
      [14, false],
      [16, false],
      [18, false],
    ]);
  });

  it('recomputes the average and goes on while the excess is not reclaimed', () => {
    // a4 = 30 MiB: 66 MiB reserved at a5, 16 MiB to reclaim; A (10 MiB) is not enough, so B follows.
    const r = runCaching(
      [alloc('a1', 10 * MiB), alloc('a2', 12 * MiB), free('a1'), alloc('a3', 14 * MiB), free('a2'), alloc('a4', 30 * MiB), alloc('a5', 18 * MiB)],
      GC,
      CAP,
    );
    expect(r.stats.num_device_free).toBe(2);
    expect(segments(r).map(([s]) => s)).toEqual([18, 14, 30]);
  });

  it('does nothing without a memory fraction, and says so', () => {
    const r = runCaching(
      [alloc('a1', 10 * MiB), alloc('a2', 12 * MiB), free('a1'), alloc('a3', 14 * MiB), free('a2'), alloc('a4', 30 * MiB), alloc('a5', 18 * MiB)],
      { garbage_collection_threshold: 0.5 },
      CAP,
    );
    expect(r.stats.num_device_free).toBe(0);
    expect(r.report.notes.some((n) => n.includes('garbage_collection_threshold has no effect'))).toBe(true);
  });

  it('refuses a new segment up front when it would exceed the allowed memory', () => {
    const r = runCaching([alloc('a', 60 * MiB), alloc('b', 50 * MiB)], { per_process_memory_fraction: 0.5 }, CAP);
    expect(r.report.summary.oomCount).toBe(1);
    expect(r.report.ooms[0]!.native).toContain('100.00 MiB allowed; ');
  });
});
