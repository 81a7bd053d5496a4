import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KiB, runCli, tempDir } from '../helpers.js';
import { repeat } from './fixtures.js';

// Six steps of one 36 KiB and one 44 KiB request, one after the other.
function traceFile(): string {
  const file = join(tempDir(), 'pool-six-steps.json');
  const events = repeat(0, 5, [['a', 'A', 36], ['f', 'A'], ['a', 'B', 44], ['f', 'B']]);
  writeFileSync(file, JSON.stringify({ format: 'memsim-trace', version: 1, meta: { name: 'six steps' }, events }));
  return file;
}

describe('memsim replay --allocator lifetime-pool', () => {
  it('builds the pools within a short trace with --option start_step=2,stable_steps=1', () => {
    const r = runCli(['replay', traceFile(), '--allocator', 'lifetime-pool', '--option', 'start_step=2,stable_steps=1', '--format', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.allocator.options).toEqual({ start_step: 2, stable_steps: 1, max_steps: 100, small_threshold: 32 * KiB, header_bytes: 64 });
    // Step 2 makes the 44 KiB block (the 36 KiB request borrows it), steps 3 and 4 are stable:
    // built after step 4, step 5 served from the pool.
    expect(report.allocator.stats).toMatchObject({ policyIntervalBytes: 4 * KiB, poolBytes: 44 * KiB, bins: 1, blocks: 1, hits: 2, misses: 0, smallRequests: 0, poolsBuiltAfterStep: 4 });
    // Two device calls per step before the pools, then the 44 KiB bin's pool and the zero-byte
    // call of the 36 KiB bin, which has a borrowed block and no block of its own (DeepRec's Init).
    expect(report.summary.deviceAllocCalls).toBe(5 * 2 + 2);
  });

  it('says in the text report that the pools were never built with the default start_step', () => {
    const r = runCli(['replay', traceFile(), '-a', 'lifetime-pool']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("note: the pools were never built: start_step 100 is beyond the trace's 6 session runs (DeepRec counts a run per change of step id; the ids run from 0 to 5)");
  });

  it('shows the pools in the text report when they are built', () => {
    const r = runCli(['replay', traceFile(), '-a', 'lifetime-pool', '-o', 'start_step=2', '-o', 'stable_steps=1']);
    expect(r.stdout).toContain('note: pools built after step 4');
    expect(r.stdout).toMatch(/after step 4: 2 hits \(1 from a larger bin\), 0 misses/);
  });

  it('rejects an unknown or invalid option with exit 2', () => {
    const r = runCli(['replay', traceFile(), '-a', 'lifetime-pool', '-o', 'start_step=-1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/option start_step=-1/);
  });

  it('lists its options with their defaults in memsim allocators', () => {
    const r = runCli(['allocators', '--format', 'json']);
    const def = JSON.parse(r.stdout).find((d: { name: string }) => d.name === 'lifetime-pool');
    expect(def.options.map((o: { name: string; default: unknown }) => [o.name, o.default])).toEqual([
      ['start_step', 100],
      ['stable_steps', 10],
      ['max_steps', 100],
      ['small_threshold', 32 * KiB],
      ['header_bytes', 64],
    ]);
  });
});
