import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffHolders, diffTraces, evaluateGrowthGates, parseGrowthGate, type DiffEntry, type DiffSide } from '../../src/diff/index.js';
import { alloc, free, MiB, runCli, tempDir, traceFromEvents, type EventObject } from '../helpers.js';
import { entry, segment, settings, writeSnapshot } from '../pytorch/snapshot-helpers.js';

// The same step before and after a change: attention's buffer grows from 6 to 10 MiB, a 4 MiB kv
// cache appears, the 2 MiB mlp buffer is gone. Peak live: 16 MiB before, 22 MiB after.
const before: EventObject[] = [
  alloc('w', 8 * MiB, { tag: 'weights' }),
  alloc('a', 6 * MiB, { tag: 'attn' }),
  alloc('m', 2 * MiB, { tag: 'mlp' }),
  free('m'),
  free('a'),
];
const after: EventObject[] = [
  alloc('w', 8 * MiB, { tag: 'weights' }),
  alloc('a', 10 * MiB, { tag: 'attn' }),
  alloc('k', 4 * MiB, { tag: 'kv' }),
  free('k'),
  free('a'),
];

function files(): { b: string; a: string } {
  const dir = tempDir();
  const b = join(dir, 'before.json');
  const a = join(dir, 'after.json');
  writeFileSync(b, JSON.stringify({ format: 'memsim-trace', version: 1, events: before }));
  writeFileSync(a, JSON.stringify({ format: 'memsim-trace', version: 1, events: after }));
  return { b, a };
}

