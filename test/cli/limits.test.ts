import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';

// Endless and huge inputs: every reader refuses a line, record, JSON event or pickle beyond its
// documented limit with a clear message and exit 2, instead of growing without end.

describe.skipIf(!existsSync('/dev/zero'))('endless input (/dev/zero)', () => {
  it.each(['csv', 'jsonl', 'tflog'])('--input-format %s: a line longer than 16 MiB is refused', (format) => {
    const r = runCli(['validate', '/dev/zero', '--input-format', format]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/dev/zero:1: a line longer than 16.00 MiB: memsim reads lines, CSV records and JSON events of up to 16.00 MiB');
    expect(r.stderr).not.toMatch(/internal error|ERR_|at .*\.js/);
  });

  it('--input-format json and pytorch-snapshot: refused at the first byte', () => {
    const json = runCli(['validate', '/dev/zero', '--input-format', 'json']);
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('found byte 0x00');
    const pickle = runCli(['replay', '/dev/zero', '--input-format', 'pytorch-snapshot']);
    expect(pickle.code).toBe(2);
    expect(pickle.stderr).toContain('/dev/zero: not a PyTorch snapshot: neither a pickle (protocol 2 to 5) nor JSON (first byte 0x00)');
  });
});

describe('huge records and frames', () => {
  const dir = tempDir();

  it('a CSV record longer than 16 MiB names its line', () => {
    const p = join(dir, 'long.csv');
    writeFileSync(p, `op,id,size\nalloc,a,1\nalloc,${'x'.repeat(21 * 2 ** 20)},5\n`);
    const r = runCli(['validate', p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${p}:3: a line longer than 16.00 MiB`);
  });

  it('an unterminated quote does not read the rest of the file into one field', () => {
    const p = join(dir, 'quote.csv');
    writeFileSync(p, `op,id,size\nalloc,"a,1\n${'alloc,b,1\n'.repeat(2 ** 21)}`);
    const r = runCli(['validate', p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${p}:2: a line longer than 16.00 MiB`);
  });

  it.each([
    [1000n, 'FRAME (0x95) claims 1000 bytes, more than the file holds'],
    [10n, 'FRAME of 10 bytes, beyond the end of the input (2 bytes left)'],
  ])('a pickle FRAME longer than the rest of the input is refused (%s bytes)', (length, message) => {
    const p = join(dir, `frame-${length}.pickle`);
    const frame = Buffer.alloc(8);
    frame.writeBigUInt64LE(length);
    writeFileSync(p, Buffer.concat([Buffer.from([0x80, 0x04, 0x95]), frame, Buffer.from('}.', 'latin1')]));
    const r = runCli(['validate', p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});
