import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runCli, SHARED_TRACES, tempDir } from '../helpers.js';

const complex = join(FIXTURES, 'planners', 'tflite-complex-records.csv');
const chain = 'size,first,last\n16,0,1\n8,1,2\n64,2,3\n32,3,4\n8,4,5\n';

describe('memsim plan', () => {
  it('writes memsim.plan/1 with both lower bounds and each assignment in record order', () => {
    const r = runCli(['plan', complex, '--strategy', 'greedy-by-size', '--format', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.schema).toBe('memsim.plan/1');
    expect(j.input).toEqual({ path: complex, format: 'records-csv', records: 9 });
    expect(j.lowerBounds).toEqual({ offsetsBytes: 96, objectsBytes: 112 });
    // TFLite's ComplexRecords: offsets total 96 (the bound, ratio 1); objects 112 (its own bound).
    expect(j.results.map((x: { kind: string; totalBytes: number; ratioToLowerBound: number }) => [x.kind, x.totalBytes, x.ratioToLowerBound])).toEqual([
      ['offsets', 96, 1],
      ['objects', 112, 1],
    ]);
    expect(j.results[0].offsets).toEqual([0, 32, 80, 64, 88, 0, 64, 72, 0]);
    expect(j.results[1].objectIds).toEqual([1, 0, 2, 1, 3, 0, 1, 2, 0]);
    expect(j.results[1].objectSizes).toEqual([64, 32, 8, 8]);
  });

  it('--format csv writes the records with an offset column; --alignment aligns offsets (stdin input)', () => {
    const r = runCli(['plan', '-', '--strategy', 'greedy-by-size:offsets', '--alignment', '128', '--format', 'csv'], { input: chain });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('size,first,last,offset\n16,0,1,0\n8,1,2,128\n64,2,3,0\n32,3,4,128\n8,4,5,0\n');
  });

  it('text: the bounds, then a table best first', () => {
    const r = runCli(['plan', complex, '--time-limit', '2s', '--width', '160']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`memsim plan: ${complex} (records-csv, 9 records)`);
    expect(lines[1]).toBe('lower bounds: offsets 96 B (96 B, peak of live bytes), objects 112 B (112 B, sum of positional maxima)');
    const rows = lines.filter((l) => /^│ +\d+ │/.test(l));
    expect(rows[0]).toMatch(/│ +1 │ best +│ offsets │ +96 │ .*optimal: reaches the lower bound/);
    const totals = rows.map((l) => Number((l.split('│')[4] as string).trim().replace(/,/g, '')));
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    expect(rows.length).toBe(11); // best and the ten planners all ran on 9 records
  });

  it('plans a memsim trace (one record per allocation) and writes to --output', () => {
    const out = join(tempDir(), 'plan.json');
    const r = runCli(['plan', join(FIXTURES, 'three-steps.csv'), '--strategy', 'best', '--format', 'json', '--output', out]);
    expect([r.code, r.stdout]).toEqual([0, '']);
    const j = JSON.parse(readFileSync(out, 'utf8'));
    expect(j.input.format).toBe('trace:csv');
    expect(j.results).toHaveLength(1);
    expect(j.results[0]).toMatchObject({ strategy: 'best', kind: 'offsets', proven: true, totalBytes: j.lowerBounds.offsetsBytes });
  });

  it('bad records exit 2 with file:line and field; bad options exit 2 naming the flag', () => {
    const bad = runCli(['plan', '-', '--input-format', 'records-csv'], { input: 'size,first,last\n8,2,1\n' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('memsim: invalid input (1 problem):\n-:2: field "last": last must be >= first, got first=2, last=1\n');
    const strategy = runCli(['plan', complex, '--strategy', 'greedy-by-luck']);
    expect(strategy.code).toBe(2);
    expect(strategy.stderr).toMatch(/^memsim: --strategy: unknown strategy "greedy-by-luck" \(known: all, best, naive, /);
    expect(runCli(['plan', complex, '--strategy', 'naive:offsets']).stderr).toBe('memsim: --strategy: "naive" has no offsets kind\n');
    expect(runCli(['plan', complex, '--time-limit', 'soon']).stderr).toBe('memsim: --time-limit: "soon" is not a duration (examples: 10s, 500ms, 2m)\n');
    expect(runCli(['plan', complex, '--alignment', '0']).code).toBe(2);
  });

  it('--capacity: found exits 0, proven infeasible or not known exits 1 with the verdict on stderr', () => {
    const found = runCli(['plan', '-', '--strategy', 'best', '--capacity', '96', '--input-format', 'records-csv'], { input: chain });
    expect(found.code).toBe(0);
    expect(found.stdout.split('\n')[2]).toBe('capacity 96 B: found: best packs the records in 96 B (greedy-in-order (objects))');
    const no = runCli(['plan', '-', '--strategy', 'best', '--capacity', '95', '--format', 'json'], { input: chain });
    expect(no.code).toBe(1);
    expect(no.stderr).toBe('memsim: capacity 95 B: proven infeasible: the offsets lower bound is 96 B\n');
    const j = JSON.parse(no.stdout);
    // The default node budget, 10^8 over a node's cost: 5 buffers, 8/5 overlaps and 2 x 8/5 sections
    // (the chain's 4 sections: the end ones in one buffer's span, the middle three buffers span 2).
    expect([j.capacityBytes, j.nodeBudget, j.timeLimitMs, j.results[0].search.status]).toEqual([95, 10_204_081, 60_000, 'infeasible']);
    const off = runCli(['plan', '-', '--strategy', 'best', '--capacity', '95', '--node-budget', '0'], { input: chain });
    expect(off.code).toBe(1);
    const notBest = runCli(['plan', '-', '--strategy', 'naive', '--capacity', '95'], { input: chain });
    expect([notBest.code, notBest.stderr]).toEqual([2, `memsim: --capacity: the feasibility search is best's; add best to --strategy (e.g. --strategy best)\n`]);
    expect(runCli(['plan', '-', '--time-limit', '0'], { input: chain }).stderr).toBe('memsim: --time-limit: must be positive, got "0" (--node-budget 0 turns the exact search off)\n');
    expect(runCli(['plan', '-', '--node-budget', 'lots'], { input: chain }).stderr).toBe('memsim: --node-budget: expected a non-negative integer, got "lots"\n');
  });

  it('help lists the strategies and ends with examples', () => {
    const r = runCli(['plan', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/greedy-by-size \(offsets\) +largest first/);
    const examples = r.stdout.trimEnd().split('Examples:\n')[1]?.split('\n') ?? [];
    expect(examples.length).toBeGreaterThanOrEqual(3);
    expect(examples.length).toBeLessThanOrEqual(5);
    for (const e of examples) expect(e).toMatch(/^ {2}\$ memsim plan /);
  });

  const mm = join(SHARED_TRACES, 'minimalloc', 'input.12.csv');
  it.skipIf(!existsSync(mm))('minimalloc input.12: best packs it in 12 and writes minimalloc output rows', () => {
    const r = runCli(['plan', mm, '--strategy', 'best', '--format', 'csv']);
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows[0]).toBe('id,lower,upper,size,offset');
    expect(rows.slice(1).map((l) => l.split(',').slice(0, 4).join(','))).toEqual(['b1,0,3,4', 'b2,3,9,4', 'b3,0,9,4', 'b4,9,21,4', 'b5,0,21,4']);
    const top = Math.max(...rows.slice(1).map((l) => Number(l.split(',')[4]) + 4));
    expect(top).toBe(12);
  });
});
