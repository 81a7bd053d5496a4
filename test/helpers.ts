import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import '../src/allocators/index.js';
import { traceFromEvents, type EventObject } from '../src/trace/from-events.js';

export { traceFromEvents, type EventObject };

export const ROOT = resolve(import.meta.dirname, '..');
export const FIXTURES = join(ROOT, 'test', 'fixtures');
export const SHARED_TRACES = resolve(ROOT, '..', 'shared', 'traces');

export const KiB = 1024;
export const MiB = 1024 * 1024;
export const GiB = 1024 * 1024 * 1024;

/** A fresh temporary directory, under the run's root (test/temp-root.ts) that the run removes at its end. */
export function tempDir(): string {
  return mkdtempSync(join(process.env.MEMSIM_TEST_TMP ?? tmpdir(), 'memsim-test-'));
}

/** A writer of numbered files (`<prefix>0.csv`, `<prefix>1.jsonl`, …) into `dir`: each call writes one and returns its path. */
export function fileWriter(dir: string, prefix = 't'): (text: string, ext?: string) => string {
  let files = 0;
  return (text, ext = 'csv') => {
    const p = join(dir, `${prefix}${files++}.${ext}`);
    writeFileSync(p, text);
    return p;
  };
}

/** Runs the built CLI as a user does; returns exit code, stdout, stderr. */
export function runCli(args: string[], options: { input?: string | Buffer; env?: Record<string, string>; cwd?: string } = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'memsim.js'), ...args], {
    encoding: 'utf8',
    input: options.input,
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', ...options.env },
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** alloc/free shorthands for hand-written traces. */
export const alloc = (id: string | number, size: number, extra: Partial<EventObject> = {}): EventObject => ({ op: 'alloc', id, size, ...extra });
export const free = (id: string | number, extra: Partial<EventObject> = {}): EventObject => ({ op: 'free', id, ...extra });
