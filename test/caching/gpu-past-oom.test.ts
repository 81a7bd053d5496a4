/**
 * Which card or setting gets past an OOM, asked of a snapshot whose real run failed, and checked
 * against the GPU. `gpt2-cpp-oom` ran under a 600 MiB memory fraction and failed on a 64 MiB request
 * after 456 allocations (the request is no event of the trace). A configuration fits only if it gets
 * past that request too. test/fixtures/pytorch-gpu/past-oom holds the same program run again on the
 * GPU: under fractions allowing the capacity `tune` names and one byte less, and with the setting it
 * recommends (gzip'd snapshots and their NAME.json).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { OP_ALLOC } from '../../src/trace/model.js';
import { readTrace } from '../../src/trace/read.js';
import { FIXTURES, runCli, tempDir } from '../helpers.js';

const DIR = join(FIXTURES, 'pytorch-gpu');
const FILE = join(DIR, 'gpt2-cpp-oom.pickle');
const MiB = 1024 * 1024;
/** What the real allocator reserved when the request failed (538 MiB) plus the request. */
const NEEDED = 564_133_888 + 64 * MiB;

/** Allocations the program made before its first OOM, read from a snapshot. */
function allocationsBeforeFirstOom(file: string): { allocations: number; sizeBytes: number } {
  const t = readTrace(file);
  const o = t.recorded!.ooms![0]!;
  let allocations = 0;
  for (let i = t.initialEvents; i < o.beforeEvent; i++) if (t.op[i] === OP_ALLOC) allocations++;
  return { allocations, sizeBytes: o.sizeBytes };
}

/** A gzip'd snapshot of past-oom/, unpacked to a temporary file. */
function unpacked(name: string): string {
  const out = join(tempDir(), `${name}.pickle`);
  writeFileSync(out, gunzipSync(readFileSync(join(DIR, 'past-oom', `${name}.pickle.gz`))));
  return out;
}

