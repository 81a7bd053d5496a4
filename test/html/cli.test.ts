import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { CompareReport } from '../../src/sweep/compare.js';
import type { VisualReport } from '../../src/sim/visual.js';
import { ROOT, runCli, tempDir } from '../helpers.js';

const training = join(ROOT, 'traces', 'training.json');
const fragmentation = join(ROOT, 'traces', 'fragmentation.csv');

function unpack(html: string): VisualReport<CompareReport> {
  const m = /id="memsim-data" data-encoding="gzip\+base64">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error('no data element');
  return JSON.parse(gunzipSync(Buffer.from((m[1] as string).replace(/\s+/g, ''), 'base64')).toString('utf8')) as VisualReport<CompareReport>;
}

describe('memsim report', () => {
  it('writes one page with every allocator asked for, in the comparison order', () => {
    const out = join(tempDir(), 'report.html');
    const r = runCli(['report', training, '--allocators', 'naive,lifetime-pool', '--capacity', '16GiB', '--states', '8', '--timeline-points', '500', '--output', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const html = readFileSync(out, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    const d = unpack(html);
    expect(d.command).toBe('report');
    expect(d.capacityBytes).toBe(16 * 2 ** 30);
    expect(d.compare?.allocators.map((e) => e.name)).toEqual(d.runs.map((r) => r.name));
    expect(d.runs.map((r) => r.name).sort()).toEqual(['lifetime-pool', 'naive']);
    for (const run of d.runs) {
      expect(run.states.filter((s) => s.reason === 'sample').length).toBeLessThanOrEqual(8);
      expect(run.states.some((s) => s.reason === 'peak-reserved' && s.event === run.summary.peakReservedEvent)).toBe(true);
      expect(run.timeline.event.length).toBeLessThanOrEqual(500);
    }
  });

  it('passes --option alloc.key=value to that allocator', () => {
    const out = join(tempDir(), 'report.html');
    const r = runCli(['report', training, '--allocators', 'naive', '--option', 'naive.page=64KiB', '--output', out]);
    expect(r.code).toBe(0);
    expect(unpack(readFileSync(out, 'utf8')).runs[0]?.options['page']).toBe(65536);
  });

  it('writes the page to stdout when it is not a terminal, and is the same every run', () => {
    const a = runCli(['report', fragmentation, '--allocators', 'naive', '--capacity', '400MiB', '--on-oom', 'continue']);
    const b = runCli(['report', fragmentation, '--allocators', 'naive', '--capacity', '400MiB', '--on-oom', 'continue']);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('</html>');
    expect(b.stdout).toBe(a.stdout);
    expect(unpack(a.stdout).runs[0]?.summary.oomCount).toBe(51);
  });

  it('rejects bad options with exit 2', () => {
    expect(runCli(['report', training, '--states', 'many']).code).toBe(2);
    expect(runCli(['report', training, '--timeline-points', '5']).stderr).toContain('--timeline-points: between 100 and 100000');
    expect(runCli(['report', training, '--allocators', 'nope']).code).toBe(2);
    expect(runCli(['report', training, '--option', 'page=4KiB']).stderr).toContain('allocator.key=value');
  });
});

describe('--format html', () => {
  it('on replay: the page of one allocator, and the OOM gate still decides the exit code', () => {
    const out = join(tempDir(), 'replay.html');
    const r = runCli(['replay', fragmentation, '--capacity', '400MiB', '--format', 'html', '--output', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('gate failed');
    const d = unpack(readFileSync(out, 'utf8'));
    expect(d.command).toBe('replay');
    expect(d.compare).toBeNull();
    expect(d.runs.map((x) => x.name)).toEqual(['naive']);
    const oomState = d.runs[0]?.states.find((s) => s.reason === 'oom');
    expect(oomState?.event).toBe(d.runs[0]?.ooms[0]?.event);
  });

  it('on replay: --placements still sees every served allocation once', () => {
    const dir = tempDir();
    const r = runCli(['replay', training, '--format', 'html', '--output', join(dir, 'r.html'), '--placements', join(dir, 'p.csv')]);
    expect(r.code).toBe(0);
    const lines = readFileSync(join(dir, 'p.csv'), 'utf8').trim().split('\n');
    expect(lines.length - 1).toBe(unpack(readFileSync(join(dir, 'r.html'), 'utf8')).trace.allocs);
  });

  it('on compare: the page with the comparison, gates included', () => {
    const out = join(tempDir(), 'compare.html');
    const r = runCli(['compare', fragmentation, '--allocators', 'naive,lifetime-pool', '--capacity', '400MiB', '--fail-on', 'oom', '--format', 'html', '--output', out]);
    expect(r.code).toBe(1);
    const html = readFileSync(out, 'utf8');
    const d = unpack(html);
    expect(d.command).toBe('compare');
    expect(d.compare?.gates.map((g) => g.failed)).toEqual([true]);
    expect(html).toContain('<table id="compare-table">');
    expect(html).toContain('Gates: 1 of 1 failed');
  });
});
