import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTfLog } from '../../scripts/gen-tflog.mjs';
import { readTrace } from '../../src/trace/read.js';
import { ROOT, tempDir } from '../helpers.js';

const MB = 1e6;

/** Reads `file` with the built library in a fresh process; its peak RSS in MiB and the event count. */
function readInChild(file: string): { rssMiB: number; events: number } {
  const code =
    `import { readTrace } from ${JSON.stringify(join(ROOT, 'dist', 'index.js'))};` +
    `const t = readTrace(${JSON.stringify(file)});` +
    'console.log(JSON.stringify({ rssMiB: process.resourceUsage().maxRSS / 1024, events: t.length }));';
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as { rssMiB: number; events: number };
}

describe('large TensorFlow logs stream', () => {
  const dirs: string[] = [];
  const dir = (): string => {
    const d = tempDir();
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a 50 MB log: every allocation, deallocation and step found, the peak exact', () => {
    const file = join(dir(), 'dense.log');
    const g = writeTfLog(file, 50 * MB);
    const t = readTrace(file);
    expect(t.summary).toMatchObject({ allocs: g.allocs, frees: g.frees, peakLiveBytes: g.peakLiveBytes, finalLiveBytes: 0 });
    // step -5 belongs to cuda_host_bfc, which is not imported
    expect(t.summary.steps).toBe(g.steps);
    expect(t.recorded!.notes!.join('\n')).toContain(`TensorFlow memory log: ${g.lines} lines`);
  });

  it('memory stays flat: a 50 MB log costs no more than a 3 MB one with the same allocations', () => {
    const d = dir();
    const small = join(d, 'small.log');
    const large = join(d, 'large.log');
    const a = writeTfLog(small, Infinity, { steps: 20 });
    const b = writeTfLog(large, Infinity, { steps: 20, noise: 400 });
    expect(b.allocs).toBe(a.allocs);
    expect(a.bytes).toBeLessThan(3 * MB);
    expect(b.bytes).toBeGreaterThan(50 * MB);
    const rs = readInChild(small);
    const rl = readInChild(large);
    expect(rl.events).toBe(rs.events);
    // The file passes through in 1 MiB chunks; holding it would add 50 MiB or more.
    expect(rl.rssMiB - rs.rssMiB).toBeLessThan(16);
  });
});
