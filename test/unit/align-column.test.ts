import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../../src/errors.js';
import { readTrace } from '../../src/trace/read.js';
import { writeTrace } from '../../src/trace/write.js';
import { runCli, tempDir, traceFromEvents } from '../helpers.js';

/** The same four events in each format: alloc a (align 4096), alloc b (default), free a, alloc c (align 128). */
const FORMS: Record<string, string> = {
  'a.csv': 'op,id,size,align\nalloc,a,40000,4096\nalloc,b,50000,\nfree,a,,\nalloc,c,60000,128\n',
  'a.jsonl':
    '{"op":"alloc","id":"a","size":40000,"align":4096}\n{"op":"alloc","id":"b","size":50000}\n{"op":"free","id":"a"}\n{"op":"alloc","id":"c","size":60000,"align":128}\n',
  'a.json':
    '{"format":"memsim-trace","version":1,"events":[\n{"op":"alloc","id":"a","size":40000,"align":4096},\n{"op":"alloc","id":"b","size":50000},\n{"op":"free","id":"a"},\n{"op":"alloc","id":"c","size":60000,"align":128}\n]}\n',
};

describe('the optional align column', () => {
  it.each(Object.keys(FORMS))('%s: alloc events keep their alignment, 64 where none is given, 0 on frees', (name) => {
    const dir = tempDir();
    const file = join(dir, name);
    writeFileSync(file, FORMS[name]!);
    const t = readTrace(file);
    expect(t.align && [...t.align]).toEqual([4096, 64, 0, 128]);
  });

  it('is absent (null) when every alloc asks for the default', () => {
    expect(traceFromEvents([{ op: 'alloc', id: 1, size: 10 }, { op: 'alloc', id: 2, size: 10, align: 64 }]).align).toBeNull();
    // The column appears with the first other value; earlier allocs get the default.
    const t = traceFromEvents([{ op: 'alloc', id: 1, size: 10 }, { op: 'free', id: 1 }, { op: 'alloc', id: 2, size: 10, align: 256 }]);
    expect(t.align && [...t.align]).toEqual([64, 0, 256]);
  });

  it('survives every writer: CSV, JSONL and JSON round trips', () => {
    const dir = tempDir();
    const src = join(dir, 'a.csv');
    writeFileSync(src, FORMS['a.csv']!);
    const t = readTrace(src);
    for (const fmt of ['csv', 'jsonl', 'json'] as const) {
      const out = join(dir, `out.${fmt}`);
      writeTrace(t, out, fmt);
      expect([...(readTrace(out).align ?? [])]).toEqual([4096, 64, 0, 128]);
    }
    expect(readFileSync(join(dir, 'out.csv'), 'utf8').split('\n').slice(0, 4)).toEqual([
      'op,id,size,step,tag,align',
      'alloc,a,40000,0,,4096',
      'alloc,b,50000,0,,64',
      'free,a,,0,,',
    ]);
    // JSON writes align only where it is not the default.
    expect(readFileSync(join(dir, 'out.jsonl'), 'utf8')).toContain('{"op":"alloc","id":"b","size":50000,"step":0}');
  });

  it('memsim convert keeps it', () => {
    const dir = tempDir();
    const src = join(dir, 'a.jsonl');
    writeFileSync(src, FORMS['a.jsonl']!);
    const out = join(dir, 'b.csv');
    const r = runCli(['convert', src, out]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('alloc,c,60000,0,,128');
  });

  it.each([
    ['0', 'got 0'],
    ['48', 'got 48'],
    ['-64', 'got -64'],
    ['2147483648', 'got 2147483648'],
    ['x', 'got "x"'],
  ])('refuses align %s with file, line and field', (value, got) => {
    const dir = tempDir();
    const file = join(dir, 'bad.csv');
    writeFileSync(file, `op,id,size,align\nalloc,a,40000,64\nalloc,b,40000,${value}\n`);
    expect(() => readTrace(file)).toThrow(TraceError);
    expect(() => readTrace(file)).toThrow(`bad.csv:3:15: field "align": align must be a power of two from 1 to 2^30 bytes, ${got}`);
  });

  it('refuses a bad align in JSON with the event line', () => {
    const dir = tempDir();
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, '{"op":"alloc","id":"a","size":1}\n{"op":"alloc","id":"b","size":1,"align":"64"}\n');
    expect(() => readTrace(file)).toThrow('bad.jsonl:2: field "align": align must be a power of two from 1 to 2^30 bytes, got "64"');
  });
});
