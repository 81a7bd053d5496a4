import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../../src/errors.js';
import { ByteSource } from '../../src/trace/source.js';
import { spoolInput } from '../../src/trace/spool.js';
import { pickle, type PickleWritable } from '../../src/trace/pytorch/pickle-writer.js';
import { DIRECT_MIN_BYTES } from '../../src/trace/pytorch/snapshot-unpickler.js';
import { ROOT, runCli, tempDir } from '../helpers.js';
import { entry, MiB, SAMPLE_FRAMES, segment } from './snapshot-helpers.js';

const A = 0x7f0000000000;

/** The bytes of an open file from its start. */
function contents(fd: number, size: number): Buffer {
  const out = Buffer.alloc(size);
  for (let at = 0; at < size; ) at += readSync(fd, out, at, size - at, at);
  return out;
}

describe('spoolInput: the rest of an input into a temporary file', () => {
  it('writes what the source holds and everything after it, and leaves nothing in the directory', () => {
    const dir = tempDir();
    const spoolDir = join(dir, 'spool');
    writeFileSync(join(dir, '.keep'), '');
    const file = join(dir, 'input.bin');
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, k) => (k * 7 + (k >> 9)) & 0xff));
    writeFileSync(file, bytes);
    mkdirSync(spoolDir);
    const src = new ByteSource(file, 4096);
    src.fill();
    const spooled = spoolInput(src, 1 << 20, 'too large', spoolDir) as NonNullable<ReturnType<typeof spoolInput>>;
    // Removed from its directory as soon as made: nothing is left whatever happens next.
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(spooled.size).toBe(bytes.length);
    expect(contents(spooled.fd, spooled.size).equals(bytes)).toBe(true);
    expect(src.eof).toBe(true);
    spooled.close();
  });

  it('refuses an input past its limit with the limit message, and keeps nothing', () => {
    const dir = tempDir();
    const file = join(dir, 'input.bin');
    writeFileSync(file, Buffer.alloc(100_000, 1));
    const src = new ByteSource(file, 4096);
    src.fill();
    let err: unknown;
    try {
      spoolInput(src, 50_000, 'a snapshot larger than 48.8 KiB', dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TraceError);
    expect((err as Error).message).toContain('a snapshot larger than 48.8 KiB');
    expect(readdirSync(dir)).toEqual(['input.bin']);
  });

  it('makes nothing and reads nothing where no file can be made in the directory (the input is then read into memory)', () => {
    const dir = tempDir();
    const file = join(dir, 'input.bin');
    writeFileSync(file, 'abc');
    const src = new ByteSource(file, 4096);
    src.fill();
    expect(spoolInput(src, 1 << 20, 'too large', join(dir, 'no-such-dir'))).toBeUndefined();
    expect(src.end).toBe(3);
  });
});

/** A snapshot pickle of more than DIRECT_MIN_BYTES (long frame lists make the size with few entries). */
function largeSnapshot(last: PickleWritable[] = []): Buffer {
  const trace: PickleWritable[] = [];
  for (let i = 0; i < 2_700; i++) {
    const fr = Array.from({ length: 1000 + (i % 7) }, (_, k) => SAMPLE_FRAMES[(i + k) % SAMPLE_FRAMES.length]!) as PickleWritable[];
    trace.push(entry('alloc', A + 512 * i, 512, { frames: fr }), entry('free_requested', A + 512 * i, 512, { frames: [...fr].reverse() }), entry('free_completed', A + 512 * i, 512, { frames: fr }));
  }
  trace.push(...last);
  return pickle({ segments: [segment({ address: A, blocks: [{ size: 64 * MiB, state: 'inactive' }] })], device_traces: [trace] });
}

/** The report without the input's path (`-` from standard input). */
function withoutPath(json: string): unknown {
  const r = JSON.parse(json) as { trace: { path?: string } };
  delete r.trace.path;
  return r;
}

