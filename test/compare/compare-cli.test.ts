import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { KiB, MiB, runCli, tempDir } from '../helpers.js';
import { EARLY_WORKERS_MIN_BYTES } from '../../src/cli/early-workers.js';

const dir = tempDir();
/** Writes a CSV trace (header on line 1, event k on line k + 2) and returns its path. */
function csv(name: string, rows: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, ['op,id,size', ...rows].join('\n') + '\n');
  return path;
}
const lastLine = (s: string): string => s.trimEnd().split('\n').at(-1) ?? '';

// naive: a (1000 B) gets 1 KiB; b (3 MiB) gets 4 MiB. At a 4 MiB capacity b fails (event 1, line 3).
const mixed = csv('mixed.csv', ['alloc,a,1000', `alloc,b,${3 * MiB}`, 'free,a', 'free,b']);
// Two 1-byte requests hold 512 B each: fragmentation 1 - 2/1024.
const tiny = csv('tiny.csv', ['alloc,a,1', 'alloc,b,1']);
// 100 KiB, then the same workload grown by 3% (103 KiB), and shrunk (90 KiB); all multiples of 512.
const base = csv('base.csv', [`alloc,a,${100 * KiB}`, 'free,a']);
const grown = csv('grown.csv', [`alloc,a,${103 * KiB}`, 'free,a']);
const shrunk = csv('shrunk.csv', [`alloc,a,${90 * KiB}`, 'free,a']);
const baseline = join(dir, 'baseline.json');

beforeAll(() => {
  const r = runCli(['compare', '--allocators', 'naive', base, '--min-capacity', '--capacity-step', '1KiB', '--format', 'json', '--output', baseline]);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe('');
});

