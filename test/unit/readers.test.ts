import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../../src/errors.js';
import { lineColumn, lineOf, OP_ALLOC, OP_FREE } from '../../src/trace/model.js';
import { readTrace } from '../../src/trace/read.js';
import { FIXTURES, tempDir } from '../helpers.js';

const forms = ['three-steps.json', 'three-steps.jsonl', 'three-steps.csv'];

describe('memsim JSON, JSONL and CSV readers', () => {
  it.each(forms)('%s reads into the same columns', (name) => {
    const t = readTrace(join(FIXTURES, name));
    expect(t.length).toBe(7);
    expect([...t.op]).toEqual([OP_ALLOC, OP_ALLOC, OP_FREE, OP_ALLOC, OP_ALLOC, OP_FREE, OP_FREE]);
    expect([...t.size]).toEqual([1000, 3000000, 3000000, 512, 1048577, 512, 1048577]);
    // A free without a step inherits the previous event's.
    expect([...t.step]).toEqual([0, 0, 0, 1, 1, 1, 2]);
    expect(t.ids.toArray()).toEqual(['w', 'a', 'b', '7']);
    expect([...t.alloc]).toEqual([0, 1, 1, 2, 3, 2, 3]);
    expect([...t.freeEvent]).toEqual([-1, 2, 5, 6]);
    expect(t.tag && t.tags[t.tag[4]!]).toBe('big, "quoted"');
    expect(t.summary).toEqual({
      events: 7, allocs: 4, frees: 3, steps: 3,
      peakLiveBytes: 3001000, peakLiveEvent: 1, finalLiveBytes: 1000, finalLiveAllocs: 1,
    });
    expect(t.format).toBe(name.split('.')[1]);
  });

  it('keeps meta.capacityBytes from JSON and JSONL headers', () => {
    expect(readTrace(join(FIXTURES, 'three-steps.json')).meta.capacityBytes).toBe(8388608);
    expect(readTrace(join(FIXTURES, 'three-steps.jsonl')).meta.capacityBytes).toBe(8388608);
  });

  it('records the source line of each event', () => {
    expect([...lineColumn(readTrace(join(FIXTURES, 'three-steps.json')))]).toEqual([6, 7, 8, 9, 10, 11, 12]);
    expect([...lineColumn(readTrace(join(FIXTURES, 'three-steps.jsonl')))]).toEqual([3, 4, 5, 7, 8, 9, 10]);
    expect([...lineColumn(readTrace(join(FIXTURES, 'three-steps.csv')))]).toEqual([2, 3, 4, 6, 7, 8, 9]);
  });

  it('accepts a bare array of events and detects JSON Lines without the extension', () => {
    const dir = tempDir();
    const a = join(dir, 'bare.json');
    writeFileSync(a, '[{"op":"alloc","id":1,"size":10},{"op":"free","id":1}]');
    expect(readTrace(a).length).toBe(2);
    const b = join(dir, 'lines.txt');
    writeFileSync(b, '{"op":"alloc","id":1,"size":10}\n{"op":"free","id":1}\n');
    expect(readTrace(b).format).toBe('jsonl');
    const c = join(dir, 'table.txt');
    writeFileSync(c, 'id,size,op\n1,10,alloc\n1,,free\n');
    expect(readTrace(c).format).toBe('csv');
  });

  it('ignores unknown fields and columns', () => {
    const dir = tempDir();
    const a = join(dir, 'extra.json');
    writeFileSync(a, '{"events":[{"op":"alloc","id":"x","size":5,"ptr":123,"frames":[{"a":1}]},{"op":"free","id":"x","extra":null}],"other":{"k":[1,2]}}');
    expect(readTrace(a).length).toBe(2);
    const b = join(dir, 'extra.csv');
    writeFileSync(b, 'op,ptr,id,size\nalloc,0x10,x,5\nfree,0x10,x,\n');
    expect(readTrace(b).length).toBe(2);
  });

  it('reads strings with escapes and non-ASCII text', () => {
    const dir = tempDir();
    const a = join(dir, 'esc.json');
    writeFileSync(a, '[{"op":"alloc","id":"\\u00e9t\\u00e9\\n","size":1,"tag":"naïve → \\ud83d\\ude00"}]');
    const t = readTrace(a);
    expect(t.ids.get(0)).toBe('été\n');
    expect(t.tags[1]).toBe('naïve → 😀');
  });

  it('streams a JSON trace larger than its read buffer', () => {
    const dir = tempDir();
    const a = join(dir, 'long.json');
    const events: string[] = [];
    for (let k = 0; k < 60000; k++) events.push(`{"op":"alloc","id":"id-${k}","size":${k},"tag":"t${k % 7}"}`, `{"op":"free","id":"id-${k}"}`);
    writeFileSync(a, `{"events":[\n${events.join(',\n')}\n]}`);
    const t = readTrace(a);
    expect(t.length).toBe(120000);
    expect(lineOf(t, 119999)).toBe(120001);
    expect(t.summary.peakLiveBytes).toBe(59999);
  });
});

function problemsOf(content: string, ext: string, lenient = false): string[] {
  const dir = tempDir();
  const path = join(dir, `bad.${ext}`);
  writeFileSync(path, content);
  try {
    readTrace(path, { lenient });
  } catch (e) {
    expect(e).toBeInstanceOf(TraceError);
    return (e as TraceError).message.split('\n').map((l) => l.replace(path, 'F'));
  }
  return [];
}

