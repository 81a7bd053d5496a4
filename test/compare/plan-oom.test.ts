/**
 * A plan row that does not fit: its explanation speaks of the plan's arena and the trace's peak
 * live bytes (no request failed, nothing was live), and the verdict follows the peak live bytes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MiB, runCli, tempDir } from '../helpers.js';

// a 4 MiB over events 0-2, b 2 MiB over 1-4, c 3 MiB over 3-5: peak live 6 MiB (a and b).
// plan:naive gives each its own bytes (9 MiB); greedy-by-size puts a and c at 0 and b at 4 MiB (6 MiB).
const file = join(tempDir(), 'three.csv');
writeFileSync(file, ['op,id,size', `alloc,a,${4 * MiB}`, `alloc,b,${2 * MiB}`, 'free,a', `alloc,c,${3 * MiB}`, 'free,b', 'free,c', ''].join('\n'));

interface Row {
  name: string;
  firstOom: { kind: string; explanation?: string } | null;
}

function rows(capacity: string): Row[] {
  const out = runCli(['compare', file, '-a', 'plan:naive,plan:greedy-by-size,bfc', '--capacity', capacity, '--format', 'json']);
  expect(out.stderr).toBe('');
  return (JSON.parse(out.stdout) as { allocators: Row[] }).allocators;
}

describe('compare: a plan that does not fit', () => {
  it('within the peak live bytes of the capacity: fragmentation, the plan wasted the rest', () => {
    const r = rows('7MiB');
    expect(r.find((x) => x.name === 'plan:greedy-by-size')?.firstOom).toBeNull();
    const naive = r.find((x) => x.name === 'plan:naive')?.firstOom;
    expect(naive?.kind).toBe('fragmentation');
    expect(naive?.explanation).toBe(
      'plan:naive lays out an arena of 9.00 MiB before the first event; the capacity is 7.00 MiB. Verdict: fragmentation. ' +
        "The trace's peak live, 6.00 MiB, fits in the capacity: the rest is the plan's own waste (room that tensors with " +
        'disjoint lifetimes could have shared); a tighter plan, or an allocator, can.',
    );
  });

  it('below the peak live bytes: capacity, for every plan', () => {
    const r = rows('5MiB');
    for (const [name, arena] of [['plan:naive', '9.00 MiB'], ['plan:greedy-by-size', '6.00 MiB']] as const) {
      const o = r.find((x) => x.name === name)?.firstOom;
      expect(o?.kind).toBe('capacity');
      expect(o?.explanation).toBe(
        `${name} lays out an arena of ${arena} before the first event; the capacity is 5.00 MiB. Verdict: capacity. ` +
          "The trace's peak live, 6.00 MiB, exceeds the capacity: no plan or allocator can serve the trace at this capacity; " +
          'only holding less, or a larger device, can.',
      );
    }
  });

  it('in text, with no table of holders where nothing was live', () => {
    const out = runCli(['compare', file, '-a', 'plan:naive,bfc', '--capacity', '3MiB', '--width', '200']);
    expect(out.code).toBe(0); // OOMs fail a comparison only with --fail-on oom
    expect(out.stdout).toContain('plan:naive: OOM at event 0\n  plan:naive lays out an arena of 9.00 MiB before the first event; the capacity is 3.00 MiB. Verdict: capacity.');
    expect(out.stdout).toContain('bfc: OOM at event 0 (line 2)\n  At event 0 the request of alloc "a" for 4.00 MiB failed with 0 B live in 0 allocations.');
    expect(out.stdout).not.toContain('held at this OOM');
  });
});
