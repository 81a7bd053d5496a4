import { describe, expect, it } from 'vitest';
import { alloc, free, MiB } from '../helpers.js';
import { BASE, runCaching } from './run.js';

describe('pools and splits', () => {
  it('packs small requests into a 2 MiB segment and splits off any remainder of 512 B or more', () => {
    const r = runCaching([alloc('a', 1000), alloc('b', 600)]);
    expect(r.at).toEqual({ a: BASE, b: BASE + 1024 });
    expect(r.bytes).toEqual({ a: 1024, b: 1024 });
    expect(r.stats.reserved_bytes).toBe(2 * MiB);
    expect(r.stats.segments).toBe(1);
    expect(r.stats.inactive_split_bytes).toBe(2 * MiB - 2048);
  });

  it('serves 1-10 MiB requests from a 20 MiB segment and splits remainders over 1 MiB', () => {
    const r = runCaching([alloc('a', 3 * MiB), alloc('b', 3 * MiB)]);
    expect(r.at).toEqual({ a: BASE, b: BASE + 3 * MiB });
    expect(r.stats.reserved_bytes).toBe(20 * MiB);
    expect(r.stats.inactive_split_bytes).toBe(14 * MiB);
  });

  it('keeps a large-pool remainder of at most 1 MiB inside the block', () => {
    expect(runCaching([alloc('a', 19.5 * MiB)]).bytes.a).toBe(20 * MiB);
    expect(runCaching([alloc('a', 19 * MiB)]).bytes.a).toBe(20 * MiB);
    expect(runCaching([alloc('a', 18.5 * MiB)]).bytes.a).toBe(18.5 * MiB);
    // A segment of 12 MiB for a request of 11.5 MiB: the 0.5 MiB stay with the block.
    const r = runCaching([alloc('a', 11.5 * MiB)]);
    expect(r.stats.reserved_bytes).toBe(12 * MiB);
    expect(r.bytes.a).toBe(12 * MiB);
    expect(r.stats.inactive_split_bytes).toBe(0);
  });

  it('rounds with roundup_power2_divisions before choosing the pool and the segment', () => {
    const r = runCaching([alloc('a', 5000), alloc('b', 5 * MiB + 1)], { roundup_power2_divisions: '4' });
    expect(r.bytes.a).toBe(5120);
    expect(r.bytes.b).toBe(6 * MiB);
  });
});

describe('best fit', () => {
  it('takes the smallest free block that fits, the lowest address among equals, on the same stream only', () => {
    const r = runCaching([
      alloc('a', 12 * MiB),
      alloc('b', 12 * MiB),
      alloc('c', 14 * MiB),
      free('a'),
      free('b'),
      free('c'),
      alloc('d', 11 * MiB),
      alloc('e', 13 * MiB),
      alloc('f', 11 * MiB, { stream: 1 }),
    ]);
    expect(r.at.d).toBe(BASE);
    expect(r.bytes.d).toBe(12 * MiB);
    expect(r.at.e).toBe(BASE + 24 * MiB);
    // The free 12 MiB block at BASE+12 MiB belongs to stream 0: stream 1 gets a new segment.
    expect(r.at.f).toBe(BASE + 38 * MiB);
    expect(r.stats.segments).toBe(4);
  });
});

describe('max_split_size', () => {
  const events = [
    alloc('a', 70 * MiB),
    free('a'),
    alloc('b', 42 * MiB),
    free('b'),
    alloc('c', 45 * MiB),
    alloc('d', 55 * MiB),
    alloc('e', 5 * MiB),
  ];

  it('lets an oversize request take a cached block less than 20 MiB larger, whole, and never a small request', () => {
    const r = runCaching(events, { max_split_size_mb: 40 });
    // 70 MiB >= 42 + 20: refused, a new segment.
    expect(r.at.b).toBe(BASE + 70 * MiB);
    // 70 >= 45 + 20 refused; 42 < 45 too small: a new 46 MiB segment.
    expect(r.at.c).toBe(BASE + 112 * MiB);
    // 70 < 55 + 20: taken whole, not split.
    expect(r.at.d).toBe(BASE);
    expect(r.bytes.d).toBe(70 * MiB);
    // 5 MiB < 40 MiB may not take the cached 42 MiB block: a new 20 MiB segment.
    expect(r.at.e).toBe(BASE + 158 * MiB);
    expect(r.stats.oversize_allocations).toEqual({ current: 2, peak: 2 });
    expect(r.stats.oversize_segments).toEqual({ current: 3, peak: 3 });
  });

  it('widens the rounding allowed for oversize requests with max_non_split_rounding_mb', () => {
    const r = runCaching(events, { max_split_size_mb: 40, max_non_split_rounding_mb: 64 });
    expect(r.at.b).toBe(BASE);
    expect(r.bytes.b).toBe(70 * MiB);
  });

  it('splits as usual without max_split_size', () => {
    const r = runCaching(events);
    expect(r.at.b).toBe(BASE);
    expect(r.bytes.b).toBe(42 * MiB);
    expect(r.at.e).toBe(BASE + 45 * MiB);
  });
});

describe('free', () => {
  it('merges a freed block with its free neighbours and tracks inactive split bytes', () => {
    const r = runCaching([alloc('a', 3 * MiB), alloc('b', 3 * MiB), alloc('c', 3 * MiB), free('b')]);
    expect(r.stats.inactive_split_bytes).toBe(14 * MiB);
    const more = runCaching([alloc('a', 3 * MiB), alloc('b', 3 * MiB), alloc('c', 3 * MiB), free('b'), free('a')]);
    expect(more.stats.inactive_split_bytes).toBe(17 * MiB);
    const all = runCaching([alloc('a', 3 * MiB), alloc('b', 3 * MiB), alloc('c', 3 * MiB), free('b'), free('a'), free('c'), alloc('d', 6 * MiB)]);
    expect(all.at.d).toBe(BASE);
    expect(all.stats.inactive_split_bytes).toBe(14 * MiB);
    expect(all.stats.num_device_free).toBe(0);
    const state = all.alloc.state();
    expect(state.segments).toHaveLength(1);
    expect(state.segments[0]!.blocks.map((b) => [b.sizeBytes / MiB, b.isFree])).toEqual([
      [6, false],
      [14, true],
    ]);
  });

  it('never returns segments to the device on its own', () => {
    const r = runCaching([alloc('a', 30 * MiB), free('a'), alloc('b', 1000), free('b')]);
    expect(r.stats.reserved_bytes).toBe(32 * MiB);
    expect(r.stats.allocated_bytes).toBe(0);
    expect(r.stats.num_device_free).toBe(0);
  });
});
