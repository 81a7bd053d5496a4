import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compareTrace } from '../../src/sweep/compare.js';
import { alloc, free, KiB, MiB, runCli, tempDir, traceFromEvents } from '../helpers.js';

// naive with its default 2 MiB pages gives b (3 MiB) 4 MiB; with 64 KiB pages, exactly 3 MiB.
// a (1000 B) gets 1 KiB either way.
const mixed = traceFromEvents([alloc('a', 1000), alloc('b', 3 * MiB), free('a'), free('b')]);

describe('variants NAME[key=value,…] in compare', () => {
  it('runs each variant as a row of its own, named exactly so, with its options', async () => {
    const { report } = await compareTrace(mixed, { jobs: 1, allocators: ['naive', 'naive[page=64KiB]', ' naive[ page = 1MiB ] '] });
    const rows = Object.fromEntries(report.allocators.map((e) => [e.name, e]));
    expect(Object.keys(rows).sort()).toEqual(['naive', 'naive[page=1MiB]', 'naive[page=64KiB]']);
    expect(rows['naive']?.summary.peakReservedBytes).toBe(4 * MiB + KiB);
    expect(rows['naive[page=64KiB]']?.summary.peakReservedBytes).toBe(3 * MiB + KiB);
    expect(rows['naive[page=1MiB]']?.summary.peakReservedBytes).toBe(3 * MiB + KiB);
    expect(rows['naive[page=64KiB]']?.options['page']).toBe(64 * KiB);
    expect(report.allocators.map((e) => e.name)).toEqual(['naive[page=1MiB]', 'naive[page=64KiB]', 'naive']);
  });

  it('adds options given by name to a variant, and refuses a key set twice or a row listed twice', async () => {
    const { report } = await compareTrace(mixed, { jobs: 1, allocators: ['naive[page=64KiB]'], options: { 'naive[page=64KiB]': { alignment: '4KiB' } } });
    expect(report.allocators[0]?.summary.peakReservedBytes).toBe(3 * MiB + 4 * KiB);
    await expect(compareTrace(mixed, { jobs: 1, allocators: ['naive[page=64KiB]'], options: { 'naive[page=64KiB]': { page: '4KiB' } } })).rejects.toThrow(
      'naive[page=64KiB]: option page is set both in the brackets and by --option',
    );
    await expect(compareTrace(mixed, { jobs: 1, allocators: ['naive[page=64KiB]', 'naive[ page=64KiB ]'] })).rejects.toThrow('"naive[page=64KiB]" is listed twice');
    await expect(compareTrace(mixed, { jobs: 1, allocators: ['naive[pages=64KiB]'] })).rejects.toThrow('allocator "naive" has no option "pages"');
  });
});

describe('variants in the CLI', () => {
  const dir = tempDir();
  const trace = join(dir, 'mixed.csv');
  writeFileSync(trace, ['op,id,size', 'alloc,a,1000', `alloc,b,${3 * MiB}`, 'free,a', 'free,b'].join('\n') + '\n');

  it('compare --allocators takes variants; their figures are those of replay with the same options', () => {
    const r = runCli(['compare', trace, '--allocators', 'naive,naive[page=64KiB,alignment=4KiB]', '--format', 'json']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout).allocators as { name: string; summary: { peakReservedBytes: number } }[];
    expect(rows.map((e) => e.name)).toEqual(['naive[page=64KiB,alignment=4KiB]', 'naive']);
    const replayed = JSON.parse(runCli(['replay', trace, '--allocator', 'naive', '--option', 'page=64KiB,alignment=4KiB', '--format', 'json']).stdout);
    expect(rows[0]?.summary).toEqual(replayed.summary);
    const named = JSON.parse(runCli(['replay', trace, '--allocator', 'naive[page=64KiB,alignment=4KiB]', '--format', 'json']).stdout);
    expect(named.summary).toEqual(replayed.summary);
    expect(named.allocator).toEqual(replayed.allocator);
  });

  it('--baseline matches rows by their variant name, so a CI job can gate on the setting it ships', () => {
    const baseline = join(dir, 'base.json');
    expect(runCli(['compare', trace, '--allocators', 'naive,naive[page=64KiB]', '--format', 'json', '--output', baseline]).code).toBe(0);
    // b grows by 100 KiB: still 4 MiB with 2 MiB pages, but 3 MiB + 128 KiB with 64 KiB pages.
    const grown = join(dir, 'grown.csv');
    writeFileSync(grown, ['op,id,size', 'alloc,a,1000', `alloc,b,${3 * MiB + 100 * KiB}`, 'free,a', 'free,b'].join('\n') + '\n');
    const r = runCli(['compare', grown, '--allocators', 'naive,naive[page=64KiB]', '--baseline', baseline, '--fail-on', 'regression', '--format', 'json']);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(
      'memsim: gate regression failed: naive[page=64KiB] peak reserved 3.00 MiB -> 3.13 MiB (+4.17%), over the 0% allowed (--max-regression)',
    );
    const b = JSON.parse(r.stdout).baseline;
    expect(b.changes.filter((c: { direction: string }) => c.direction === 'worse').map((c: { allocator: string }) => c.allocator)).toEqual(['naive[page=64KiB]']);
    expect(b.added).toEqual([]);
    expect(b.removed).toEqual([]);
    // Only the shipped setting is gated: the same run with that row alone and a 5% allowance passes.
    const shipped = runCli(['compare', grown, '--allocators', 'naive[page=64KiB]', '--baseline', baseline, '--max-regression', '5%']);
    expect(shipped.code).toBe(0);
    expect(shipped.stdout).toContain('in the baseline only: naive');
  });

  it('report draws a variant under its own name', () => {
    const page = join(dir, 'page.html');
    expect(runCli(['report', trace, '--allocators', 'naive,naive[page=64KiB]', '--output', page]).code).toBe(0);
    const m = /id="memsim-data" data-encoding="gzip\+base64">([\s\S]*?)<\/script>/.exec(readFileSync(page, 'utf8'));
    const data = JSON.parse(gunzipSync(Buffer.from((m?.[1] ?? '').replace(/\s+/g, ''), 'base64')).toString('utf8'));
    expect(data.runs.map((r: { name: string }) => r.name)).toEqual(['naive[page=64KiB]', 'naive']);
    expect(data.runs[0].summary.peakReservedBytes).toBe(3 * MiB + KiB);
  });

  it('rejects malformed variants with exit 2 and a message naming them', () => {
    const r = runCli(['compare', trace, '--allocators', 'naive,naive[page=64KiB']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unbalanced brackets');
    const s = runCli(['replay', trace, '--allocator', 'naive[page]']);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('"naive[page]": expected key=value inside the brackets, got "page"');
  });
});
