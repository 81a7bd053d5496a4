import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFully } from '../../src/output/index.js';
import { ROOT, runCli, tempDir } from '../helpers.js';

const BIN = join(ROOT, 'bin', 'memsim.js');
const TRAINING = join(ROOT, 'traces', 'training.json');
const dir = tempDir();
const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `memsim ARGS | READER` in a shell; returns memsim's own exit status and stderr (kept apart from
 * the reader's) and what the reader printed.
 */
function piped(args: string[], reader: string): { code: number; stderr: string; out: string } {
  const err = join(dir, `err-${Math.random().toString(36).slice(2)}`);
  const rc = `${err}.rc`;
  const memsim = [process.execPath, BIN, ...args].map(quote).join(' ');
  const r = spawnSync('sh', ['-c', `(${memsim} 2>${quote(err)}; echo $? >${quote(rc)}) | ${reader}`], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: Number(readFileSync(rc, 'utf8').trim()), stderr: readFileSync(err, 'utf8'), out: r.stdout };
}

describe('a pipe whose reader is slow', () => {
  it('gets every line (gen | (sleep; wc -l)), and memsim exits 0 with nothing on stderr', () => {
    const args = ['gen', 'training', '--steps', '200', '--format', 'csv'];
    const fast = piped(args, 'wc -l');
    expect(Number(fast.out)).toBeGreaterThan(50_000);
    const r = piped(args, '(sleep 2; wc -l)');
    expect(r).toEqual({ code: 0, stderr: '', out: fast.out });
  });

  it('gets the whole output when a child process reads it late', async () => {
    const child = spawn(process.execPath, [BIN, 'convert', TRAINING, '-', '--format', 'jsonl'], { cwd: ROOT });
    child.stdout.pause();
    const stderr: Buffer[] = [];
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    await new Promise((r) => setTimeout(r, 1500));
    const chunks: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => chunks.push(b));
    child.stdout.resume();
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect({ code, stderr: Buffer.concat(stderr).toString() }).toEqual({ code: 0, stderr: '' });
    const out = Buffer.concat(chunks).toString();
    expect(out.length).toBeGreaterThan(256 * 1024);
    expect(out).toBe(runCli(['convert', TRAINING, '-', '--format', 'jsonl']).stdout);
  });

  it('waits for a pipe in non-blocking mode instead of failing with EAGAIN (writeFully)', async () => {
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // Opened read-write so that the open does not wait for a reader; non-blocking as Node makes stdout.
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    const reader = spawn('sh', ['-c', `sleep 1; wc -c < ${quote(fifo)}`]);
    const counted = new Promise<string>((resolve) => {
      let s = '';
      reader.stdout.on('data', (b: Buffer) => (s += b.toString()));
      reader.on('close', () => resolve(s.trim()));
    });
    const bytes = new Uint8Array(1 << 20).fill(0x61);
    writeFully(fd, bytes, 0, bytes.length, 'the fifo');
    closeSync(fd);
    expect(await counted).toBe(String(bytes.length));
  });
});

describe('a reader that closes early (| head -1)', () => {
  const cases: [string, string[]][] = [
    ['convert to stdout', ['convert', TRAINING, '-', '--format', 'csv']],
    ['gen', ['gen', 'training', '--steps', '30', '--format', 'csv']],
    ['replay --format json', ['replay', TRAINING, '--format', 'json']],
    ['replay --placements -', ['replay', TRAINING, '--placements', '-', '--output', join(dir, 'report.txt')]],
    ['plan --format csv', ['plan', TRAINING, '--strategy', 'greedy-by-size', '--format', 'csv']],
  ];
  it.each(cases)('%s exits 0 with nothing on stderr', (_name, args) => {
    const r = piped(args, 'head -1');
    expect(r.out.split('\n').length).toBe(2);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  });
});

/**
 * Runs memsim with its standard output a pipe whose reader has gone before memsim starts (the parent
 * closes its end straight after the spawn, long before Node has started): every write gets EPIPE,
 * however small the output, unlike `| head -1`, which a short output may fill before head exits.
 */
async function readerGone(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  return { code, stderr };
}

describe('a reader that has gone before anything is written', () => {
  const csv = join(dir, 'gone.csv');
  writeFileSync(csv, 'op,id,size,step\nalloc,a,1048576,0\nalloc,b,2097152,0\nfree,a,,1\nfree,b,,1\n');
  const cases: [string, string[]][] = [
    ['replay', ['replay', csv]],
    ['replay --format json', ['replay', csv, '--format', 'json']],
    ['replay --format markdown', ['replay', csv, '--format', 'markdown']],
    ['replay --format html', ['replay', csv, '--format', 'html']],
    ['replay --placements -', ['replay', csv, '--placements', '-', '--output', join(dir, 'gone.txt')]],
    ['compare', ['compare', csv, '--allocators', 'naive,bfc']],
    ['compare --format html', ['compare', csv, '--allocators', 'naive', '--format', 'html']],
    ['tune', ['tune', csv, '--allocators', 'naive']],
    ['report', ['report', csv, '--allocators', 'naive']],
    ['validate', ['validate', csv]],
    ['allocators', ['allocators']],
    ['gen', ['gen', 'training', '--steps', '2']],
    ['convert', ['convert', csv, '-', '--format', 'jsonl']],
    ['plan --format csv', ['plan', csv, '--format', 'csv']],
    ['plan', ['plan', csv]],
    ['diff', ['diff', csv, csv, '--allocators', 'naive']],
    ['--help', ['--help']],
    ['--version', ['--version']],
  ];
  it.each(cases)('%s exits 0 with nothing on stderr', async (_name, args) => {
    expect(await readerGone(args)).toEqual({ code: 0, stderr: '' });
  });
});

