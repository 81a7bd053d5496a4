/** `memsim replay --allocator bfc` run as a user runs it (needs the built dist/). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';
import { SPEC_DUMP } from './spec-dump.js';

/** The spec's small example as a CSV trace: a, b, c of 256 B, b freed, then 2 GiB. */
function specTrace(): string {
  const path = join(tempDir(), 'bfc-oom-after-three-small.csv');
  writeFileSync(path, 'op,id,size,step\nalloc,a,256,0\nalloc,b,256,0\nalloc,c,256,0\nfree,b,,0\nalloc,d,2147483648,1\n');
  return path;
}

describe('memsim replay --allocator bfc', () => {
  it('exits 1 on the OOM and shows the classification and the compact dump', () => {
    const r = runCli(['replay', specTrace(), '--allocator', 'bfc', '--capacity', '1GiB']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✘ 1 OOM at event 4 (line 6) — too little memory');
    expect(r.stdout).toContain('  bfc says:\n    Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.00GiB (rounded to 2147483648)requested by op \n');
    expect(r.stdout).toContain('    Next region of size 1073741824 at 10000000000: 2 in use (512B), 2 free (largest 1024.00MiB)\n');
    expect(r.stdout).toContain(`… a summary of ${SPEC_DUMP.split('\n').length} lines (--oom-dump full shows them)`);
    expect(r.stdout).not.toContain('Bin (512)');
    expect(r.stderr.trim().split('\n').pop()).toContain('gate failed: replay with bfc hit 1 OOM(s)');
  });

  it('--oom-dump full prints the whole dump, none prints none of it', () => {
    const full = runCli(['replay', specTrace(), '--allocator', 'bfc', '--capacity', '1GiB', '--oom-dump', 'full']);
    for (const line of SPEC_DUMP.split('\n')) expect(full.stdout).toContain(`    ${line}`.trimEnd());
    const none = runCli(['replay', specTrace(), '--allocator', 'bfc', '--capacity', '1GiB', '--oom-dump', 'none']);
    expect(none.stdout).not.toContain('ran out of memory');
  });

  it('--format json carries the native dump byte for byte and the stats under TensorFlow names', () => {
    const r = runCli(['replay', specTrace(), '--allocator', 'bfc', '--capacity', '1GiB', '--format', 'json', '--allow-oom']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.allocator.options).toEqual({
      allow_growth: false,
      garbage_collection: true,
      fragmentation_fraction: 0,
      coalesce_regions: false,
      memory_limit: null,
      name: 'GPU_0_bfc',
    });
    expect(j.allocator.stats).toMatchObject({
      num_allocs: 3,
      bytes_in_use: 512,
      peak_bytes_in_use: 768,
      largest_alloc_size: 256,
      bytes_limit: 1073741824,
      total_region_allocated_bytes: 1073741824,
      curr_region_allocation_bytes: 2147483648,
      regions: 1,
    });
    expect(j.allocator.stats.fragmentation_metric).toBeCloseTo(256 / (1073741824 - 512), 15);
    expect(j.ooms[0].native).toBe(SPEC_DUMP);
    expect(j.ooms[0]).toMatchObject({ kind: 'capacity', roundedBytes: 2147483648, reservedBytes: 1073741824, allocatedBytes: 512 });
  });

  it('takes options, writes placements from the device base, and notes an assumed limit', () => {
    const dir = tempDir();
    const trace = join(dir, 'grow.csv');
    writeFileSync(trace, 'op,id,size,step\nalloc,a,1048576,0\nalloc,b,3145728,0\nfree,a,,0\nfree,b,,0\n');
    const placements = join(dir, 'placements.csv');
    const r = runCli(['replay', trace, '--allocator', 'bfc', '--option', 'allow_growth=true', '--placements', placements, '--format', 'json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.summary).toMatchObject({ peakReservedBytes: 6 * 1048576, deviceAllocCalls: 2, deviceFreeCalls: 0 });
    expect(j.allocator.stats).toMatchObject({ bytes_limit: 80 * 1024 ** 3, regions: 2, curr_region_allocation_bytes: 8 * 1048576 });
    expect(j.notes.join('\n')).toContain('no capacity given: bfc assumed a memory limit of 80.00 GiB');
    // a: the first MiB of the first region (at the base); b: the 4 MiB region after it.
    expect(readFileSync(placements, 'utf8').trim().split('\n')).toEqual([
      'event,id,address,sizeBytes,allocatedBytes',
      '0,a,0x10000000000,1048576,1048576',
      '1,b,0x10000200000,3145728,4194304',
    ]);
  });

  it('rejects a bad option value with exit 2', () => {
    const r = runCli(['replay', specTrace(), '--allocator', 'bfc', '--option', 'fragmentation_fraction=2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('fragmentation_fraction');
  });

  it('memsim allocators lists bfc with its defaults', () => {
    const r = runCli(['allocators']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/bfc — TensorFlow's best-fit-with-coalescing allocator/);
    expect(r.stdout).toMatch(/│ allow_growth +│ boolean │ false +│/);
    expect(r.stdout).toMatch(/│ garbage_collection +│ boolean │ true +│/);
    expect(r.stdout).toMatch(/│ fragmentation_fraction +│ number +│ 0 +│/);
    expect(r.stdout).toMatch(/│ coalesce_regions +│ boolean │ false +│/);
  });
});
