import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, MiB, runCli } from '../helpers.js';

// 30 + 30 MiB on a 64 MiB device, b freed, 3 MiB, a freed, 30 MiB, 20 MiB.
const fixture = join(FIXTURES, 'caching-max-split-oom-at-64mib.csv');
const replay = (...args: string[]) => runCli(['replay', fixture, '--allocator', 'caching', '--capacity', '64MiB', '--format', 'json', ...args]);

describe('memsim replay --allocator caching', () => {
  it('fits under the default settings: the 3 MiB request splits the cached 30 MiB block', () => {
    const r = replay();
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.summary.oomCount).toBe(0);
    expect(j.allocator.stats).toMatchObject({ allocated_bytes: 53 * MiB, reserved_bytes: 60 * MiB, num_alloc_retries: 0, num_device_free: 0 });
  });

  it("takes PyTorch's settings string: with max_split_size_mb:20 the oversize blocks are not split and 20 MiB runs out", () => {
    const r = replay('--allow-oom', '--option', 'conf=max_split_size_mb:20,expandable_segments:False');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.allocator.options).toMatchObject({ conf: 'max_split_size_mb:20,expandable_segments:False', max_split_size_mb: null });
    expect(j.allocator.stats).toMatchObject({
      allocated_bytes: 33 * MiB,
      reserved_bytes: 50 * MiB,
      num_alloc_retries: 1,
      num_ooms: 1,
      num_device_alloc: 3,
      num_device_free: 1,
      segments: 2,
      max_split_size: 20 * MiB,
      allocator_settings: { PYTORCH_CUDA_ALLOC_CONF: 'max_split_size_mb:20' },
    });
    expect(j.ooms[0].native).toBe(
      'CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 64.00 MiB of which 14.00 MiB is free. ' +
        'Of the allocated memory 33.00 MiB is allocated by PyTorch, and 17.00 MiB is reserved by PyTorch but unallocated. ' +
        'If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  ' +
        'See documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)',
    );
    // The same setting given on its own.
    const alone = JSON.parse(replay('--allow-oom', '--option', 'max_split_size_mb=20').stdout);
    expect(alone.ooms[0].native).toBe(j.ooms[0].native);
  });

  it('exits 2 with a plain message for a bad setting', () => {
    const r = replay('--option', 'conf=expandable_segments:yes');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("option conf=expandable_segments:yes: expandable_segments expects True or False (with capitals, as PyTorch reads it), got 'yes'");
    const small = replay('--option', 'max_split_size_mb=8');
    expect(small.code).toBe(2);
    expect(small.stderr).toContain('CachingAllocator option max_split_size_mb too small, must be >= 20');
  });
});
