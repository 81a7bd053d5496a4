import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MiB, ROOT, runCli, tempDir } from '../helpers.js';

const dir = tempDir();
const trace = join(dir, 'fragmentation.csv');
/** The text with its wrapped lines joined back. */
const unwrap = (s: string) => s.replace(/\n {2,}/g, ' ');
const json = (args: string[]) => {
  const r = runCli(args);
  if (r.code !== 0 && r.code !== 1) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
};

beforeAll(() => {
  // Small survivors between large short-lived blocks, then slightly larger requests: holes that no
  // request fits. Its peak of live bytes is 535.06 MiB.
  expect(runCli(['gen', 'fragmentation', '--steps', '30', '--format', 'csv', '--output', trace]).code).toBe(0);
});

describe('memsim tune: the setting that fits', () => {
  it('finds that only expandable segments fit at 540 MiB, and an independent replay agrees', () => {
    const r = json(['tune', trace, '--allocators', 'caching', '--capacity', '540MiB', '--format', 'json']);
    expect(r.schema).toBe('memsim.tune/1');
    expect(Object.keys(r.recommendation)).toEqual(
      expect.arrayContaining(['allocator', 'options', 'setting', 'fits', 'minCapacityBytes', 'peakReservedBytes', 'savingBytes']),
    );
    expect(r.recommendation).toMatchObject({
      allocator: 'caching',
      name: 'caching[expandable_segments=true]',
      options: { expandable_segments: true },
      setting: 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True',
      fits: true,
      changes: [{ key: 'expandable_segments', from: false, to: true }],
      current: { name: 'caching', fits: false },
    });
    expect(r.rows).toHaveLength(60);
    const fitting = r.rows.filter((x: { fits: boolean }) => x.fits);
    const withoutExpandable = r.rows.filter((x: { options: { expandable_segments?: boolean } }) => x.options.expandable_segments !== true);
    expect(withoutExpandable).toHaveLength(30);
    expect(withoutExpandable.some((x: { fits: boolean }) => x.fits)).toBe(false);
    expect(fitting.length).toBeGreaterThan(0);
    expect(r.rows.slice(0, fitting.length)).toEqual(fitting);
    const current = r.rows.find((x: { current: boolean }) => x.current);
    expect(current).toMatchObject({ name: 'caching', fits: false, oomCount: 1, oomKind: 'fragmentation', options: {} });
    for (const key of ['allocator', 'options', 'current', 'fits', 'minCapacityBytes', 'peakReservedBytes', 'oomCount', 'deviceAllocCalls']) expect(current).toHaveProperty(key);

    // The recommendation replayed on its own at the capacity fits; the current setting does not.
    const ok = runCli(['replay', trace, '--allocator', 'caching[expandable_segments=true]', '--capacity', '540MiB', '--format', 'json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).summary).toMatchObject({ oomCount: 0, peakReservedBytes: r.recommendation.peakReservedBytes });
    const bad = runCli(['replay', trace, '--allocator', 'caching', '--capacity', '540MiB', '--format', 'json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).ooms[0].kind).toBe('fragmentation');
    // Its minimum capacity is exact: it fits there and not one step (1 MiB) below.
    const min = r.recommendation.minCapacityBytes as number;
    expect(runCli(['replay', trace, '--allocator', 'caching', '-o', 'expandable_segments=true', '--capacity', String(min)]).code).toBe(0);
    expect(runCli(['replay', trace, '--allocator', 'caching', '-o', 'expandable_segments=true', '--capacity', String(min - MiB)]).code).toBe(1);
    expect(r.recommendation.minCapacitySavingBytes).toBe(current.minCapacityBytes - min);
  });

  it('puts the answer first in every format', () => {
    const base = ['tune', trace, '--allocators', 'caching', '--capacity', '540MiB', '--space', 'max_split_size_mb=none,256'];
    const text = runCli(base);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toBe('PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True');
    expect(lines[1]).toMatch(/^✔ caching\[expandable_segments=true\] fits at 540\.00 MiB \(needs 536 MiB\) where the current setting$/);
    expect(lines[2]).toMatch(/^ {2}needs 572 MiB; peak reserved -4\.00 MiB \(-0\.7%\)$/);
    expect(lines[3]).toBe('  changes: expandable_segments false → true');
    expect(text.stdout).toMatch(/\n\s+\d+ {2}no +572 MiB +540\.00 MiB {2}fragmentation +\d+ \/ \d+ {2}caching \(current\)\n/);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
    const md = runCli([...base, '--format', 'markdown']).stdout.split('\n');
    expect(md.slice(0, 3)).toEqual(['```', 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True', '```']);
    const page = join(dir, 'tune.html');
    expect(runCli([...base, '--format', 'html', '--output', page]).code).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html.indexOf('<pre id="setting">PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True</pre>')).toBeLessThan(html.indexOf('<table>'));
    expect(html).not.toContain('<script');
  });

  it('says when nothing fits, whether a setting could help, and exits 1', () => {
    const frag = runCli(['tune', trace, '--allocators', 'caching', '--capacity', '536MiB', '--space', 'expandable_segments=false']);
    expect(frag.code).toBe(1);
    expect(unwrap(frag.stdout).split('\n')[0]).toBe(
      '✘ nothing fits at 536.00 MiB: the smallest capacity any configuration needs is 572 MiB (caching); the OOMs are fragmentation: the live bytes peak at 535.06 MiB, within 536.00 MiB, so an allocator or setting that wastes less could fit the closest: unset PYTORCH_CUDA_ALLOC_CONF',
    );
    expect(frag.stderr.trimEnd().split('\n').at(-1)).toBe('memsim: nothing fits at 536.00 MiB: the smallest capacity any configuration needs is 572 MiB (caching); the OOMs are fragmentation');
    const cap = json(['tune', trace, '--allocators', 'caching', '--capacity', '500MiB', '--space', 'max_split_size_mb=none', '--space', 'roundup_power2_divisions=off', '--format', 'json']);
    expect(cap.shortfall).toEqual({ smallestMinCapacityBytes: 536 * MiB, smallestBy: 'caching[expandable_segments=true]', kind: 'capacity' });
  });

  it('a reference row that fits (naive) is no answer: nothing that can be tuned fits, and it exits 1', () => {
    const args = ['tune', trace, '--allocators', 'naive,caching', '--capacity', '560MiB', '--space', 'expandable_segments=false'];
    const r = runCli(args);
    expect(r.code).toBe(1);
    expect(unwrap(r.stdout).split('\n')[0]).toMatch(
      /^✘ no configuration that can be tuned fits at 560\.00 MiB \(the reference naive does\): the smallest capacity one of them needs is 572 MiB \(caching\); the OOMs are fragmentation/,
    );
    const j = json([...args, '--format', 'json']);
    expect(j.recommendation).toMatchObject({ name: 'caching', fits: false });
    expect(j.rows.find((row: { name: string }) => row.name === 'naive')).toMatchObject({ reference: true, fits: true });
    expect(j.shortfall).toEqual({ smallestMinCapacityBytes: 572 * MiB, smallestBy: 'caching', kind: 'fragmentation' });
  });
});

describe('memsim tune on a TensorFlow log', () => {
  it('tunes bfc against TensorFlow\'s defaults, which the log does not state, with the recording for reference', () => {
    const log = join(ROOT, 'test', 'tflog', 'fixtures', 'bfc-fresh-process.log');
    const r = json(['tune', log, '--capacity', '1GiB', '--format', 'json']);
    expect(r.spaces.map((s: { allocator: string }) => s.allocator)).toEqual(['bfc', 'recorded']);
    expect(r.notes).toContain("the recording does not state bfc's settings: its current row assumes the defaults (unset TF_FORCE_GPU_ALLOW_GROWTH TF_ENABLE_GPU_GARBAGE_COLLECTION); --current states others");
    // Without growth BFC reserves the whole 1 GiB limit at the first request; with it, one 2 MiB region.
    expect(r.recommendation).toMatchObject({ name: 'bfc[allow_growth=true]', setting: 'TF_FORCE_GPU_ALLOW_GROWTH=true', peakReservedBytes: 2 * MiB, savingBytes: 1024 * MiB - 2 * MiB });
    expect(r.rows.find((x: { current: boolean }) => x.current)).toMatchObject({ name: 'bfc', peakReservedBytes: 1024 * MiB, start: 'recorded' });
    // Told that the job already grows its regions, tune says to keep it.
    const grown = json(['tune', log, '--capacity', '1GiB', '--current', 'bfc[allow_growth=true]', '--format', 'json']);
    expect(grown.recommendation).toMatchObject({ name: 'bfc[allow_growth=true]', isCurrent: true, setting: 'TF_FORCE_GPU_ALLOW_GROWTH=true' });
    expect(grown.notes.some((n: string) => n.includes('does not state'))).toBe(false);
  });
});

describe('memsim tune: shards, threads, merge', () => {
  // caching is searched (2 × 7 × 5 = 70 points), bfc enumerated (12), naive a reference row.
  const base = ['tune', trace, '--allocators', 'caching,bfc,naive', '--capacity', '600MiB', '--space', 'max_split_size_mb=none,64,128,256,512,1024,2048'];
  let whole: Record<string, string>;

  beforeAll(() => {
    whole = {};
    for (const f of ['json', 'text', 'markdown']) whole[f] = runCli([...base, '--format', f, '--jobs', '1']).stdout;
    whole['html'] = runCli([...base, '--format', 'html', '--jobs', '1']).stdout;
  });

  it('searches spaces over 64 points and says how and with how many replays', () => {
    const r = JSON.parse(whole['json'] as string);
    const caching = r.spaces.find((s: { allocator: string }) => s.allocator === 'caching');
    expect(caching).toMatchObject({ method: 'search', points: 70 });
    expect(caching.tried).toBeLessThan(70);
    expect(caching.replays).toBe(r.rows.filter((x: { allocator: string }) => x.allocator === 'caching').reduce((n: number, x: { replays: number }) => n + x.replays, 0));
    expect(r.spaces.find((s: { allocator: string }) => s.allocator === 'bfc')).toMatchObject({ method: 'all', points: 12, tried: 12 });
    expect(r.spaces.find((s: { allocator: string }) => s.allocator === 'naive')).toMatchObject({ method: 'reference', tried: 1 });
    expect(unwrap(whole['text'] as string)).toMatch(/caching: .* — searched: \d+ of 70 configurations \(each key alone, then the best pairs, then one key at a time around the best\), [\d,]+ replays/);
  });

  it('gives the same bytes on 1 or 3 threads', () => {
    expect(runCli([...base, '--format', 'json', '--jobs', '3']).stdout).toBe(whole['json']);
  });

  it('shows configurations done, of those known, and the elapsed time on stderr', () => {
    // The line appears after the first second of work: 60 configurations of 30,000 events in one thread.
    const training = join(dir, 'training.csv');
    expect(runCli(['gen', 'training', '--events', '30000', '--format', 'csv', '--output', training]).code).toBe(0);
    const r = runCli(['tune', training, '--allocators', 'caching', '--format', 'json', '--jobs', '1', '--progress', 'always']);
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\r').filter((l) => l.startsWith('tune ['));
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(l).toMatch(/^tune \[[# ]{24}\] +\d+% \d+\/60 configurations, \d+s\x1b\[K$/);
    expect(r.stderr.endsWith('\r\x1b[K')).toBe(true);
  });

  it('merges shards into the report one run gives, byte for byte, in every format', () => {
    const parts = [1, 2, 3].map((i) => {
      const path = join(dir, `part-${i}.json`);
      const r = runCli([...base, '--shard', `${i}/3`, '--output', path, '--jobs', '2']);
      expect(r.code).toBe(0);
      return path;
    });
    const sizes = parts.map((p) => JSON.parse(readFileSync(p, 'utf8')).rows.length);
    expect(sizes.every((n) => n > 0)).toBe(true);
    for (const f of ['json', 'text', 'markdown', 'html']) {
      const merged = runCli(['tune', '--merge', ...[...parts].reverse(), '--format', f]);
      expect(merged.code).toBe(0);
      expect(merged.stdout).toBe(whole[f]);
    }
  });

  it('refuses parts that do not make one whole', () => {
    const p = (i: number) => join(dir, `part-${i}.json`);
    expect(runCli(['tune', '--merge', p(1), p(2)]).stderr).toContain('--merge: shard 3/3 missing');
    expect(runCli(['tune', '--merge', p(1), p(1), p(2), p(3)]).stderr).toContain('shard 1/3 is also');
    const other = join(dir, 'other.json');
    expect(runCli(['tune', trace, '--allocators', 'naive', '--shard', '1/3', '--output', other]).code).toBe(0);
    const mixed = runCli(['tune', '--merge', other, p(2), p(3)]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('not a part of the same tuning as');
    const notPart = join(dir, 'not-part.json');
    writeFileSync(notPart, whole['json'] as string);
    expect(runCli(['tune', '--merge', notPart]).stderr).toContain('not a memsim.tune-part/1 file (written by memsim tune --shard): schema is "memsim.tune/1"');
    const broken = join(dir, 'broken.json');
    const part = JSON.parse(readFileSync(p(1), 'utf8'));
    delete part.rows[0].peakReservedBytes;
    writeFileSync(broken, JSON.stringify(part));
    const b = runCli(['tune', '--merge', broken, p(2), p(3)]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('rows[0].peakReservedBytes is missing or of the wrong type');
    expect(runCli(['tune', trace, '--shard', '4/3']).stderr).toContain('--shard: expected i/n with 1 <= i <= n, got 4/3');
    expect(runCli(['tune', trace, '--merge', p(1)]).code).toBe(2);
    expect(runCli(['tune']).stderr).toContain('missing the trace (or --merge part files)');
  });
});
