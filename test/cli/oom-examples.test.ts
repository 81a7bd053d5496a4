import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers.js';

/** The words of an example command line after `memsim` (no quoting in these examples). */
const argsOf = (line: string): string[] => line.replace(/^.*?memsim /, '').trim().split(/\s+/);

/** `--output FILE` pointed into a temporary folder, so that running an example writes nothing here. */
function intoTemp(args: string[]): string[] {
  const dir = tempDir();
  return args.map((a, k) => (args[k - 1] === '--output' ? join(dir, a) : a));
}

/** The OOM count of every row when the example's replays run as `compare --format json`. */
function oomsOf(args: string[]): Record<string, number> {
  const [command, trace, ...rest] = args;
  const flags: string[] = [];
  for (let k = 0; k < rest.length; k++) {
    const a = rest[k] as string;
    if (a === '--output' || a === '--format') k++;
    else if (a === '--allow-oom') continue;
    else if (a === '--allocator') flags.push('--allocators', rest[++k] as string);
    else flags.push(a);
  }
  expect(['replay', 'report']).toContain(command);
  const r = runCli(['compare', trace as string, ...flags, '--format', 'json'], { cwd: ROOT });
  expect(r.code).toBe(0);
  const rows = JSON.parse(r.stdout).allocators as { name: string; summary: { oomCount: number } }[];
  return Object.fromEntries(rows.map((e) => [e.name, e.summary.oomCount]));
}

describe('the OOM examples really OOM', () => {
  for (const command of ['replay', 'report']) {
    it(`memsim ${command} --help: every example with --on-oom runs and hits OOMs`, () => {
      const help = runCli([command, '--help']).stdout;
      const examples = help.split('\n').filter((l) => l.includes('$ memsim') && l.includes('--on-oom'));
      expect(examples.length).toBeGreaterThan(0);
      for (const line of examples) {
        const args = argsOf(line);
        const run = runCli(intoTemp(args), { cwd: ROOT });
        expect(run.code, `${line}\n${run.stderr}`).toBe(0);
        const ooms = oomsOf(args);
        expect(Math.max(...Object.values(ooms)), line).toBeGreaterThan(0);
      }
    });
  }

  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('README, who holds the memory: the caching example fails at event 1,876 by fragmentation, as shown', () => {
    const line = readme.split('\n').find((l) => l.startsWith('$ memsim replay traces/training.json --allocator caching --capacity 9.5GiB'));
    expect(line).toBeDefined();
    const r = runCli(argsOf(line as string), { cwd: ROOT });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('OOM at event 1,876, line 1878, step 3: alloc "g1105" (lm_head.logits.grad) of 500.00 MiB');
    expect(readme).toContain('OOM at event 1,876, line 1878, step 3: alloc "g1105" (lm_head.logits.grad) of 500.00 MiB');
    expect(r.stdout).toContain('fragmentation: At event 1,876 the request');
  });

  it("README, HTML report: lifetime-pool's 15 OOMs on a 150-step training trace at 20 GiB", () => {
    const block = readme.split('\n').filter((l) => l.startsWith('memsim gen training --steps 150') || l.startsWith('memsim report training.csv'));
    expect(block).toHaveLength(2);
    const dir = tempDir();
    const gen = argsOf(block[0] as string).map((a) => (a === 'training.csv' ? join(dir, a) : a));
    expect(runCli(gen).code).toBe(0);
    const report = argsOf(block[1] as string).map((a) => (a === 'training.csv' ? join(dir, a) : a));
    expect(runCli(intoTemp(report)).code).toBe(0);
    expect(oomsOf(report)).toEqual({ naive: 0, 'lifetime-pool': 15 });
    expect(readme).toContain("lifetime-pool's pools at its 15th OOM");
  });
});

describe('a run that failed requests: its peak of live bytes is what it served, not the bound', () => {
  const trace = join(ROOT, 'traces', 'fragmentation.csv');
  const args = ['replay', trace, '-a', 'bfc', '--capacity', '560MiB', '--on-oom', 'continue', '--allow-oom'];

  it('replay names the two apart (text and Markdown) and gives no overhead against the bound', () => {
    const text = runCli(args).stdout;
    expect(text).toMatch(/peak live served +│ +479\.19 MiB │ event 814/);
    expect(text).toMatch(/lower bound +│ +535\.06 MiB │ the trace's peak live/);
    expect(text).toMatch(/overhead vs lower bound +│ +– │ not every request served/);
    expect(text).not.toContain('peak live (lower bound)');
    const md = runCli([...args, '--format', 'markdown']).stdout;
    expect(md).toContain('| peak live served | 479.19 MiB |');
    expect(md).toContain("| lower bound (the trace's peak live) | 535.06 MiB |");
    // A run that served every request keeps the one row.
    expect(runCli(['replay', trace, '-a', 'bfc']).stdout).toMatch(/peak live \(lower bound\) +│ +535\.06 MiB/);
  });

  it('compare gives such a row no overhead against the bound', () => {
    const r = JSON.parse(runCli(['compare', trace, '-a', 'bfc,naive', '--capacity', '560MiB', '--on-oom', 'continue', '--format', 'json']).stdout);
    expect(r.allocators.find((e: { name: string }) => e.name === 'bfc').summary.oomCount).toBeGreaterThan(0);
    const text = runCli(['compare', trace, '-a', 'bfc,naive', '--capacity', '560MiB', '--on-oom', 'continue', '--width', '200']).stdout;
    expect(text).toMatch(/│ +\d+ │ bfc +│ +560\.00 MiB │ +– │/);
  });
});