describe('memsim diff', () => {
  it('says which groups grew, appeared and vanished at the peak, largest change first', async () => {
    const r = await diffTraces(traceFromEvents(before), traceFromEvents(after), { allocators: ['naive'] });
    expect(r.schema).toBe('memsim.diff/1');
    const e = r.allocators[0]!;
    expect(e.before).toEqual({ completed: true, oomCount: 0, peakLiveBytes: 16 * MiB, peakReservedBytes: 16 * MiB, minCapacityBytes: null });
    expect(e.after).toMatchObject({ peakLiveBytes: 22 * MiB, peakReservedBytes: 22 * MiB });
    expect(e.change.peakLiveBytes).toEqual({ bytes: 6 * MiB, ratio: 0.375 });
    expect(e.holders.peakLive).toEqual({
      beforeEvent: 2,
      afterEvent: 2,
      beforeLiveBytes: 16 * MiB,
      afterLiveBytes: 22 * MiB,
      changes: [
        { key: 'attn', change: 'grew', beforeBytes: 6 * MiB, afterBytes: 10 * MiB, deltaBytes: 4 * MiB, beforeCount: 1, afterCount: 1 },
        { key: 'kv', change: 'appeared', beforeBytes: 0, afterBytes: 4 * MiB, deltaBytes: 4 * MiB, beforeCount: 0, afterCount: 1 },
        { key: 'mlp', change: 'vanished', beforeBytes: 2 * MiB, afterBytes: 0, deltaBytes: -2 * MiB, beforeCount: 1, afterCount: 0 },
      ],
      moreChanges: 0,
      moreDeltaBytes: 0,
      unchanged: 1,
    });
  });

  it('both ways: the reverse diff mirrors every change, and only the growing direction fails the gate', () => {
    const { b, a } = files();
    const forward = runCli(['diff', b, a, '--allocators', 'naive', '--format', 'json', '--fail-on', 'growth>5%']);
    expect(forward.code).toBe(1);
    expect(forward.stderr.trim().split('\n').pop()).toBe('memsim: gate failed: growth>5%: naive peak live grew 37.5% (16.00 MiB → 22.00 MiB), more than 5%');
    const backward = runCli(['diff', a, b, '--allocators', 'naive', '--format', 'json', '--fail-on', 'growth>5%']);
    expect(backward.code).toBe(0);
    expect(backward.stderr).toBe('');
    const f = JSON.parse(forward.stdout).allocators[0].holders.peakLive.changes;
    const g = JSON.parse(backward.stdout).allocators[0].holders.peakLive.changes;
    const mirror = { grew: 'shrank', appeared: 'vanished', vanished: 'appeared', shrank: 'grew' } as Record<string, string>;
    expect(g.map((c: { key: string; change: string; deltaBytes: number }) => [c.key, c.change, c.deltaBytes])).toEqual(
      f.map((c: { key: string; change: string; deltaBytes: number }) => [c.key, mirror[c.change], -c.deltaBytes]),
    );
    expect(JSON.parse(backward.stdout).gates).toEqual([{ gate: 'growth>5%', failed: false, failures: [] }]);
  });

  it('text and markdown: the figures, then the changes of the holders; --top limits them', () => {
    const { b, a } = files();
    const text = runCli(['diff', b, a, '--allocators', 'naive', '--top', '2']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('▲ grew: naive: peak reserved 16.00 MiB → 22.00 MiB (+37.5%), peak live 16.00 MiB → 22.00 MiB (+37.5%)');
    expect(text.stdout).toMatch(/│ naive +│ peak live +│ +16\.00 MiB │ +22\.00 MiB │ +\+6\.00 MiB \(\+37\.5%\) │/);
    // A title longer than 100 columns goes on at a hanging indent.
    expect(text.stdout).toContain('naive: held at the peak of live bytes (before: event 2, 16.00 MiB live; after: event 2, 22.00 MiB\n  live)');
    expect(text.stdout).toMatch(/│ grew +│ attn +│ +6\.00 MiB \(1\) │ +10\.00 MiB \(1\) │ +\+4\.00 MiB │/);
    expect(text.stdout).toMatch(/│ +│ 1 more change +│ +│ +│ +-2\.00 MiB │/);
    const md = runCli(['diff', b, a, '--allocators', 'naive', '--format', 'markdown']);
    expect(md.stdout.split('\n')[0]).toBe('**📈 grew: naive: peak reserved 16.00 MiB → 22.00 MiB (+37.5%), peak live 16.00 MiB → 22.00 MiB (+37.5%)**');
    expect(md.stdout).toContain('| appeared | `kv` | – | 4.00 MiB (1) | +4.00 MiB |');
  });

  it('--min-capacity compares the smallest capacity that fits on both sides', () => {
    const { b, a } = files();
    const j = JSON.parse(runCli(['diff', b, a, '--allocators', 'naive', '--min-capacity', '--format', 'json']).stdout);
    expect(j.allocators[0].before.minCapacityBytes).toBe(16 * MiB);
    expect(j.allocators[0].after.minCapacityBytes).toBe(22 * MiB);
    expect(j.allocators[0].change.minCapacityBytes).toEqual({ bytes: 6 * MiB, ratio: 0.375 });
  });

  it('defaults to the allocator the traces were recorded with: caching for snapshots, and caching otherwise', () => {
    const SEG = 0x7f0000000000;
    const snap = (mib: number) => ({
      segments: [segment({ address: SEG, blocks: [{ size: mib * MiB }, { size: (20 - mib) * MiB, state: 'inactive' }] })],
      device_traces: [[entry('alloc', SEG, mib * MiB)]],
      allocator_settings: settings(),
    });
    const r = runCli(['diff', writeSnapshot(snap(4)), writeSnapshot(snap(6)), '--format', 'json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.allocators.map((e: { name: string }) => e.name)).toEqual(['caching']);
    expect(j.groupBy).toBe('tag');
    expect(j.allocators[0].change.peakLiveBytes.bytes).toBe(2 * MiB);
    const { b, a } = files();
    expect(JSON.parse(runCli(['diff', b, a, '--format', 'json']).stdout).allocators.map((e: { name: string }) => e.name)).toEqual(['caching']);
  });

  it('an after trace that runs out of memory is no shrink: its peaks stop at the OOM; every growth gate fails, and `oom`', () => {
    const { b, a } = files();
    // At 20 MiB the after trace (22 MiB live at its peak) fails at its 4 MiB buffer: its peaks, 18 MiB, are the run's up to there.
    const r = runCli(['diff', b, a, '-a', 'naive', '-c', '20MiB', '--fail-on', 'growth>5%', '--fail-on', 'oom']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✘ runs out of memory: naive: runs out of memory after (1 OOM; before: none)');
    expect(r.stdout).toMatch(/peak live +│ +16\.00 MiB │ +18\.00 MiB │/);
    expect(r.stderr.trim().split('\n')).toEqual([
      'memsim: gate failed: growth>5%: naive runs out of memory after (1 OOM; before: none): its peaks stop at the OOM',
      'memsim: gate failed: oom: naive runs out of memory after (1 OOM)',
    ]);
    // The other way, the change mends the OOM: no gate fails, though the peaks "grew" from a run cut short.
    const back = runCli(['diff', a, b, '-a', 'naive', '-c', '20MiB', '--fail-on', 'growth>5%', '--format', 'markdown']);
    expect(back.code).toBe(0);
    expect(back.stdout.split('\n')[0]).toBe('**📉 shrank: naive: no longer runs out of memory (before: 1 OOM), peak reserved 16.00 MiB after**');
  });

  it('both sides out of memory: the peaks do not compare; as often or more after fails the growth gates, less often passes', () => {
    const dir = tempDir();
    const M100 = 100 * MiB;
    const M500 = 500 * MiB;
    const write = (name: string, rows: string[]): string => {
      const f = join(dir, name);
      writeFileSync(f, `op,id,size,step\n${rows.join('\n')}\n`);
      return f;
    };
    // Before fails late (its 500 MiB after the 100 MiB ones are freed), after at once: at 400 MiB both stop at an OOM.
    const b = write('b.csv', [`alloc,a,${M100},0`, `alloc,b,${M100},0`, `free,a,,1`, `free,b,,1`, `alloc,d,${M500},2`, 'free,d,,2']);
    const a = write('a.csv', [`alloc,a,${M100},0`, `alloc,d,${M500},0`, 'free,d,,0', 'free,a,,1']);
    const stop = runCli(['diff', b, a, '-a', 'naive', '-c', '400MiB', '--fail-on', 'growth>5%']);
    expect(stop.stdout).toContain('✘ runs out of memory: naive: runs out of memory after (1 OOM; before: 1 OOM)');
    expect(stop.code).toBe(1);
    // Under --on-oom continue: more OOMs after fail; fewer pass, and say so.
    const more = write('more.csv', [`alloc,a,${M100},0`, `alloc,d,${M500},0`, `alloc,e,${M500},0`, 'free,a,,1']);
    const worse = runCli(['diff', b, more, '-a', 'naive', '-c', '400MiB', '--on-oom', 'continue', '--fail-on', 'growth>5%']);
    expect(worse.code).toBe(1);
    expect(worse.stderr).toContain('naive runs out of memory after (2 OOMs; before: 1 OOM): its peaks stop at the OOM');
    const better = runCli(['diff', more, b, '-a', 'naive', '-c', '400MiB', '--on-oom', 'continue', '--fail-on', 'growth>5%']);
    expect(better.code).toBe(0);
    expect(better.stdout).toContain('▼ shrank: naive: runs out of memory less often (2 OOMs before, 1 OOM after)');
  });

  it('a figure that grows from 0 fails a growth gate; a minimum capacity that none fits after fails its gate', () => {
    const dir = tempDir();
    const empty = join(dir, 'empty.csv');
    writeFileSync(empty, 'op,id,size,step\n');
    const { b } = files();
    const r = runCli(['diff', empty, b, '-a', 'naive', '--fail-on', 'peak-live-growth>0']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('memsim: gate failed: peak-live-growth>0: naive peak live grew from 0 B to 16.00 MiB');
    // A minimum capacity that none fits after (the recorded allocator of a snapshot that ran out of memory).
    const side = (minCapacityBytes: number | null): DiffSide => ({ completed: true, oomCount: 0, peakLiveBytes: MiB, peakReservedBytes: MiB, minCapacityBytes });
    const entry = (was: number | null, now: number | null): DiffEntry => ({
      name: 'recorded',
      options: {},
      before: side(was),
      after: side(now),
      change: { peakLiveBytes: { bytes: 0, ratio: 0 }, peakReservedBytes: { bytes: 0, ratio: 0 }, minCapacityBytes: null },
      holders: {} as DiffEntry['holders'],
      notes: [],
    });
    const gate = [parseGrowthGate('min-capacity-growth>0%')];
    expect(evaluateGrowthGates([entry(16 * MiB, null)], gate)[0]?.failures.map((f) => f.message)).toEqual([
      'gate failed: min-capacity-growth>0%: recorded minimum capacity 16.00 MiB before; none fits after',
    ]);
    expect(evaluateGrowthGates([entry(null, 16 * MiB), entry(null, null)], gate)[0]?.failed).toBe(false);
  });

  it('says when the traces ran at different capacities of their own', () => {
    const dir = tempDir();
    const [b, a] = [join(dir, 'b.csv'), join(dir, 'a.csv')];
    writeFileSync(b, '# {"format":"memsim-trace","version":1,"meta":{"capacityBytes":8388608}}\nop,id,size,step\nalloc,x,1024,0\n');
    writeFileSync(a, 'op,id,size,step\nalloc,x,1024,0\n');
    const r = runCli(['diff', b, a, '-a', 'naive']);
    expect(r.stdout).toContain('note: the traces ran at different capacities, their own (before 8.00 MiB, after unlimited): --capacity runs both at one');
    expect(runCli(['diff', b, a, '-a', 'naive', '-c', '1GiB']).stdout).not.toContain('different capacities');
  });

  it('refuses unknown gates and options it cannot place', () => {
    const { b, a } = files();
    expect(() => parseGrowthGate('shrink>5%')).toThrow('--fail-on: unknown condition "shrink>5%" (known: growth>X, peak-reserved-growth>X, peak-live-growth>X, min-capacity-growth>X, oom)');
    const r = runCli(['diff', b, a, '--allocators', 'naive,bfc', '--option', 'page=4KiB']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--option names the allocator when the diff runs more than one (naive, bfc)');
    // With the one default allocator, a plain key=value is its option.
    const one = runCli(['diff', b, a, '--option', 'expandable_segments=true', '--format', 'json']);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout).allocators[0]).toMatchObject({ name: 'caching', options: { expandable_segments: true } });
  });

  it('diffHolders lists a group in both tops with equal bytes as unchanged and sums what is beyond --top', () => {
    const m = (top: [string, number][]) => ({
      event: 0,
      liveBytes: top.reduce((s, [, b]) => s + b, 0),
      liveCount: top.length,
      top: top.map(([key, bytes]) => ({ key, bytes, count: 1, share: 0, largestBytes: bytes })),
      otherBytes: 0,
      otherCount: 0,
      otherLargestBytes: 0,
      otherShare: 0,
      groups: top.length,
    });
    const d = diffHolders(m([['x', 5], ['y', 3], ['z', 1]]), m([['x', 5], ['y', 1], ['z', 4], ['w', 2]]), 1);
    expect(d.changes.map((c) => [c.key, c.change, c.deltaBytes])).toEqual([['z', 'grew', 3]]);
    expect(d).toMatchObject({ moreChanges: 2, moreDeltaBytes: 0, unchanged: 1 });
  });
});
