import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replay } from '../../src/sim/run.js';
import { alloc, free, MiB, runCli, tempDir, traceFromEvents } from '../helpers.js';

// At a capacity of 32 MiB through `naive` (every size a whole number of 2 MiB pages, so reserved
// equals live): live reaches 30 MiB at event 4; m2 (4 MiB) then fails for capacity and is dropped
// (--on-oom continue); a1 is freed, x1 (untagged) allocated; big (8 MiB) fails at event 9.
const events = [
  alloc('w1', 8 * MiB, { tag: 'weights' }),
  alloc('w2', 4 * MiB, { tag: 'weights' }),
  alloc('a1', 6 * MiB, { tag: 'attn' }),
  alloc('m1', 2 * MiB, { tag: 'mlp' }),
  alloc('a2', 10 * MiB, { tag: 'attn' }),
  alloc('m2', 4 * MiB, { tag: 'mlp' }),
  free('a1'),
  alloc('x1', 6 * MiB),
  free('m2'),
  alloc('big', 8 * MiB, { tag: 'attn' }),
  free('x1'),
];

const holder = (key: string, bytes: number, count: number, share: number, largestBytes: number) => ({ key, bytes, count, share, largestBytes });

describe('who holds the memory, on a hand-made trace', () => {
  const run = () => replay(traceFromEvents(events), { allocator: 'naive', capacityBytes: 32 * MiB, onOom: 'continue' });

  it('at the peak: the live allocations grouped by tag, largest first, with their shares and largest blocks', () => {
    const { report } = run();
    const a = report.attribution!;
    expect(a.groupBy).toBe('tag');
    expect(report.summary.peakLiveEvent).toBe(4);
    expect(a.peakLive).toEqual({
      event: 4,
      liveBytes: 30 * MiB,
      liveCount: 5,
      top: [holder('attn', 16 * MiB, 2, 0.533333, 10 * MiB), holder('weights', 12 * MiB, 2, 0.4, 8 * MiB), holder('mlp', 2 * MiB, 1, 0.066667, 2 * MiB)],
      otherBytes: 0,
      otherCount: 0,
      otherLargestBytes: 0,
      otherShare: 0,
      groups: 3,
    });
    // Reserved equals live here, so the allocator's peak is the same moment.
    expect(a.peakReserved).toEqual(a.peakLive);
  });

  it('at each OOM: the live set before the request; a dropped allocation never holds anything', () => {
    const { report } = run();
    const [first, second] = report.attribution!.ooms;
    expect(report.ooms.map((o) => [o.event, o.id, o.kind])).toEqual([
      [5, 'm2', 'capacity'],
      [9, 'big', 'capacity'],
    ]);
    expect(first?.top).toEqual(report.attribution!.peakLive!.top);
    // m2 failed and was dropped: mlp holds m1 alone; a1 is gone, x1 (untagged) is live.
    expect(second).toMatchObject({
      event: 9,
      liveBytes: 30 * MiB,
      liveCount: 5,
      top: [holder('weights', 12 * MiB, 2, 0.4, 8 * MiB), holder('attn', 10 * MiB, 1, 0.333333, 10 * MiB), holder('(no tag)', 6 * MiB, 1, 0.2, 6 * MiB), holder('mlp', 2 * MiB, 1, 0.066667, 2 * MiB)],
      otherBytes: 0,
    });
  });

  it('--top N keeps N groups and sums the rest into "everything else"', () => {
    const { report } = replay(traceFromEvents(events), { allocator: 'naive', capacityBytes: 32 * MiB, onOom: 'continue', attribution: { top: 1 } });
    expect(report.attribution!.ooms[1]).toMatchObject({
      top: [holder('weights', 12 * MiB, 2, 0.4, 8 * MiB)],
      otherBytes: 18 * MiB,
      otherCount: 3,
      otherLargestBytes: 10 * MiB,
      otherShare: 0.6,
      groups: 4,
    });
  });

  it('explains each OOM in one paragraph: request, live, free memory, verdict and the three largest holders', () => {
    const { report } = run();
    expect(report.ooms[0]?.explanation).toBe(
      'At event 5 the request of alloc "m2" (mlp) for 4.00 MiB failed with 30.00 MiB live in 5 allocations. ' +
        'naive held 30.00 MiB from the device: 30.00 MiB in blocks handed out and nothing free; the device had 2.00 MiB more. ' +
        'Verdict: capacity. Live plus the request, 34.00 MiB, exceeds the limit of 32.00 MiB: no allocator can serve it at this capacity; only holding less, or a larger device, can. ' +
        'Largest holders of the live bytes: attn 16.00 MiB (53.3%); weights 12.00 MiB (40.0%); mlp 2.00 MiB (6.7%).',
    );
  });

  it('a fragmentation OOM says that a perfect allocator would have served it', () => {
    // 1.5 MiB blocks take whole 2 MiB pages in naive: at 6 MiB, live 4.5 MiB + 1.5 MiB fits, the pages do not.
    const t = traceFromEvents([alloc('p', 1.5 * MiB, { tag: 'x' }), alloc('q', 1.5 * MiB, { tag: 'x' }), alloc('r', 1.5 * MiB, { tag: 'y' }), alloc('s', 1.5 * MiB, { tag: 'y' })]);
    const { report } = replay(t, { allocator: 'naive', capacityBytes: 6 * MiB });
    expect(report.ooms[0]?.kind).toBe('fragmentation');
    expect(report.ooms[0]?.explanation).toContain('Verdict: fragmentation. Live plus the request, 6.00 MiB, fits in the limit of 6.00 MiB: a perfect allocator would have served it');
    expect(report.ooms[0]?.explanation).toContain('Largest holders of the live bytes: x 3.00 MiB (66.7%); y 1.50 MiB (33.3%).');
  });

  it('the CLI shows it as a user reads it: text tables, collapsed Markdown, JSON; frames need stacks', () => {
    const file = join(tempDir(), 'holders.json');
    writeFileSync(file, JSON.stringify({ format: 'memsim-trace', version: 1, events }));
    const args = ['replay', file, '--capacity', '32MiB', '--on-oom', 'continue', '--allow-oom'];
    const text = runCli(args);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('held at the peak (event 4: peak live and peak reserved), by tag');
    expect(text.stdout).toMatch(/│ attn +│ +16\.00 MiB │ +53\.3% │ +2 │ +10\.00 MiB │/);
    expect(text.stdout).toContain('  held at this OOM, by tag');
    expect(text.stdout).toContain('  capacity (too little memory): At event 5 the request of alloc "m2" (mlp) for 4.00 MiB failed');
    const md = runCli([...args, '--format', 'markdown', '--top', '2']);
    expect(md.stdout).toContain('<details><summary>Held at the peak (event 4: peak live and peak reserved), by tag</summary>');
    expect(md.stdout).toContain('| `attn` | 16.00 MiB | 53.3% | 2 | 10.00 MiB |');
    expect(md.stdout).toContain('| everything else (1 group) | 2.00 MiB | 6.7% | 1 | 2.00 MiB |');
    const json = JSON.parse(runCli([...args, '--format', 'json']).stdout);
    expect(Object.keys(json.attribution)).toEqual(['groupBy', 'top', 'stackDepth', 'peakLive', 'peakReserved', 'ooms']);
    expect(json.attribution.ooms).toHaveLength(2);
    expect(json.ooms[1].explanation).toContain('Largest holders of the live bytes: weights 12.00 MiB (40.0%); attn 10.00 MiB (33.3%); (no tag) 6.00 MiB (20.0%).');
    const frame = runCli([...args, '--group-by', 'frame']);
    expect(frame.code).toBe(2);
    expect(frame.stderr).toContain(`--group-by frame needs call stacks (PyTorch snapshots record them); ${file} has none: --group-by tag groups by its tags`);
  });

  it('compare attributes each row: peaks and its first OOM, with the explanation', () => {
    const file = join(tempDir(), 'holders.json');
    writeFileSync(file, JSON.stringify({ format: 'memsim-trace', version: 1, events }));
    const r = runCli(['compare', file, '--allocators', 'naive,bfc', '--capacity', '32MiB', '--on-oom', 'continue', '--format', 'json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    const naive = j.allocators.find((e: { name: string }) => e.name === 'naive');
    expect(naive.attribution.peakLive.top.map((h: { key: string }) => h.key)).toEqual(['attn', 'weights', 'mlp']);
    expect(naive.attribution.ooms).toHaveLength(1);
    expect(naive.firstOom.explanation).toContain('At event 5 the request of alloc "m2" (mlp)');
    const text = runCli(['compare', file, '--allocators', 'naive,bfc', '--capacity', '32MiB', '--on-oom', 'continue']);
    expect(text.stdout).toContain('who holds the memory, by tag');
    expect(text.stdout).toContain('every allocator: held at the peak of live bytes (event 4):');
  });
});
