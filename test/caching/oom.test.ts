import { describe, expect, it } from 'vitest';
import { alloc, free, MiB } from '../helpers.js';
import { BASE, runCaching } from './run.js';

const TAIL =
  ' If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  ' +
  'See documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)';

describe('out of memory', () => {
  it('prints PyTorch\'s message for 30 + 30 + 3 MiB on a 64 MiB device, after one retry', () => {
    const r = runCaching([alloc('a', 30 * MiB), alloc('b', 30 * MiB), alloc('c', 3 * MiB)], {}, 64 * MiB);
    expect(r.report.ooms).toHaveLength(1);
    expect(r.report.ooms[0]!.native).toBe(
      'CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 64.00 MiB of which 4.00 MiB is free. ' +
        'Of the allocated memory 60.00 MiB is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.' +
        TAIL,
    );
    expect(r.report.ooms[0]!.roundedBytes).toBe(3 * MiB);
    expect(r.stats.num_alloc_retries).toBe(1);
    expect(r.stats.num_ooms).toBe(1);
  });

  it('names the allowed memory when a memory fraction is in force', () => {
    const r = runCaching([alloc('a', 30 * MiB), alloc('b', 30 * MiB), alloc('c', 3 * MiB)], { per_process_memory_fraction: 0.5 }, 128 * MiB);
    expect(r.report.ooms[0]!.native).toBe(
      'CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 128.00 MiB of which 68.00 MiB is free. ' +
        '64.00 MiB allowed; Of the allocated memory 60.00 MiB is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.' +
        TAIL,
    );
    expect(r.alloc.limitBytes).toBe(64 * MiB);
    expect(r.stats.num_alloc_retries).toBe(1);
  });

  it('counts split cached blocks as reserved but unallocated', () => {
    const r = runCaching([alloc('a', 3 * MiB), alloc('b', 15 * MiB), alloc('c', 25 * MiB)], {}, 40 * MiB);
    expect(r.report.ooms[0]!.native).toBe(
      'CUDA out of memory. Tried to allocate 26.00 MiB. GPU 0 has a total capacity of 40.00 MiB of which 20.00 MiB is free. ' +
        'Of the allocated memory 18.00 MiB is allocated by PyTorch, and 2.00 MiB is reserved by PyTorch but unallocated.' +
        TAIL,
    );
  });
});

describe('freeing cached blocks before giving up', () => {
  it('frees every unsplit cached segment and retries once (num_alloc_retries)', () => {
    const r = runCaching([alloc('a', 30 * MiB), free('a'), alloc('b', 40 * MiB)], {}, 64 * MiB);
    expect(r.report.summary.oomCount).toBe(0);
    expect(r.at.b).toBe(BASE);
    expect(r.stats.num_alloc_retries).toBe(1);
    expect(r.stats.num_device_free).toBe(1);
    expect(r.stats.reserved_bytes).toBe(40 * MiB);
  });

  it('frees both pools: the large one first, then the small one', () => {
    const r = runCaching([alloc('s', 1000), alloc('l', 30 * MiB), free('s'), free('l'), alloc('x', 60 * MiB)], {}, 64 * MiB);
    expect(r.report.summary.oomCount).toBe(0);
    expect(r.stats.num_device_free).toBe(2);
    expect(r.stats.reserved_bytes).toBe(60 * MiB);
    expect(r.stats.segments).toBe(1);
  });

  it('with max_split_size, first frees oversize blocks from the largest down until enough, without counting a retry', () => {
    const r = runCaching(
      [alloc('a', 30 * MiB), alloc('b', 30 * MiB), alloc('s', 3 * MiB), free('a'), free('b'), free('s'), alloc('x', 45 * MiB)],
      { max_split_size_mb: 20 },
      100 * MiB,
    );
    expect(r.report.summary.oomCount).toBe(0);
    expect(r.stats.num_alloc_retries).toBe(0);
    expect(r.stats.num_device_free).toBe(2);
    // The 20 MiB segment of s stays cached.
    expect(r.stats.reserved_bytes).toBe(20 * MiB + 46 * MiB);
    expect(r.at.x).toBe(BASE);
  });

  it('with max_split_size, frees the single smallest cached oversize block that covers the request', () => {
    const r = runCaching([alloc('a', 50 * MiB), alloc('c', 46 * MiB), free('a'), free('c'), alloc('x', 25 * MiB)], { max_split_size_mb: 20 }, 100 * MiB);
    expect(r.report.summary.oomCount).toBe(0);
    expect(r.stats.num_device_free).toBe(1);
    expect(r.stats.reserved_bytes).toBe(50 * MiB + 26 * MiB);
    expect(r.at.x).toBe(BASE + 50 * MiB);
  });
});
