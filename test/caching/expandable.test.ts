import { describe, expect, it } from 'vitest';
import { alloc, free, MiB } from '../helpers.js';
import { BASE, runCaching } from './run.js';

const ES = { expandable_segments: true };

describe('expandable segments', () => {
  it('maps 20 MiB pages of one growing large-pool segment as requests need them', () => {
    const r = runCaching([alloc('a', 3 * MiB), alloc('b', 30 * MiB)], ES);
    // The address space is reserved once; both blocks tile it from its start.
    expect(r.at).toEqual({ a: BASE, b: BASE + 3 * MiB });
    expect(r.stats.reserved_bytes).toBe(40 * MiB);
    expect(r.stats.num_device_alloc).toBe(2);
    // Expandable segments are not counted as cudaMalloc segments.
    expect(r.stats.segments).toBe(0);
    const state = r.alloc.state();
    expect(state.segments).toHaveLength(1);
    expect(state.segments[0]).toMatchObject({ address: BASE, sizeBytes: 40 * MiB, kind: 'large-expandable' });
    expect(state.segments[0]!.blocks.map((b) => [b.sizeBytes / MiB, b.isFree])).toEqual([
      [3, false],
      [30, false],
      [7, true],
    ]);
  });

  it('maps 2 MiB pages for the small pool, in a segment of its own', () => {
    const r = runCaching([alloc('s', 1000), alloc('l', 3 * MiB)], ES);
    expect(r.stats.reserved_bytes).toBe(22 * MiB);
    expect(r.alloc.state().segments.map((s) => s.kind)).toEqual(['small-expandable', 'large-expandable']);
  });

  it('splits off remainders of 512 B or more in the large pool too', () => {
    const r = runCaching([alloc('a', 19.5 * MiB)], ES);
    expect(r.bytes.a).toBe(19.5 * MiB);
    expect(r.alloc.state().segments[0]!.blocks).toHaveLength(2);
  });

  it('unmaps wholly free pages when the device is full, then grows where there is room', () => {
    const r = runCaching([alloc('a', 30 * MiB), alloc('b', 5 * MiB), free('a'), alloc('c', 45 * MiB)], ES, 60 * MiB);
    expect(r.report.summary.oomCount).toBe(0);
    expect(r.at.b).toBe(BASE + 30 * MiB);
    // The first page under the freed 30 MiB was unmapped; c grew from the free 5 MiB at +35 MiB.
    expect(r.at.c).toBe(BASE + 35 * MiB);
    expect(r.stats.num_alloc_retries).toBe(1);
    expect(r.stats.num_device_free).toBe(1);
    expect(r.stats.reserved_bytes).toBe(60 * MiB);
    expect(r.alloc.state().segments.map((s) => [(s.address - BASE) / MiB, s.sizeBytes / MiB])).toEqual([[20, 60]]);
  });

  it('reports the size it tried to map in the OOM text', () => {
    const r = runCaching([alloc('a', 30 * MiB), alloc('b', 15 * MiB)], ES, 40 * MiB);
    expect(r.report.ooms[0]!.native).toContain(
      'Tried to allocate 16.00 MiB. GPU 0 has a total capacity of 40.00 MiB of which 0 bytes is free. ' +
        'Of the allocated memory 30.00 MiB is allocated by PyTorch, and 10.00 MiB is reserved by PyTorch but unallocated.',
    );
  });

  it('gives the address space back when every page of a segment is unmapped', () => {
    const r = runCaching([alloc('s', 1000), free('s'), alloc('a', 50 * MiB)], ES, 60 * MiB);
    expect(r.report.summary.oomCount).toBe(0);
    expect(r.stats.reserved_bytes).toBe(60 * MiB);
    expect(r.alloc.expandable.filter((e) => e !== null)).toHaveLength(1);
  });
});
