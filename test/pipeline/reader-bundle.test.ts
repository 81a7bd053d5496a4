import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheFileName } from '../../src/util/code-cache.js';
import { readTrace } from '../../src/trace/index.js';
import { FIXTURES, ROOT, tempDir } from '../helpers.js';

const READER_BUNDLE = join(ROOT, 'dist', 'reader-bundle');
const TRACE = join(FIXTURES, 'three-steps.csv');

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the reading thread's bundle in dist/ (its modules find the package from there), without its code cache. */
function copyBundle(): string {
  const dir = mkdtempSync(join(ROOT, 'dist', 'reader-test-'));
  copies.push(dir);
  cpSync(READER_BUNDLE, dir, { recursive: true, filter: (src) => !src.includes('.v8-cache') });
  return dir;
}

/**
 * Runs the bundle's thread from a plain `node` (no flags, as a user runs memsim) on `trace`; returns
 * the kinds of its messages and the events of its last one.
 */
function runThread(bundleDir: string, trace: string): { kinds: string[]; length: number; op: number[]; size: number[] } {
  const script = join(tempDir(), 'run.cjs');
  writeFileSync(
    script,
    [
      "const { Worker } = require('node:worker_threads');",
      `const w = new Worker(${JSON.stringify(join(bundleDir, 'start.cjs'))}, { workerData: { path: ${JSON.stringify(trace)}, every: 16, options: {} } });`,
      'const kinds = [];',
      "w.on('message', (m) => { kinds.push(m.kind); if (m.kind !== 'events') { const t = m.trace ?? { length: 0, op: new Uint8Array(0), size: new Float64Array(0) };",
      '  console.log(JSON.stringify({ kinds, length: t.length, op: [...t.op.subarray(0, t.length)], size: [...t.size.subarray(0, t.length)] })); void w.terminate(); } });',
    ].join('\n'),
  );
  const r = spawnSync(process.execPath, [script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { kinds: string[]; length: number; op: number[]; size: number[] };
}

describe('the bundled reading thread', () => {
  it('reads as readTrace does, writes its code cache when it has none, and reads alike from it', () => {
    const dir = copyBundle();
    const expected = readTrace(TRACE);
    const want = { length: expected.length, op: [...expected.op.subarray(0, expected.length)], size: [...expected.size.subarray(0, expected.length)] };
    const first = runThread(dir, TRACE);
    expect(first).toMatchObject(want);
    expect(first.kinds[first.kinds.length - 1]).toBe('done');
    const written = readdirSync(join(dir, '.v8-cache'));
    expect(written).toContain(cacheFileName('reader-work.cjs'));
    // A cache that V8 rejects is ignored and written again.
    writeFileSync(join(dir, '.v8-cache', cacheFileName('reader-work.cjs')), 'not a cache');
    expect(runThread(dir, TRACE)).toEqual(first);
    expect(readFileSync(join(dir, '.v8-cache', cacheFileName('reader-work.cjs')), 'utf8')).not.toBe('not a cache');
    expect(runThread(dir, TRACE)).toEqual(first);
  });

  it('reports a trace it cannot read as the library does', () => {
    const dir = copyBundle();
    const bad = join(tempDir(), 'bad.csv');
    writeFileSync(bad, 'op,id,size,step\nalloc,a,-5,0\n');
    const r = runThread(dir, bad);
    expect(r.kinds).toEqual(['failed']);
  });
});