describe('a large snapshot on standard input', () => {
  const dir = tempDir();
  const file = join(dir, 'large.pickle');
  const buf = largeSnapshot();
  writeFileSync(file, buf);
  const fromFile = runCli(['replay', file, '--format', 'json']);

  it('is replayed as the same file is, from a pipe and from a file given as standard input, leaving no temporary file', () => {
    expect(buf.length).toBeGreaterThan(DIRECT_MIN_BYTES);
    expect(fromFile.code).toBe(0);
    const tmp = join(dir, 'tmp-pipe');
    mkdirSync(tmp);
    const piped = runCli(['replay', '-', '--format', 'json'], { input: buf, env: { TMPDIR: tmp } });
    expect(piped.stderr).toBe('');
    expect(piped.code).toBe(0);
    expect(withoutPath(piped.stdout)).toEqual(withoutPath(fromFile.stdout));
    expect(readdirSync(tmp)).toEqual([]);
    // Standard input that is the file itself (`memsim replay - < large.pickle`).
    const fd = openSync(file, 'r');
    try {
      const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'memsim.js'), 'replay', '-', '--format', 'json'], {
        stdio: [fd, 'pipe', 'pipe'],
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', TMPDIR: tmp },
      });
      expect(r.status).toBe(0);
      expect(withoutPath(r.stdout)).toEqual(withoutPath(fromFile.stdout));
    } finally {
      closeSync(fd);
    }
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('is read into memory where no temporary file can be made, and refused naming the directory where one cannot be written to its end', () => {
    const missing = join(dir, 'missing');
    const r = runCli(['replay', '-', '--format', 'json'], { input: buf, env: { TMPDIR: missing } });
    expect(r.code).toBe(0);
    expect(withoutPath(r.stdout)).toEqual(withoutPath(fromFile.stdout));
    expect(existsSync(missing)).toBe(false);
    // A file size limit of 1 MiB: the temporary file cannot take the input.
    const tmp = join(dir, 'tmp-limited');
    mkdirSync(tmp);
    const limited = spawnSync('sh', ['-c', `ulimit -f 2048; exec "${process.execPath}" "${join(ROOT, 'bin', 'memsim.js')}" replay -`], { input: buf, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', TMPDIR: tmp } });
    expect(limited.status).toBe(2);
    expect(limited.stderr).toBe(`memsim: standard input: cannot hold it in a temporary file in ${tmp} (file too large): save it to a file and name the file instead, or set TMPDIR to a directory with room\n`);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('with a bad entry is refused as the same file is', () => {
    const bad = largeSnapshot([entry('alloc', A, 512), entry('alloc', A + 1024, -7)]);
    const badFile = join(dir, 'bad.pickle');
    writeFileSync(badFile, bad);
    const a = runCli(['replay', badFile]);
    const b = runCli(['replay', '-'], { input: bad });
    expect(a.code).toBe(2);
    expect(b.code).toBe(2);
    expect(a.stderr).toContain('device_traces[0][8101].size: must not be negative, got -7');
    expect(b.stderr).toBe(a.stderr.replaceAll(badFile, '-'));
  });

  it('a small one is still read in memory: no temporary directory needed', () => {
    const small = pickle({ segments: [segment({ address: A, blocks: [{ size: 2 * MiB, state: 'inactive' }] })], device_traces: [[entry('alloc', A, 512), entry('free_completed', A, 512)]] });
    const r = runCli(['replay', '-', '--format', 'json'], { input: small, env: { TMPDIR: join(dir, 'missing') } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).trace.events).toBe(2);
    expect(readFileSync(file).length).toBe(buf.length);
  });

  it('is told from more than a first read of one byte (a writer that writes a byte, then the rest)', () => {
    const small = join(dir, 'small.pickle');
    writeFileSync(small, pickle({ segments: [segment({ address: A, blocks: [{ size: 2 * MiB, state: 'inactive' }] })], device_traces: [[entry('alloc', A, 512), entry('free_completed', A, 512)]] }));
    const bin = join(ROOT, 'bin', 'memsim.js');
    const slowly = (input: string): ReturnType<typeof spawnSync> =>
      spawnSync('sh', ['-c', `(${input}) | "${process.execPath}" "${bin}" validate -`], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    const pickled = slowly(`head -c 1 "${small}"; sleep 0.2; tail -c +2 "${small}"`);
    expect(pickled.stderr).toBe('');
    expect(pickled.stdout).toContain('ok - (pytorch-snapshot): 2 events');
    const csv = slowly(`printf o; sleep 0.2; printf 'p,id,size,step\\nalloc,a,1,0\\n'`);
    expect(csv.stdout).toContain('ok - (csv): 1 events');
  });
});