describe('a reader that has gone takes nothing else away', () => {
  it("leaves a failed gate its exit code and its line on stderr", async () => {
    const r = await readerGone(['replay', join(ROOT, 'traces', 'fragmentation.csv'), '--capacity', '1MiB']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^memsim: gate failed: replay with naive hit 1 OOM\(s\); .*\n$/);
  });

  it('still writes the other outputs: compare --json-output, replay --output beside --placements -', async () => {
    const json = join(dir, 'gone-compare.json');
    expect(await readerGone(['compare', TRAINING, '--allocators', 'naive,bfc', '--json-output', json])).toEqual({ code: 0, stderr: '' });
    expect(readFileSync(json, 'utf8')).toBe(runCli(['compare', TRAINING, '--allocators', 'naive,bfc', '--format', 'json']).stdout);
    const report = join(dir, 'gone-replay.json');
    const args = ['replay', TRAINING, '--format', 'json', '--output', report];
    expect(await readerGone([...args, '--placements', '-'])).toEqual({ code: 0, stderr: '' });
    const placed = readFileSync(report, 'utf8');
    expect(runCli(args).code).toBe(0);
    expect(placed).toBe(readFileSync(report, 'utf8'));
  });
});

describe.runIf(existsSync('/dev/full'))('a full disk (/dev/full)', () => {
  const out = '/dev/full';
  const message = 'memsim: cannot write /dev/full: no space left on device\n';
  const csv = join(dir, 'small.csv');
  writeFileSync(csv, 'op,id,size,step\nalloc,a,1048576,0\nalloc,b,2097152,0\nfree,a,,1\nfree,b,,1\n');
  const cases: [string, string[]][] = [
    ['gen --output', ['gen', 'training', '--steps', '5', '--output', out]],
    ['convert', ['convert', TRAINING, out, '--format', 'csv']],
    ['replay --output', ['replay', csv, '--output', out]],
    ['replay --format json --output', ['replay', csv, '--format', 'json', '--output', out]],
    ['replay --format html --output', ['replay', csv, '--format', 'html', '--output', out]],
    ['replay --placements', ['replay', TRAINING, '--placements', out]],
    ['compare --output', ['compare', csv, '--allocators', 'naive', '--output', out]],
    ['compare --json-output', ['compare', csv, '--allocators', 'naive', '--json-output', out]],
    ['report --output', ['report', csv, '--allocators', 'naive', '--output', out]],
    ['plan --format csv --output', ['plan', csv, '--format', 'csv', '--output', out]],
    ['plan --output', ['plan', csv, '--output', out]],
    ['tune --output', ['tune', csv, '--allocators', 'naive', '--output', out]],
    ['tune --json-output', ['tune', csv, '--allocators', 'naive', '--json-output', out]],
    ['diff --output', ['diff', csv, csv, '--allocators', 'naive', '--output', out]],
  ];
  it.each(cases)('%s: exit 2, "cannot write /dev/full: no space left on device"', (_name, args) => {
    const r = runCli(args);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: message });
  });

  it('says "standard output" when stdout is the full disk', () => {
    for (const args of [['gen', 'training', '--steps', '5'], ['replay', csv], ['allocators'], ['validate', csv]]) {
      const fd = openSync(out, 'w');
      const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', fd, 'pipe'] });
      closeSync(fd);
      expect({ args, code: r.status, stderr: r.stderr }).toEqual({ args, code: 2, stderr: 'memsim: cannot write standard output: no space left on device\n' });
    }
  });

  it('names a file it cannot create', () => {
    const r = runCli(['gen', 'training', '--steps', '5', '--output', join(dir, 'no-such-folder', 'x.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`memsim: cannot write ${join(dir, 'no-such-folder', 'x.json')}: no such file or directory\n`);
  });
});

describe('stdout on /dev/null', () => {
  it('is not a terminal, and is asked without loading node:tty (Linux)', () => {
    if (process.platform !== 'linux') return;
    const io = join(ROOT, 'dist', 'cli', 'io.js');
    const script = `import(${JSON.stringify(io)}).then((m) => process.stderr.write(JSON.stringify([m.isTerminal(1), process.moduleLoadList.some((x) => / tty$/.test(x))])))`;
    const devNull = openSync('/dev/null', 'w');
    try {
      const r = spawnSync(process.execPath, ['-e', script], { stdio: ['ignore', devNull, 'pipe'], encoding: 'utf8' });
      expect(JSON.parse(r.stderr)).toEqual([false, false]);
    } finally {
      closeSync(devNull);
    }
  });
});