describe('bad input: file, line and field in every message', () => {
  it('reports JSON syntax errors with line and column', () => {
    expect(problemsOf('{"events":[\n{"op":"alloc","id":1,"size":5},\n{"op":"free" "id":1}]}', 'json')).toEqual([
      'F:3:14: expected "," or "}", found """',
    ]);
    expect(problemsOf('not json', 'json')[0]).toMatch(/^F:1:1: /);
    expect(problemsOf('{"events":[{"op":"alloc","id":1,"size":5}', 'json')).toEqual(['F:1:42: expected "," or "]" after an event, found end of input']);
  });

  it('reports each bad field of events, with the event line, and keeps going', () => {
    const lines = [
      '{"events":[',
      '{"id":1,"size":5},',
      '{"op":"move","id":2,"size":5},',
      '{"op":"alloc","size":5},',
      '{"op":"alloc","id":3,"size":1.5},',
      '{"op":"alloc","id":4,"size":-2},',
      '{"op":"alloc","id":5,"size":1e300},',
      '{"op":"alloc","id":6},',
      '{"op":"alloc","id":7,"size":"12"},',
      '{"op":"alloc","id":8,"size":1,"step":0.5},',
      '{"op":"alloc","id":9,"size":1,"tag":3},',
      '{"op":"alloc","id":10,"size":1,"stream":-1}',
      ']}',
    ];
    expect(problemsOf(lines.join('\n'), 'json')).toEqual([
      'F:2: field "op": missing field "op" (expected "alloc" or "free")',
      'F:3: field "op": unknown op "move" (expected "alloc" or "free")',
      'F:4: field "id": missing field "id"',
      'F:5: field "size": size must be an integer number of bytes, got 1.5',
      'F:6: field "size": size must not be negative, got -2',
      'F:7: field "size": size 1e+300 is beyond 2^53 - 1 (9,007,199,254,740,991) bytes, the largest size memsim holds exactly',
      'F:8: field "size": missing field "size" on an alloc',
      'F:9: field "size": size must be an integer number of bytes, got "12"',
      'F:10: field "step": step must be an integer, got 0.5',
      'F:11: field "tag": tag must be a string, got 3',
      'F:12: field "stream": stream must be a non-negative integer, got -1',
    ]);
  });

  it('names the id and the lines of semantic errors', () => {
    const csv = 'op,id,size\nalloc,a,1\nfree,a,\nfree,a,\nfree,zz,\nalloc,b,1\nalloc,b,2\n';
    expect(problemsOf(csv, 'csv')).toEqual([
      'F:4: field "id": free of id "a" which is not live (already freed at line 3)',
      'F:5: field "id": free of id "zz" which was never allocated',
      'F:7: field "id": alloc of id "b" which is still live (allocated at line 6)',
    ]);
  });

  it('rejects decreasing times', () => {
    expect(problemsOf('{"op":"alloc","id":1,"size":1,"time":5}\n{"op":"free","id":1,"time":4}\n', 'jsonl')).toEqual([
      'F:2: field "time": time 4 is earlier than the previous event\'s 5 (line 1); times must not decrease',
    ]);
  });

  it('reports CSV header and quoting problems with columns', () => {
    expect(problemsOf('op,id\nalloc,1\n', 'csv')).toEqual(['F:1: field "size": missing column "size" in the header (required: op,id,size)']);
    expect(problemsOf('op,id,size\nalloc,"a,1\n', 'csv')).toEqual(['F:2:7: unterminated quoted field']);
    expect(problemsOf('op,id,size\nalloc,a,12x\n', 'csv')).toEqual(['F:2:9: field "size": size must be an integer number of bytes, got "12x"']);
    expect(problemsOf('op,id,size\nalloc,a"b,1\n', 'csv')).toEqual(['F:2:8: a quote inside an unquoted field']);
  });

  it('JSON Lines: reports every bad line at once', () => {
    const text = '{"op":"alloc","id":1,"size":1}\n{"op":"alloc",\n{"op":"free","id":1} x\n[1]\n';
    expect(problemsOf(text, 'jsonl')).toEqual([
      'F:2:15: expected a key string, found end of line',
      'F:3:22: unexpected "x" after the event',
      'F:4:1: expected a JSON object, found "["',
    ]);
  });

  it('lists 20 problems, then counts the rest', () => {
    const rows = ['op,id,size'];
    for (let k = 0; k < 25; k++) rows.push(`free,x${k},`);
    const msgs = problemsOf(rows.join('\n') + '\n', 'csv');
    expect(msgs).toHaveLength(21);
    expect(msgs[20]).toBe('… and 5 more problems');
  });

  it('--lenient skips and counts the semantic errors only', () => {
    const dir = tempDir();
    const p = join(dir, 'l.csv');
    writeFileSync(p, 'op,id,size\nalloc,a,1\nfree,a,\nfree,a,\nalloc,b,1\nalloc,b,2\nfree,q,\nfree,b,\n');
    const t = readTrace(p, { lenient: true });
    expect(t.skipped).toEqual({ unknownFree: 2, doubleAlloc: 1 });
    expect(t.length).toBe(4);
    expect(t.summary.peakLiveBytes).toBe(1);
    expect(problemsOf('op,id,size\nalloc,a,-1\n', 'csv', true)).toEqual(['F:2:9: field "size": size must not be negative, got -1']);
  });

  it('names the file when it cannot be opened', () => {
    expect(() => readTrace('/nonexistent/x.json')).toThrow(/\/nonexistent\/x\.json: cannot open: no such file or directory/);
  });
});
