/** The acceptance examples of spec/bfc.md (from TensorFlow's own bfc_allocator tests). */
import { describe, expect, it } from 'vitest';
import type { BfcAllocator } from '../../src/allocators/bfc/index.js';
import { replay } from '../../src/sim/run.js';
import { alloc, free, GiB, MiB, traceFromEvents } from '../helpers.js';
import { give, makeBfc, must, off } from './util.js';

describe('bfc acceptance examples (limit 1 GiB, allow_growth=false)', () => {
  it('allocates 1..1023 bytes without overlap, then frees them all', () => {
    const events = [];
    for (let n = 1; n <= 1023; n++) events.push(alloc(`a${n}`, n));
    const t = traceFromEvents(events);
    const r = replay(t, { allocator: 'bfc', capacityBytes: GiB });
    const a = r.allocator as BfcAllocator;
    expect(r.report.allocator.stats).toMatchObject({ num_allocs: 1023, bytes_in_use: 654336, peak_bytes_in_use: 654336, largest_alloc_size: 1024 });
    // Each block lies after the previous one, back to back: rounding is all the space between them.
    const blocks = a.state().segments[0]!.blocks.filter((b) => !b.isFree);
    expect(blocks).toHaveLength(1023);
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]!.address).toBe(blocks[i - 1]!.address + blocks[i - 1]!.sizeBytes);

    const all = traceFromEvents([...events, ...events.map((e) => free(e.id))]);
    const s = replay(all, { allocator: 'bfc', capacityBytes: GiB }).report.allocator.stats;
    expect(s).toMatchObject({ num_allocs: 1023, bytes_in_use: 0, peak_bytes_in_use: 654336, largest_alloc_size: 1024 });
  });

  it('4096 then 1024 rounds of {4 KiB, 8 MiB, 16 KiB, 40 MiB} freed in order: stats, and the first address comes back', () => {
    const a = makeBfc(GiB);
    const first = must(a, 4096);
    const firstAddress = a.address(first);
    give(a, first);
    for (let i = 0; i < 1024; i++) {
      const hs = [4096, 8388608, 16384, 41943040].map((n) => a.allocate(n, 0, 0, i));
      for (const h of hs) a.free(h);
    }
    expect(a.stats()).toMatchObject({ num_allocs: 4097, bytes_in_use: 0, peak_bytes_in_use: 50352128, largest_alloc_size: 41943040 });
    expect(a.address(must(a, 4096))).toBe(firstAddress);
  });

  it('4 bytes: requested 4, allocated 256', () => {
    const r = replay(traceFromEvents([alloc('x', 4)]), { allocator: 'bfc', capacityBytes: GiB, captureStateAt: [0] });
    const block = r.outcome.states[0]!.state.segments[0]!.blocks[0]!;
    expect(block).toMatchObject({ sizeBytes: 256, requestedBytes: 4, isFree: false, allocEvent: 0 });
    expect(r.report.summary.peakAllocatedBytes).toBe(256);
  });

  it('limit 2 MiB: 256 bytes succeed, 8 MiB is a capacity OOM', () => {
    const r = replay(traceFromEvents([alloc('a', 256), alloc('b', 8 * MiB)]), { allocator: 'bfc', capacityBytes: 2 * MiB });
    expect(r.report.summary.oomCount).toBe(1);
    expect(r.report.ooms[0]).toMatchObject({ event: 1, id: 'b', roundedBytes: 8 * MiB, kind: 'capacity', allocatedBytes: 256, reservedBytes: 2 * MiB });
  });

  it('256, 256, 512, 512, …, 4096, 4096 are laid out back to back from the region start', () => {
    const a = makeBfc(GiB);
    const offsets = [256, 256, 512, 512, 1024, 1024, 2048, 2048, 4096, 4096].map((n) => off(a, must(a, n)));
    expect(offsets).toEqual([0, 256, 512, 1024, 1536, 2560, 3584, 5632, 7680, 11776]);
  });
});
