import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers.js';
import { entry, MiB, segment, settings, writeSnapshot } from '../pytorch/snapshot-helpers.js';

/** The width of a line as a terminal shows it (one column per code point here). */
const columns = (l: string): number => [...l].length;
const widest = (text: string): number => Math.max(...text.split('\n').map(columns));

const dir = tempDir();
const csv = join(dir, 'plain.csv');
writeFileSync(csv, ['op,id,size', 'alloc,a,1000', `alloc,b,${3 * MiB}`, 'free,a', 'free,b'].join('\n') + '\n');
const tflog = join(ROOT, 'test', 'tflog', 'fixtures', 'bfc-fresh-process.log');

describe('the default allocator follows the input', () => {
  it('a PyTorch snapshot is replayed by caching, its own, and the header says so', () => {
    const snap = writeSnapshot({
      segments: [segment({ address: 0x7f0000000000, blocks: [{ size: 3 * MiB }, { size: 17 * MiB, state: 'inactive' }] })],
      device_traces: [[entry('segment_alloc', 0x7f0000000000, 20 * MiB), entry('alloc', 0x7f0000000000, 3 * MiB)]],
      allocator_settings: settings(),
    });
    const text = runCli(['replay', snap]);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toBe("memsim replay · caching (the snapshot's own; -a to choose)");
    const json = JSON.parse(runCli(['replay', snap, '--format', 'json']).stdout);
    expect([json.allocator.name, json.allocator.chosenBy]).toEqual(['caching', 'input']);
  });

  it('a TensorFlow log is replayed by bfc, its own', () => {
    const r = runCli(['replay', tflog]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe("memsim replay · bfc (the log's own; -a to choose)");
    expect(JSON.parse(runCli(['replay', tflog, '--format', 'json']).stdout).allocator).toMatchObject({ name: 'bfc', chosenBy: 'input' });
  });

  it('other traces keep naive, named as the default; a named allocator is the one asked for, with no remark', () => {
    expect(runCli(['replay', csv]).stdout.split('\n')[0]).toBe('memsim replay · naive (the default for this trace; -a to choose)');
    expect(JSON.parse(runCli(['replay', csv, '--format', 'json']).stdout).allocator.chosenBy).toBe('default');
    const named = runCli(['replay', tflog, '-a', 'naive']);
    expect(named.stdout.split('\n')[0]).toBe('memsim replay · naive');
    expect(JSON.parse(runCli(['replay', tflog, '-a', 'naive', '--format', 'json']).stdout).allocator.chosenBy).toBe('request');
  });
});

describe('the replay header', () => {
  it('lists only the options that differ from the defaults, wrapped; the JSON report has all of them', () => {
    const plain = runCli(['replay', csv, '-a', 'naive']).stdout.split('\n');
    expect(plain[1]).toMatch(/^trace /);
    const r = runCli(['replay', csv, '-a', 'caching', '-o', 'expandable_segments=true,max_split_size_mb=256,garbage_collection_threshold=0.6,roundup_power2_divisions=4', '--width', '60']);
    expect(r.stdout.split('\n').slice(0, 4)).toEqual([
      'memsim replay · caching',
      'options (not the defaults): max_split_size_mb=256',
      '  roundup_power2_divisions=4',
      '  garbage_collection_threshold=0.6 expandable_segments=true',
    ]);
    const json = JSON.parse(runCli(['replay', csv, '-a', 'naive', '-o', 'page=64KiB', '--format', 'json']).stdout);
    expect(json.allocator.changedOptions).toEqual(['page']);
    expect(Object.keys(json.allocator.options).sort()).toEqual(['alignment', 'large_threshold', 'page']);
  });
});

describe('text reports fit the width', () => {
  const runs: [string, string[]][] = [
    ['replay', ['replay', 'traces/training.json', '-a', 'caching', '--capacity', '9.5GiB', '--oom-dump', 'none', '--allow-oom']],
    ['compare', ['compare', 'traces/fragmentation.csv', '--min-capacity', '--allocators', 'naive,bfc,caching,lifetime-pool,plan:greedy-by-size']],
    ['tune', ['tune', 'traces/fragmentation.csv', '--allocators', 'caching', '--capacity', '540MiB', '--space', 'max_split_size_mb=none,256', '--space', 'expandable_segments=false,true']],
    ['allocators', ['allocators']],
  ];
  it.each(runs)('%s: every table line within 100 columns by default, and within --width 80', (_name, args) => {
    const at100 = runCli(args, { cwd: ROOT });
    expect(at100.code).toBeLessThan(2);
    const tableLines = (t: string): string[] => t.split('\n').filter((l) => /^ *[┌│└]/.test(l));
    expect(Math.max(...tableLines(at100.stdout).map(columns))).toBeLessThanOrEqual(100);
    const at80 = runCli([...args, '--width', '80'], { cwd: ROOT });
    expect(Math.max(...tableLines(at80.stdout).map(columns))).toBeLessThanOrEqual(80);
    // Whatever a table left out is still in the JSON report.
    if (at80.stdout.includes('(left out at 80 columns:')) expect(at80.stdout).toMatch(/--width \d+ or\s+--format json shows them\)/);
  });

  it('compare leaves out the fragmentation columns and the device calls first, and the JSON report keeps them', () => {
    const args = ['compare', 'traces/training.json', '--allocators', 'naive,bfc', '--capacity', '10GiB'];
    const text = runCli(args, { cwd: ROOT }).stdout;
    expect(text).toContain('│ # │ allocator               │ peak reserved │ vs lower bound │ utilization │ OOMs │');
    const note = /\(left out at 100 columns: internal frag, external frag, device calls; --width (\d+) or --format json\n shows them\)/.exec(text);
    expect(note).not.toBeNull();
    // At the width the note names, the whole table fits, exactly.
    const wide = runCli([...args, '--width', note?.[1] ?? ''], { cwd: ROOT }).stdout;
    expect(wide).not.toContain('left out');
    expect(widest(wide.split('\n').filter((l) => l.startsWith('│')).join('\n'))).toBe(Number(note?.[1]));
    const json = JSON.parse(runCli([...args, '--format', 'json'], { cwd: ROOT }).stdout);
    expect(Object.keys(json.allocators[0].summary)).toEqual(expect.arrayContaining(['internalFragmentation', 'externalFragmentation', 'deviceAllocCalls']));
  });

  it('--width is checked', () => {
    const r = runCli(['replay', csv, '--width', '10']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--width: expected a whole number between 40 and 1000, got "10"');
  });
});

describe('allocators lists the plan:* rows compare accepts', () => {
  it('text, markdown and JSON name every plan:* strategy, and compare takes each name', () => {
    const text = runCli(['allocators']).stdout;
    const json = JSON.parse(runCli(['allocators', '--format', 'json']).stdout) as { name: string; planner?: boolean }[];
    const plans = json.filter((e) => e.planner).map((e) => e.name);
    expect(plans).toEqual(expect.arrayContaining(['plan:best', 'plan:greedy-by-size', 'plan:xla-best-fit', 'plan:min-cost-flow']));
    for (const p of plans) expect(text).toContain(`│ ${p} `);
    const md = runCli(['allocators', '--format', 'markdown']).stdout;
    for (const p of plans) expect(md).toContain(`| \`${p}\` |`);
    // The README lists them too (its tables are generated from this output).
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const p of plans) expect(readme).toContain(`| \`${p}\` |`);
    const r = runCli(['compare', csv, '--allocators', plans.join(','), '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).allocators.map((e: { name: string }) => e.name).sort()).toEqual([...plans].sort());
  });
});