describe('the real run\'s OOM in what-ifs, against the GPU', () => {
  it('tune: the current setting needs what the real run reserved plus the request; expandable segments get past it in 600 MiB', () => {
    const out = runCli(['tune', FILE, '--capacity', String(600 * MiB), '--format', 'json']);
    expect(out.code).toBe(0);
    const j = JSON.parse(out.stdout);
    const current = j.rows.find((r: { current: boolean }) => r.current);
    expect(current).toMatchObject({ fits: false, oomCount: 0, realOomsReproduced: 1, minCapacityBytes: NEEDED });
    expect(j.recommendation).toMatchObject({ name: 'caching[expandable_segments=true]', setting: 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True', fits: true });
    const text = runCli(['tune', FILE, '--capacity', String(600 * MiB), '--no-color', '--top', '100']).stdout;
    expect(text).toMatch(/ no +602 MiB +538\.00 MiB +the real run's +caching \(current\)/);
  });

  it('the GPU: one byte below that capacity fails at the same request, at it the program gets past it, and so it does with expandable segments', () => {
    const original = allocationsBeforeFirstOom(FILE);
    expect(original).toEqual({ allocations: 456, sizeBytes: 64 * MiB });
    const below = JSON.parse(readFileSync(join(DIR, 'past-oom', `gpt2-cpp-oom@${NEEDED - 1}.json`), 'utf8'));
    const at = JSON.parse(readFileSync(join(DIR, 'past-oom', `gpt2-cpp-oom@${NEEDED}.json`), 'utf8'));
    expect([below.allowed_bytes, at.allowed_bytes]).toEqual([NEEDED - 1, NEEDED]);
    expect(allocationsBeforeFirstOom(unpacked(`gpt2-cpp-oom@${NEEDED - 1}`)).allocations).toBe(456);
    // Past the request: the program goes on and fails later, on a request the recording never reached.
    expect(allocationsBeforeFirstOom(unpacked(`gpt2-cpp-oom@${NEEDED}`)).allocations).toBeGreaterThan(456);
    const expandable = JSON.parse(readFileSync(join(DIR, 'past-oom', 'gpt2-cpp-oom+expandable_segments-True.json'), 'utf8'));
    expect(expandable.conf).toBe('expandable_segments:True');
    expect(Math.floor(expandable.per_process_memory_fraction * expandable.total_memory)).toBeLessThanOrEqual(600 * MiB);
    expect(allocationsBeforeFirstOom(unpacked('gpt2-cpp-oom+expandable_segments-True')).allocations).toBeGreaterThan(456);
  });

  it('compare: the current setting is no fit at 600 MiB (ranked after the rows that fit, failing the oom gate), the recording has no minimum capacity', () => {
    const out = runCli(['compare', FILE, '--capacity', String(600 * MiB), '--min-capacity', '--fail-on', 'oom', '--format', 'json']);
    expect(out.code).toBe(1);
    const j = JSON.parse(out.stdout);
    const row = (name: string) => j.allocators.find((e: { name: string }) => e.name === name);
    expect(row('caching')).toMatchObject({ completed: true, summary: { oomCount: 0 }, realOomsReproduced: 1, minCapacityBytes: NEEDED });
    expect(row('recorded')).toMatchObject({ minCapacityBytes: null, search: { guarantee: 'recorded-failure', replays: 0 } });
    expect(row('naive').realOomsReproduced).toBeUndefined();
    const fitting = j.allocators.filter((e: { summary: { oomCount: number }; realOomsReproduced?: number }) => e.summary.oomCount === 0 && !e.realOomsReproduced);
    expect(fitting.map((e: { rank: number }) => e.rank)).toEqual(fitting.map((_: unknown, k: number) => k + 1));
    expect(row('caching').rank).toBeGreaterThan(fitting.length);
    const gate = j.gates.find((g: { gate: string }) => g.gate === 'oom');
    expect(gate.failures.map((f: { allocator: string }) => f.allocator)).toContain('caching');
    expect(gate.failures.find((f: { allocator: string }) => f.allocator === 'caching').message).toMatch(/caching fails at the real run's OOM at capacity 600\.00 MiB/);
    const text = runCli(['compare', FILE, '--capacity', String(600 * MiB), '--min-capacity', '--no-color', '--width', '200']).stdout;
    expect(text).toMatch(/✘ OOM: 3 of 5 allocators ran out of memory at capacity 600\.00 MiB: caching \(the real run's OOM\)/);
    expect(text).toMatch(/│ caching +│ +538\.00 MiB │.*│ the real run's +│ +602 MiB │/);
    expect(text).toMatch(/│ recorded +│.*│ the real run failed │/);
    expect(text).toMatch(/caching: fails where the real run failed\n[\s\S]*held at the real run's OOM before event 749, by frame/);
  });

  it('replay: the same verdicts, at the capacity and one byte below, and with expandable segments', () => {
    const verdict = (...args: string[]) => {
      const j = JSON.parse(runCli(['replay', FILE, '--format', 'json', ...args]).stdout);
      return j.fidelity.recordedOoms[0].reproduced as boolean;
    };
    expect(verdict('--capacity', String(NEEDED))).toBe(false);
    expect(verdict('--capacity', String(NEEDED - 1))).toBe(true);
    expect(verdict('--capacity', String(600 * MiB), '--option', 'expandable_segments=true')).toBe(false);
  });
  it('the real run stopped at a cap, not the device: its verdict is made against what it held (or --capacity within the cap\'s bounds)', () => {
    const record = (...args: string[]) => {
      const j = JSON.parse(runCli(['replay', FILE, '-a', 'recorded', '--format', 'json', ...args]).stdout);
      return j.ooms[0] as { recorded: boolean; reservedBytes: number; limitBytes: number; capBelowBytes: number; kind: string; explanation: string };
    };
    // 538 MiB reserved, 63.60 MiB of it free, 77.90 GiB free on the device: the 600 MiB fraction stopped it.
    const o = record();
    expect(o).toMatchObject({ recorded: true, reservedBytes: 564_133_888, limitBytes: 564_133_888, capBelowBytes: NEEDED, kind: 'fragmentation' });
    expect(o.explanation).toMatch(/the device had 77\.90 GiB more, so a cap the snapshot does not record \(such as a memory fraction\) stopped the run below 602\.00 MiB\. Verdict: fragmentation\. Live plus the request, 535\.40 MiB, fits in the 538\.00 MiB it held under that cap/);
    expect(o.explanation).not.toMatch(/78\.43 GiB/);
    expect(record('--capacity', String(600 * MiB))).toMatchObject({ limitBytes: 600 * MiB, capBelowBytes: NEEDED });
    // A capacity outside the cap's bounds says nothing of the cap: the least it can have been.
    expect(record('--capacity', String(700 * MiB))).toMatchObject({ limitBytes: 564_133_888 });
    const note = runCli(['replay', FILE, '-a', 'caching', '--no-color']).stdout;
    expect(note).toMatch(/NOT reproduced: the simulation needs 64\.00 MiB more from the device with 538\.00 MiB reserved \(0 B of it could be given back\), and the device had 77\.90 GiB free \(the real run stopped at a cap of its own\)/);
  });
});