describe('memsim compare (CLI)', () => {
  it('prints the table with the lower bound row and exits 0', () => {
    const r = runCli(['compare', mixed, '--allocators', 'naive', '--min-capacity']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/✔ fits: the allocator fits \(unlimited capacity\); best naive: peak reserved 4\.00 MiB/);
    expect(r.stdout).toMatch(/│\s+│ lower bound \(peak live\) │\s+3\.00 MiB │/);
    expect(r.stdout).toMatch(/│ 1 │ naive\s+│\s+4\.00 MiB │\s+\+33\.32% │/);
    expect(r.stdout).toMatch(/naive: 5 MiB; 4 MiB fails \(\d+ replays\)/);
  });

  it('fails the oom gate at a capacity that does not fit, naming gate, allocator and numbers', () => {
    const r = runCli(['compare', '--allocators', 'naive', mixed, '--capacity', '4MiB', '--fail-on', 'oom']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✘ OOM: 1 of 1 allocator ran out of memory at capacity 4\.00 MiB: naive \(fragmentation\)/);
    expect(lastLine(r.stderr)).toBe(
      'memsim: gate oom failed: naive hit 1 OOM(s) at capacity 4.00 MiB; the first at event 1 (line 3): 3.00 MiB requested with 1000 B live, 1.00 KiB reserved (fragmentation)',
    );
    expect(runCli(['compare', '--allocators', 'naive', mixed, '--capacity', '5MiB', '--fail-on', 'oom']).code).toBe(0);
    // Without the gate an OOM is a result, not a failure.
    expect(runCli(['compare', '--allocators', 'naive', mixed, '--capacity', '4MiB']).code).toBe(0);
  });

  it('fails a fragmentation threshold above it and passes below it', () => {
    const r = runCli(['compare', '--allocators', 'naive', tiny, '--fail-on', 'fragmentation>0.3']);
    expect(r.code).toBe(1);
    expect(lastLine(r.stderr)).toBe('memsim: gate fragmentation>0.3 failed: naive fragmentation 0.998047 > 0.3 (peak live 2 B, peak allocated 1.00 KiB, peak reserved 1.00 KiB)');
    expect(runCli(['compare', '--allocators', 'naive', tiny, '--fail-on', 'fragmentation>99.9%']).code).toBe(0);
  });

  it('reports every failed gate, the last one last', () => {
    const r = runCli(['compare', '--allocators', 'naive', tiny, '--capacity', '512', '--fail-on', 'overhead>0.5', '--fail-on', 'oom']);
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^memsim: gate overhead>0.5 failed: naive overhead 511 > 0.5/);
    expect(lines[1]).toMatch(/^memsim: gate oom failed: naive hit 1 OOM\(s\) at capacity 512 B; the first at event 1 \(line 3\)/);
  });

  it('exits 2 on bad usage, before reading the trace', () => {
    const cases: [string[], RegExp][] = [
      [['--fail-on', 'regression'], /--fail-on regression needs --baseline FILE/],
      [['--max-regression', '5%'], /--max-regression needs --baseline FILE/],
      [['--fail-on', 'fragmentation>lots'], /"lots" in "fragmentation>lots" is not a ratio/],
      [['--fail-on', 'slowness'], /unknown condition "slowness"/],
      [['--option', 'page=4KiB'], /names the allocator: allocator.key=value/],
      [['--allocators', 'naive,nope'], /unknown allocator "nope"/],
      [['--option', 'bfc-typo.page=4KiB', '--allocators', 'naive'], /options given for "bfc-typo", which is not compared/],
      [['--capacity-step', '0'], /--capacity-step: must be positive/],
      [['--baseline', join(dir, 'missing.json')], /cannot read the baseline .*missing\.json: no such file or directory/],
      [['--baseline', mixed], /mixed\.csv: not a baseline: a JSON report that memsim wrote was expected, and the file starts with "op,id,size/],
      [['--jobs', '0'], /--jobs: must be at least 1/],
    ];
    for (const [args, message] of cases) {
      const r = runCli(['compare', '--allocators', 'naive', mixed, ...args]);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
    const wrongSchema = join(dir, 'replay.json');
    writeFileSync(wrongSchema, runCli(['replay', mixed, '--format', 'json']).stdout);
    expect(runCli(['compare', '--allocators', 'naive', mixed, '--baseline', wrongSchema]).stderr).toMatch(/not a usable memsim.compare\/1 baseline: schema is "memsim.replay\/1"/);
  });

  it('fails the regression gate when a figure got worse than the baseline', () => {
    const r = runCli(['compare', '--allocators', 'naive', grown, '--min-capacity', '--capacity-step', '1KiB', '--baseline', baseline, '--fail-on', 'regression', '--format', 'json']);
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      'memsim: gate regression failed: naive peak reserved 100.00 KiB -> 103.00 KiB (+3%), over the 0% allowed (--max-regression)',
      'memsim: gate regression failed: naive minimum capacity 100.00 KiB -> 103.00 KiB (+3%), over the 0% allowed (--max-regression)',
    ]);
    const report = JSON.parse(r.stdout);
    expect(report.baseline.changes).toEqual([
      { allocator: 'naive', figure: 'peakReservedBytes', baseline: 100 * KiB, current: 103 * KiB, delta: 3 * KiB, relative: 0.03, direction: 'worse', exceedsThreshold: true },
      { allocator: 'naive', figure: 'minCapacityBytes', baseline: 100 * KiB, current: 103 * KiB, delta: 3 * KiB, relative: 0.03, direction: 'worse', exceedsThreshold: true },
      { allocator: 'naive', figure: 'oomCount', baseline: 0, current: 0, delta: 0, relative: 0, direction: 'same', exceedsThreshold: false },
    ]);
    expect(report.gates).toEqual([{ gate: 'regression', failed: true, failures: expect.any(Array) }]);
  });

  it('lets --max-regression allow a small worsening and fail a larger one', () => {
    const args = ['compare', '--allocators', 'naive', grown, '--min-capacity', '--capacity-step', '1KiB', '--baseline', baseline];
    expect(runCli([...args, '--max-regression', '5%']).code).toBe(0);
    expect(runCli([...args, '--max-regression', '0.03']).code).toBe(0);
    const r = runCli([...args, '--max-regression', '2%']);
    expect(r.code).toBe(1);
    expect(lastLine(r.stderr)).toMatch(/naive minimum capacity 100\.00 KiB -> 103\.00 KiB \(\+3%\), over the 2% allowed/);
    // A baseline alone reports, and gates nothing.
    expect(runCli(args).code).toBe(0);
  });

  it('reports improvements against the baseline and passes the gate', () => {
    const r = runCli(['compare', '--allocators', 'naive', shrunk, '--min-capacity', '--capacity-step', '1KiB', '--baseline', baseline, '--fail-on', 'regression', '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('**✅ fits**: the allocator fits (unlimited capacity); best `naive`: peak reserved 90.00 KiB, +0.00% over the lower bound 90.00 KiB · 📉 improved vs baseline: 2 figures better');
    expect(r.stdout).toContain('<details><summary>vs baseline: 0 worse, 2 better</summary>');
    expect(r.stdout).toContain('| naive | peak reserved | 100.00 KiB | 90.00 KiB | -10.00% | better |');
  });

  it('counts a new OOM as a regression from none', () => {
    const at100 = join(dir, 'baseline-100k.json');
    expect(runCli(['compare', '--allocators', 'naive', base, '--capacity', '100KiB', '--json-output', at100]).code).toBe(0);
    const r = runCli(['compare', '--allocators', 'naive', grown, '--capacity', '100KiB', '--baseline', at100, '--fail-on', 'regression']);
    expect(r.code).toBe(1);
    expect(lastLine(r.stderr)).toBe('memsim: gate regression failed: naive OOM count 0 -> 1 (from none), over the 0% allowed (--max-regression)');
  });

  it('refuses a baseline of another capacity or another trace, before replaying; --baseline-any compares anyway', () => {
    const r = runCli(['compare', '--allocators', 'naive', base, '--capacity', '50KiB', '--baseline', baseline, '--fail-on', 'regression']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      `memsim: --baseline ${baseline} is from another experiment: the capacity: the baseline's is unlimited, this one 50.00 KiB (51,200 bytes). ` +
        'Its figures would read as regressions or improvements that no change made: compare with a baseline of the same trace and capacity, or pass --baseline-any to compare anyway\n',
    );
    // Two workloads by their names (a JSON trace's meta.name).
    const named = (name: string, size: number): string => {
      const path = join(dir, `${name}.json`);
      writeFileSync(path, JSON.stringify({ format: 'memsim-trace', version: 1, meta: { name }, events: [{ op: 'alloc', id: 'a', size }, { op: 'free', id: 'a' }] }));
      return path;
    };
    const training = named('training', 100 * KiB);
    const inference = named('inference', 400 * KiB);
    const trainingBase = join(dir, 'training-base.json');
    expect(runCli(['compare', '--allocators', 'naive', training, '--json-output', trainingBase]).code).toBe(0);
    const other = runCli(['compare', '--allocators', 'naive', inference, '--baseline', trainingBase]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`is from another experiment: the trace: the baseline's is "training" (${training}, 2 events), this one "inference" (${inference}, 2 events).`);
    const anyway = runCli(['compare', '--allocators', 'naive', inference, '--baseline', trainingBase, '--baseline-any', '--format', 'json']);
    expect(anyway.code).toBe(0);
    expect(JSON.parse(anyway.stdout).baseline.notes).toEqual([`compared anyway (--baseline-any): the trace: the baseline's is "training" (${training}, 2 events), this one "inference" (${inference}, 2 events)`]);
    // The same workload grown (same name) is compared: that is what a baseline is for.
    const grownTraining = join(tempDir(), 'training.json');
    writeFileSync(grownTraining, JSON.stringify({ format: 'memsim-trace', version: 1, meta: { name: 'training' }, events: [{ op: 'alloc', id: 'a', size: 103 * KiB }, { op: 'free', id: 'a' }] }));
    const regressed = runCli(['compare', '--allocators', 'naive', grownTraining, '--baseline', trainingBase, '--fail-on', 'regression']);
    expect(regressed.code).toBe(1);
    expect(lastLine(regressed.stderr)).toMatch(/naive peak reserved 100\.00 KiB -> 103\.00 KiB \(\+3%\)/);
  });

  it('writes bench-json for benchmark trackers', () => {
    const r = runCli(['compare', '--allocators', 'naive', mixed, '--min-capacity', '--format', 'bench-json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { name: 'lower bound (peak live)', unit: 'bytes', value: 1000 + 3 * MiB },
      { name: 'naive peak reserved', unit: 'bytes', value: KiB + 4 * MiB },
      { name: 'naive min capacity', unit: 'bytes', value: 5 * MiB },
    ]);
  });

  it('gives the same JSON with one job or several', () => {
    // Every registered allocator: with two or more, --jobs 2 runs them on worker threads.
    const one = runCli(['compare', mixed, '--min-capacity', '--format', 'json', '--jobs', '1']);
    const two = runCli(['compare', mixed, '--min-capacity', '--format', 'json', '--jobs', '2']);
    expect(one.code).toBe(0);
    expect(two.stderr).toBe('');
    expect(two.stdout).toBe(one.stdout);
    expect(JSON.parse(one.stdout).schema).toBe('memsim.compare/1');
  });

  it('writes the report to --output, the JSON to --json-output even when a gate fails, and keeps stdout empty', () => {
    const out = join(dir, 'out.md');
    const json = join(dir, 'out.json');
    const r = runCli(['compare', '--allocators', 'naive', mixed, '--capacity', '4MiB', '--fail-on', 'oom', '--format', 'markdown', '--output', out, '--json-output', json]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toMatch(/^\*\*❌ OOM\*\*/);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.schema).toBe('memsim.compare/1');
    expect(report.gates[0]).toMatchObject({ gate: 'oom', failed: true });
  });
});

describe('compare on a trace large enough for workers started before it is read', () => {
  // 60,000 events in 1.3 MB: over the size at which compare starts its workers while it reads.
  const rows: string[] = [];
  for (let k = 0; k < 30_000; k++) rows.push(`alloc,tensor-${k},${1024 + (k % 97) * 512}`, `free,tensor-${k}`);
  const big = csv('big.csv', rows);
  expect(statSync(big).size).toBeGreaterThan(EARLY_WORKERS_MIN_BYTES);
  const broken = csv('big-broken.csv', [...rows, 'alloc,zz,-5']);

  it('gives the report of one thread', () => {
    const threads = runCli(['compare', big, '--allocators', 'naive,bfc,caching', '--format', 'json']);
    const one = runCli(['compare', big, '--allocators', 'naive,bfc,caching', '--format', 'json', '--jobs', '1']);
    expect([threads.code, one.code]).toEqual([0, 0]);
    expect(threads.stdout).toBe(one.stdout);
    expect(JSON.parse(threads.stdout).trace.events).toBe(60_000);
  });

  it('ends with the reading error (exit 2), its workers not holding the process', () => {
    const r = runCli(['compare', broken]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/big-broken\.csv:60002.*size/);
    expect(r.stdout).toBe('');
  });
});

describe('compare --min-capacity on a grid finer than a KiB', () => {
  it('gives the capacities in bytes: rounded, the answer and the step below it read alike', () => {
    const file = join(tempDir(), 't1.csv');
    writeFileSync(file, 'op,id,size,step\nalloc,a,1000,0\nalloc,b,3000,0\nfree,a,,0\nalloc,c,2000,1\nalloc,d,500,1\nfree,b,,1\nfree,c,,2\nfree,d,,2\n');
    const r = runCli(['compare', file, '-a', 'naive', '--min-capacity', '--capacity-step', '1']);
    expect(r.stdout).toContain('  naive: 5,632 B; 5,631 B fails (2 replays)');
  });
});
