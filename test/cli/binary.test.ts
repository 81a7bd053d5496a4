import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sectionTable } from '../trace/binary-helpers.js';
import { ROOT, runCli, SHARED_TRACES, tempDir } from '../helpers.js';

const dir = tempDir();
// The CSV beside the binary trace: paths and format names of one length wrap the reports alike.
const csv = join(dir, 'fragmentation.csv');
copyFileSync(join(ROOT, 'traces', 'fragmentation.csv'), csv);
const mst = join(dir, 'fragmentation.mst');
const MEMSIM = join(ROOT, 'bin', 'memsim.js');

/** A report with the trace's file and format taken out (they name the input, which differs). */
function withoutInput(text: string, path: string, format: string): string {
  return text
    .replaceAll(path, '<input>')
    .replaceAll(`<input> (${format}`, '<input> (')
    .replaceAll(`"format": "${format}",`, '"format": "",')
    .replace(/\n {4}"sourceFormat": "[^"]*",/, '');
}

/** Runs `sh -c script` with the built CLI as $M. */
function sh(script: string): { code: number; stdout: Buffer; stderr: string } {
  const r = spawnSync('sh', ['-c', script], { env: { ...process.env, M: MEMSIM, NO_COLOR: '1' }, cwd: dir });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr.toString() };
}

describe('memsim convert to .mst, and every command reading it', () => {
  it('convert picks the binary format from the extension and from --format', () => {
    expect(runCli(['convert', csv, mst])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const bytes = readFileSync(mst);
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x4d, 0x53, 0x54, 0x0d, 0x0a, 0x1a, 0x0a]);
    const other = join(dir, 'other.bin');
    expect(runCli(['convert', csv, other, '--format', 'mst']).code).toBe(0);
    expect(readFileSync(other)).toEqual(bytes);
  });

  it('replay: the same report as from the CSV, in every format, whichever allocator', () => {
    runCli(['convert', csv, mst]);
    for (const args of [['-a', 'bfc', '--capacity', '600MiB', '--on-oom', 'continue', '--allow-oom'], ['-a', 'caching', '--format', 'json'], ['-a', 'lifetime-pool', '--format', 'markdown']]) {
      const a = runCli(['replay', csv, ...args]);
      const b = runCli(['replay', mst, ...args]);
      expect(b.code).toBe(a.code);
      expect(withoutInput(b.stdout, mst, 'mst')).toBe(withoutInput(a.stdout, csv, 'csv'));
    }
  });

  it('validate, compare, plan and diff read it as they read the CSV', () => {
    runCli(['convert', csv, mst]);
    const v = runCli(['validate', mst]);
    expect(v.stdout).toBe(runCli(['validate', csv]).stdout.replace(`ok ${csv} (csv)`, `ok ${mst} (mst)`));
    const cmp = ['compare', '--allocators', 'naive,bfc', '--format', 'json'];
    expect(withoutInput(runCli([...cmp, mst]).stdout, mst, 'mst')).toBe(withoutInput(runCli([...cmp, csv]).stdout, csv, 'csv'));
    const plan = ['plan', '--strategy', 'greedy-by-size', '--format', 'csv'];
    expect(runCli([...plan, mst]).stdout).toBe(runCli([...plan, csv]).stdout);
    const d = runCli(['diff', mst, csv, '--allocators', 'naive', '--format', 'json']);
    expect(d.code).toBe(0);
    expect(JSON.parse(d.stdout).allocators[0].change.peakReservedBytes.bytes).toBe(0);
  });

  it('streams through pipes: convert to standard output, replay and validate from standard input', () => {
    const r = sh(`node "$M" convert "${csv}" - --format mst | node "$M" replay - -a caching --format json`);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout.toString()).summary).toEqual(JSON.parse(runCli(['replay', csv, '-a', 'caching', '--format', 'json']).stdout).summary);
    expect(sh(`node "$M" convert "${csv}" - --format mst | node "$M" validate -`).stdout.toString()).toMatch(/^ok - \(mst\): 3,528 events, 1,800 allocs/);
  });

  it('a snapshot keeps its stacks, its recorded history and its own allocator', () => {
    const snapshot = join(SHARED_TRACES, 'pytorch', 'bcrafton_memory_snapshot.pickle');
    if (!existsSync(snapshot)) {
      console.warn(`skipped: no ${snapshot}`);
      return;
    }
    const out = join(dir, 'snap.mst');
    expect(runCli(['convert', snapshot, out]).code).toBe(0);
    for (const args of [['--width', '400'], ['--group-by', 'stack', '--format', 'json'], ['-a', 'caching', '--option', 'expandable_segments=true', '--width', '400']]) {
      const a = runCli(['replay', snapshot, ...args]);
      const b = runCli(['replay', out, ...args]);
      expect(withoutInput(b.stdout, out, 'mst')).toBe(withoutInput(a.stdout, snapshot, 'pytorch-snapshot'));
    }
    expect(runCli(['replay', out]).stdout).toContain("memsim replay · caching (the snapshot's own; -a to choose)");
  });
});

describe('damaged binary traces: exit 2, the file and field named, no stack trace', () => {
  runCli(['convert', csv, mst]);
  const bytes = readFileSync(mst);
  const table = sectionTable(bytes);

  /** The first problem that `command` (default: replay) reports on `b`, whose exit code must be 2. */
  function fails(b: Buffer, command: (path: string) => string[] = (p) => ['replay', p]): string {
    const path = join(dir, 'damaged.mst');
    writeFileSync(path, b);
    const r = runCli(command(path));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const lines = r.stderr.replaceAll(path, 'damaged.mst').trim().split('\n');
    expect(lines[0]).toMatch(/^memsim: invalid input \(\d+ problems?\):$/);
    return lines[1] as string;
  }

  it('truncated, or of a newer version', () => {
    const [at] = table.get('size') as [number, number];
    for (const cmd of ['replay', 'validate', 'compare', 'plan', 'tune', 'report', 'convert', 'diff']) {
      const command = (p: string): string[] => (cmd === 'convert' ? [cmd, p, join(dir, 'out.csv')] : cmd === 'diff' ? [cmd, csv, p] : cmd === 'report' ? [cmd, p, '--output', join(dir, 'r.html')] : [cmd, p]);
      expect(fails(bytes.subarray(0, at + 100), command)).toMatch(/^damaged\.mst: section "(size|step|line|alloc)": truncated: /);
    }
    const v = Buffer.from(bytes);
    v.writeUInt32LE(7, 8);
    expect(fails(v)).toBe('damaged.mst: field "version": version 7: this memsim reads version 1 (the file was written by a newer memsim: update memsim, or convert the trace again from its source with this one)');
  });

  it('validate checks every byte (CRC-32 per section); reading checks what the replay relies on', () => {
    const [at] = table.get('line') as [number, number];
    const b = Buffer.from(bytes);
    b[at + 5] = (b[at + 5] as number) ^ 0x10;
    expect(fails(b, (p) => ['validate', p])).toMatch(/^damaged\.mst: section "line": damaged: its CRC-32 is [0-9A-F]{8}, the section table says [0-9A-F]{8} \(the bytes changed after the file was written\)$/);
    const [opAt] = table.get('op') as [number, number];
    const c = Buffer.from(bytes);
    c[opAt + 3] = 9;
    expect(fails(c)).toBe('damaged.mst: events[3].op: 9 is neither 0 (alloc) nor 1 (free)');
  });
});
