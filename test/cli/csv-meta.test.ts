import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';

const dir = tempDir();
const GiB = 2 ** 30;

/** The trace fields and capacity a replay sees, from its JSON report. */
function seen(path: string): { name: unknown; capacityBytes: unknown } {
  const r = runCli(['replay', path, '--format', 'json', '--allow-oom']);
  expect(r.stderr).toBe('');
  const j = JSON.parse(r.stdout) as { trace: { name?: unknown }; capacityBytes: unknown };
  return { name: j.trace.name, capacityBytes: j.capacityBytes };
}

describe('the metadata line of a CSV trace', () => {
  it('gen --format csv --capacity keeps the capacity and the name, and replay reads them back', () => {
    const csv = join(dir, 'gen.csv');
    expect(runCli(['gen', 'training', '--steps', '2', '--format', 'csv', '--capacity', '1GiB', '--output', csv]).code).toBe(0);
    const [first, header] = readFileSync(csv, 'utf8').split('\n');
    expect(first).toBe(
      '# {"format":"memsim-trace","version":1,"meta":{"name":"training-seed1-steps2","source":"memsim gen training --seed 1 --steps 2 --capacity 1073741824","capacityBytes":1073741824}}',
    );
    expect(header).toBe('op,id,size,step,tag');
    expect(seen(csv)).toEqual({ name: 'training-seed1-steps2', capacityBytes: GiB });
  });

  it('convert JSONL → CSV → JSON keeps meta whole', () => {
    const jsonl = join(dir, 'in.jsonl');
    const meta = { name: 'resnet, "50"', source: 'a test', capacityBytes: 3 * GiB, owner: { team: 'x' } };
    writeFileSync(jsonl, [JSON.stringify({ format: 'memsim-trace', version: 1, meta }), '{"op":"alloc","id":"a","size":1048576}', '{"op":"free","id":"a"}', ''].join('\n'));
    const csv = join(dir, 'out.csv');
    expect(runCli(['convert', jsonl, csv]).code).toBe(0);
    expect(seen(csv)).toEqual({ name: meta.name, capacityBytes: 3 * GiB });
    const back = join(dir, 'back.json');
    expect(runCli(['convert', csv, back]).code).toBe(0);
    expect((JSON.parse(readFileSync(back, 'utf8')) as { meta: unknown }).meta).toEqual(meta);
  });

  it('carries the capacity through a file large enough to be read on another thread', () => {
    const csv = join(dir, 'big.csv');
    expect(runCli(['gen', 'training', '--events', '400000', '--format', 'csv', '--capacity', '20GiB', '--output', csv]).code).toBe(0);
    expect(readFileSync(csv).length).toBeGreaterThan(8 * 2 ** 20);
    expect(seen(csv).capacityBytes).toBe(20 * GiB);
  });

  it('reads a metadata line among other comments and blank lines before the header; other comments stay comments', () => {
    const csv = join(dir, 'hand.csv');
    writeFileSync(csv, '# written by hand\n\n#   {"format": "memsim-trace", "version": 1, "meta": {"capacityBytes": 4096}}\n# {"not": "meta"}\nop,id,size\nalloc,a,1024\n');
    expect(seen(csv)).toEqual({ name: null, capacityBytes: 4096 });
  });

  it('reads a CSV whose metadata line follows a byte order mark as CSV, from a file or standard input (it was taken for JSON Lines)', () => {
    const text = '\ufeff# {"format":"memsim-trace","version":1,"meta":{"name":"bom"}}\nop,id,size,step\nalloc,1,10,0\nfree,1,,1\n';
    const file = join(dir, 'bom.csv');
    writeFileSync(file, text);
    for (const [args, input] of [[['validate', file, '--format', 'json'], undefined], [['validate', '-', '--format', 'json'], text]] as const) {
      const r = runCli([...args], input === undefined ? {} : { input });
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout).trace).toMatchObject({ format: 'csv', name: 'bom', events: 2 });
    }
  });

  it('refuses a metadata line that is broken or wrong, at its line', () => {
    const broken = join(dir, 'broken.csv');
    writeFileSync(broken, '# {"format":"memsim-trace","version":1,"meta":{"capacityBytes":4\nop,id,size\nalloc,a,1\n');
    const r = runCli(['validate', broken]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('broken.csv:1:65: the metadata line is not valid JSON: expected "," or "}", found end of line');
    const wrong = join(dir, 'wrong.csv');
    writeFileSync(wrong, '# {"format":"memsim-trace","version":2,"meta":{"capacityBytes":-4}}\nop,id,size\nalloc,a,1\n');
    const w = runCli(['validate', wrong]);
    expect(w.code).toBe(2);
    expect(w.stderr).toContain('wrong.csv:1: field "version": unsupported version 2 (this memsim reads version 1)');
    expect(w.stderr).toContain('wrong.csv:1: field "meta.capacityBytes": capacityBytes must be a positive integer, got -4');
  });

  it('keeps line numbers of the events right after the metadata line', () => {
    const csv = join(dir, 'lines.csv');
    writeFileSync(csv, '# {"format":"memsim-trace","version":1,"meta":{}}\nop,id,size\nalloc,a,1\nalloc,a,1\n');
    expect(runCli(['validate', csv]).stderr).toContain('lines.csv:4: field "id": alloc of id "a" which is still live');
  });
});
