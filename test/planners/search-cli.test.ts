/**
 * `memsim plan --strategy best` as a user runs it: the same bytes on every run when the node budget
 * ends the search, a run the clock cut says so, and `--capacity` answers found / proven infeasible /
 * budget exhausted in the text, on stderr and in the JSON.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { partitionRecords } from '../../src/planners/exact/sweep.js';
import { checkOffsets, defaultNodeBudget, makeRecords, SEARCH_LIMITS } from '../../src/planners/index.js';
import { runCli, tempDir } from '../helpers.js';
import { perfectPacking } from './reference.js';

/** A perfect packing (optimum = its height) as a size,first,last CSV in a scrambled order. */
function hardCsv(seed: number, pieces: number): { path: string; height: number; records: { size: number; first: number; last: number }[] } {
  let x = seed;
  const rand = (): number => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0), x / 2 ** 32);
  const { records, height } = perfectPacking(rand, pieces, 64, 1024);
  const path = join(tempDir(), `hard-${seed}-${pieces}.csv`);
  writeFileSync(path, `size,first,last\n${records.map((r) => `${r.size},${r.first},${r.last}`).join('\n')}\n`);
  return { path, height, records };
}

interface Best {
  totalBytes: number;
  offsets: number[];
  proven: boolean;
  search: { status: string; nodes: number; nodeBudget: number; capacityBytes?: number };
}
/** The text output as one line: table borders dropped, wrapped cells and lines joined. */
const flat = (text: string): string => text.replace(/[│┌┐└┘├┤┬┴┼─]/g, ' ').replace(/\s+/g, ' ');
const bestOf = (stdout: string): Best => (JSON.parse(stdout) as { results: (Best & { strategy: string })[] }).results.find((r) => r.strategy === 'best') as Best;

describe('plan --strategy best: reproducible, and says when the clock cut it', () => {
  const hard = hardCsv(99, 150);

  it('a search that ends on its node budget gives the same bytes on every run', () => {
    const args = ['plan', hard.path, '--strategy', 'best', '--node-budget', '20000', '--format', 'json'];
    const a = runCli(args);
    const b = runCli(args);
    expect(a.code).toBe(0);
    const best = bestOf(a.stdout);
    expect([best.search.status, best.search.nodes, best.proven]).toEqual(['budget', 20_000, false]);
    expect(best.totalBytes).toBeGreaterThan(hard.height);
    expect(checkOffsets(makeRecords(hard.records), best.offsets, best.totalBytes)).toBeNull();
    expect(b.stdout).toBe(a.stdout);
    const text = runCli(['plan', hard.path, '--strategy', 'best', '--node-budget', '20000']);
    expect(flat(text.stdout)).toMatch(/ best offsets 1,\d{3} .* not proven: node budget of 20,000 spent \(exact search\)/);
    expect(text.stdout).not.toMatch(/clock|rerun/);
  });

  it('a run the clock cut says so: status timeout, the note column and a note line', () => {
    // The search reads the clock every 1,024 nodes; by the first look 1 ms has long passed.
    const big = hardCsv(4242, 400);
    const json = runCli(['plan', big.path, '--strategy', 'best', '--time-limit', '1ms', '--format', 'json']);
    expect(json.code).toBe(0);
    const j = JSON.parse(json.stdout) as { timeLimitMs: number; notes: string[] };
    const best = bestOf(json.stdout);
    expect([j.timeLimitMs, best.search.status, best.proven]).toEqual([1, 'timeout', false]);
    expect(best.search.nodes).toBeLessThan(best.search.nodeBudget);
    expect(checkOffsets(makeRecords(big.records), best.offsets, best.totalBytes)).toBeNull();
    // The default budget: 10^8 over what a node of this input costs.
    const r = makeRecords(big.records);
    expect(best.search.nodeBudget).toBe(defaultNodeBudget(partitionRecords(r, SEARCH_LIMITS.maxOverlapPairs), r.count));
    const budget = best.search.nodeBudget.toLocaleString('en-US');
    expect(j.notes).toContain(`the clock (time limit 1 ms) stopped best's exact search after ${best.search.nodes.toLocaleString('en-US')} of its ${budget} nodes: this total depends on the machine and may differ on a rerun`);
    const text = runCli(['plan', big.path, '--strategy', 'best', '--time-limit', '1ms']);
    expect(flat(text.stdout)).toMatch(new RegExp(`not proven: cut by the clock after [\\d,]+ nodes of ${budget}, a rerun may differ`));
    expect(flat(text.stdout)).toMatch(/note: the clock \(time limit 1 ms\) stopped best's exact search .* may differ on a rerun/);
  });
});

describe('plan --capacity: found / proven infeasible / budget exhausted', () => {
  const hard = hardCsv(12345, 40);

  it('found: the search packs it at the capacity (exit 0)', () => {
    const r = runCli(['plan', hard.path, '--strategy', 'best', '--capacity', String(hard.height), '--format', 'json']);
    expect(r.code).toBe(0);
    const best = bestOf(r.stdout);
    expect([best.totalBytes, best.search.status, best.search.capacityBytes]).toEqual([hard.height, 'found', hard.height]);
    expect(checkOffsets(makeRecords(hard.records), best.offsets, hard.height)).toBeNull();
    const text = runCli(['plan', hard.path, '--strategy', 'best', '--capacity', String(hard.height)]);
    const h = hard.height.toLocaleString('en-US');
    expect(flat(text.stdout)).toMatch(new RegExp(` capacity ${h} B: found: best packs the records in ${h} B \\(exact search, [\\d,]+ search nodes\\) `));
  });

  it('proven infeasible below the lower bound (exit 1, the verdict on stderr)', () => {
    const r = runCli(['plan', hard.path, '--strategy', 'best', '--capacity', String(hard.height - 1), '--format', 'json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`memsim: capacity ${(hard.height - 1).toLocaleString('en-US')} B: proven infeasible: the offsets lower bound is ${hard.height.toLocaleString('en-US')} B\n`);
    expect(bestOf(r.stdout).search.status).toBe('infeasible');
  });

  it('budget exhausted: not known (exit 1), the smallest packing found is still written', () => {
    const r = runCli(['plan', hard.path, '--strategy', 'best', '--capacity', String(hard.height), '--node-budget', '10', '--format', 'json']);
    expect(r.code).toBe(1);
    const best = bestOf(r.stdout);
    expect([best.search.status, best.search.nodes, best.search.nodeBudget]).toEqual(['budget', 10, 10]);
    expect(best.totalBytes).toBeGreaterThan(hard.height);
    expect(checkOffsets(makeRecords(hard.records), best.offsets, best.totalBytes)).toBeNull();
    expect(r.stderr).toBe(
      `memsim: capacity ${hard.height.toLocaleString('en-US')} B: not known: budget exhausted (10 of 10 nodes) before a packing or a proof; smallest packing found ${best.totalBytes.toLocaleString('en-US')} B\n`,
    );
  });
});
