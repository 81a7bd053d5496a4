import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem, TraceError } from '../../src/errors.js';
import { recordsFromTrace } from '../../src/planners/records.js';
import { writeBinaryTrace } from '../../src/trace/binary/write.js';
import { checkTraceFile } from '../../src/trace/check.js';
import { checkTrace, readTrace } from '../../src/trace/read.js';
import { alloc, FIXTURES, fileWriter, free, ROOT, tempDir, traceFromEvents } from '../helpers.js';
import { sectionTable } from './binary-helpers.js';

// Input that says one thing and could be read as another is refused with its place, never read as
// something else: fields past the header's, line endings memsim does not read, numbers in other
// notations, a free that disagrees with its alloc, a JSON document whose events are misnamed.

const dir = tempDir();
const write = fileWriter(dir, 's');

/** The problems reading `path` (and checking it, which must say the same) reports, without the directory. */
function problems(path: string): string[] {
  const got: string[][] = [];
  for (const read of [() => readTrace(path), () => checkTrace(path)]) {
    try {
      read();
      got.push([]);
    } catch (e) {
      expect(e).toBeInstanceOf(TraceError);
      got.push((e as TraceError).problems.map((p) => formatProblem(p).replace(dir + '/', '')));
    }
  }
  expect(got[1]).toEqual(got[0]);
  return got[0] as string[];
}

/** A CSV of `rows` under `header`, then `filler` plain events, so that the rows go through the reading loops that V8 compiles too. */
function csv(header: string, rows: string[], filler = 0): string {
  const lines = [header, ...rows];
  const names = header.split(',');
  const row = (values: Record<string, string | number>): string => names.map((n) => values[n] ?? '').join(',');
  for (let k = 0; k < filler; k++) lines.push(row({ op: 'alloc', id: 1000 + k, size: 64 + k, step: 1 }), row({ op: 'free', id: 1000 + k, step: 1 }));
  return lines.join('\n') + '\n';
}

describe('CSV: fields past the header', () => {
  it.each([
    ['op,id,size,step', 'alloc,1,10,0,7', '5 fields, where the header row has 4'],
    ['op,id,size,step', 'alloc,w,10,0,7', '5 fields, where the header row has 4'],
    ['op,id,size,step,tag', 'alloc,w,10,0,conv1,out', '6 fields, where the header row has 5'],
    ['op,id,size', 'alloc,"w",10,0', '4 fields, where the header row has 3'],
  ])('%s with "%s" is refused at its line and column, and its free is no second problem', (header, row, message) => {
    for (const filler of [0, 3000]) {
      const id = row.startsWith('alloc,1') ? '1' : 'w';
      const p = write(csv(header, [row, ['free', id, '', '0', ''].slice(0, header.split(',').length).join(',')], filler));
      const col = row.split(',').slice(0, header.split(',').length).join(',').length + 2;
      expect(problems(p)).toEqual([`s${p.match(/s(\d+)\.csv$/)?.[1]}.csv:2:${col}: ${message}`]);
    }
  });

  it('takes fewer fields than the header has (the last ones empty), and columns in any order', () => {
    const p = write(csv('size,op,id,step,tag', ['10,alloc,a', ',free,a', '20,alloc,b,1,t', ',free,b,2']));
    const t = readTrace(p);
    expect([...t.size]).toEqual([10, 10, 20, 20]);
    expect([...t.step]).toEqual([0, 0, 1, 2]);
  });
});

describe('CSV: line endings and numbers', () => {
  it('refuses lines that end in a carriage return alone, at the header', () => {
    const p = write('op,id,size,step\ralloc,a,10,0\rfree,a,,1\r');
    expect(problems(p)).toEqual([expect.stringMatching(/^s\d+\.csv:1:12: a carriage return \(\\r\) that no line feed follows: memsim reads lines that end in LF or CRLF/)]);
    // CRLF, and a carriage return inside a quoted field, are read.
    expect(readTrace(write('op,id,size,tag\r\nalloc,a,10,"x\ry"\r\nfree,a,,\r\n')).length).toBe(2);
  });

  it('reads decimal notation only: no hexadecimal, binary, octal or Infinity', () => {
    for (const size of ['0x10', '0b11', '0o17', 'Infinity', '1_000', '10B']) {
      const p = write(csv('op,id,size,step', [`alloc,a,${size},0`, 'free,a,,1']));
      expect(problems(p)).toEqual([expect.stringMatching(new RegExp(`:2:9: field "size": size must be an integer number of bytes, got "${size}"$`))]);
    }
    const ok = readTrace(write(csv('op,id,size,step', ['alloc,a,1e3,0', 'alloc,b,+10,0', 'alloc,c,2.0,0', 'alloc,d, 7 ,0'])));
    expect([...ok.size]).toEqual([1000, 10, 2, 7]);
  });
});

describe("a free's size", () => {
  it('may be left out or repeat the alloc\'s, through every reading path', () => {
    for (const filler of [0, 3000]) {
      const t = readTrace(write(csv('op,id,size,step', ['alloc,7,10,0', 'alloc,w,20,0', 'free,7,10,1', 'free,w,20,1', 'alloc,8,5,1', 'free,8,,1'], filler)));
      expect([...t.size.subarray(0, 6)]).toEqual([10, 20, 10, 20, 5, 5]);
    }
    const json = write('[{"op":"alloc","id":"a","size":10},{"op":"free","id":"a","size":10}]', 'json');
    expect(readTrace(json).length).toBe(2);
  });

  it('is refused when it is another size, or not a size, naming the alloc; the free is made all the same', () => {
    for (const filler of [0, 3000]) {
      const rows = ['alloc,7,10,0', 'alloc,w,20,0', 'free,7,11,1', 'free,w,abc,1', 'alloc,w,30,2', 'free,w,,2'];
      const p = write(csv('op,id,size,step', rows, filler));
      const name = p.slice(dir.length + 1);
      expect(problems(p)).toEqual([
        `${name}:4: field "size": size 11 on the free of id "7", whose alloc at line 2 has size 10 (a free's size is left empty, or repeats its alloc's)`,
        `${name}:5:8: field "size": size on a free must be left empty or repeat its alloc's size in bytes, got "abc"`,
      ]);
    }
    const json = write('[{"op":"alloc","id":"a","size":10},\n{"op":"free","id":"a","size":12}]', 'json');
    expect(problems(json)).toEqual([expect.stringMatching(/:2: field "size": size 12 on the free of id "a", whose alloc at line 1 has size 10/)]);
  });
});

describe('JSON and JSON Lines', () => {
  it('a one-line JSON trace whose events are misnamed is refused, not read as JSON Lines of no events', () => {
    const p = write('{"format":"memsim-trace","version":1,"meta":{},"evnets":[{"op":"alloc","id":"a","size":10}]}\n', 'json');
    expect(problems(p)).toEqual([expect.stringMatching(/:1: field "events": no "events" array in the trace$/)]);
    // A header line alone is a JSON Lines trace of no events, and one event alone is one event.
    expect(readTrace(write('{"format":"memsim-trace","version":1,"meta":{}}\n', 'jsonl')).length).toBe(0);
    expect(readTrace(write('{"op":"alloc","id":"a","size":10,"note":"x"}\n', 'jsonl')).length).toBe(1);
  });

  it('says that the version is a number', () => {
    const p = write('{"format":"memsim-trace","version":"1","meta":{}}\n{"op":"alloc","id":"a","size":1}\n', 'jsonl');
    expect(problems(p)).toEqual([expect.stringMatching(/:1: field "version": version must be the number 1, got "1"$/)]);
  });
});

describe('tags, as ids, are text', () => {
  it('a tag that is not UTF-8 is refused once, where it first comes, by reading and by validate', () => {
    const rows = (tag: Buffer): Buffer[] => [Buffer.from('alloc,a,10,0,'), tag, Buffer.from('\nfree,a,,1,\nalloc,b,10,1,'), tag, Buffer.from('\nfree,b,,1,\n')];
    for (const filler of [0, 3000]) {
      const p = write('');
      writeFileSync(p, Buffer.concat([Buffer.from(csv('op,id,size,step,tag', [], filler)), ...rows(Buffer.from([0x63, 0x61, 0x66, 0xe9]))]));
      const line = 2 + 2 * filler;
      expect(problems(p)).toEqual([`${p.slice(dir.length + 1)}:${line}: field "tag": tag is not valid UTF-8 (byte 0xe9 at byte 4 of the tag); tags are text, so write them in UTF-8`]);
    }
    const ok = write('');
    writeFileSync(ok, Buffer.concat([Buffer.from('op,id,size,step,tag\n'), ...rows(Buffer.from('café'))]));
    expect(readTrace(ok).tags).toEqual(['', 'café']);
    // JSON and JSON Lines (whose first line, an event here, is read as every other).
    const event = (id: string, line: number): Buffer[] => [Buffer.from(`{"op":"alloc","id":"${id}","size":10,"tag":"caf`), Buffer.from([0xe9]), Buffer.from(`"}${line === 0 ? '' : '\n'}`)];
    for (const [ext, text] of [
      ['jsonl', Buffer.concat([...event('a', 1), Buffer.from('{"op":"free","id":"a"}\n')])],
      ['json', Buffer.concat([Buffer.from('[\n'), ...event('a', 1), Buffer.from(',{"op":"free","id":"a"}]\n')])],
    ] as const) {
      const p = write('', ext);
      writeFileSync(p, text);
      expect(problems(p)).toEqual([expect.stringMatching(/:\d+: (\[0\]: )?field "tag": tag is not valid UTF-8 \(byte 0xe9 at byte 4 of the tag\)/)]);
    }
  });
});

describe('messages quote input without control characters', () => {
  it('escapes them, so that a trace cannot clear or rewrite the terminal', () => {
    const p = write('op,id,size,step\nfree,a\u001b[2Jb,,0\nalloc,x,1\u0000,0\n');
    const got = problems(p).join('\n');
    expect(got).toContain('free of id "a\\x1b[2Jb" which was never allocated');
    expect(got).toContain('got "1\\x00"');
    expect(got).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });
});

describe('binary traces: validate refuses what reading refuses', () => {
  it('a file without one of the sections every trace has (and validate names the source format)', () => {
    const path = join(dir, 'ok.mst');
    writeBinaryTrace(traceFromEvents([alloc('a', 10), free('a')]), path);
    // validate and plan name the format the trace came from, as reading it does.
    expect(checkTrace(path).sourceFormat).toBe(readTrace(path).sourceFormat);
    expect(checkTrace(path).sourceFormat).toEqual(expect.any(String));
    expect(recordsFromTrace(readTrace(path)).source).toEqual({ path, format: 'trace:mst', sourceFormat: readTrace(path).sourceFormat });
    const bytes = readFileSync(path);
    const count = bytes.readUInt32LE(12);
    for (const name of ['op', 'size', 'allocev']) {
      const b = Buffer.from(bytes);
      let renamed = false;
      for (let k = 0; k < count; k++) {
        const at = 16 + k * 32;
        if (b.toString('latin1', at, at + 8).replace(/\0+$/, '') === name) {
          b.fill(0, at, at + 8).write('zz', at, 'latin1');
          renamed = true;
        }
      }
      expect(renamed).toBe(true);
      const damaged = join(dir, `no-${name}.mst`);
      writeFileSync(damaged, b);
      expect(problems(damaged)).toEqual([`no-${name}.mst: field "sections": the section "${name}" is missing (the file is damaged)`]);
    }
  });

  it('an op byte that the other sections contradict is the one problem named, not the first of a cascade', () => {
    const path = join(dir, 'ops.mst');
    writeBinaryTrace(traceFromEvents([alloc('a', 10), alloc('b', 20), free('a'), alloc('c', 30), free('b'), alloc('d', 40), free('c'), free('d')]), path);
    const bytes = readFileSync(path);
    const [opAt] = sectionTable(bytes).get('op') as [number, number];
    for (const [event, to, message] of [
      [2, 0, 'events[2].op: 0 (alloc), but section "freeev" says this event frees allocation 0'],
      [1, 1, 'events[1].op: 1 (free), but section "allocev" says this event makes allocation 1'],
    ] as const) {
      const b = Buffer.from(bytes);
      b[opAt + event] = to;
      // (The op section's CRC then differs too: validate says that; reading checks the events.)
      const damaged = join(dir, `op-${event}.mst`);
      writeFileSync(damaged, b);
      try {
        readTrace(damaged);
        throw new Error('read');
      } catch (e) {
        expect((e as TraceError).problems.map((p) => formatProblem(p).replace(dir + '/', ''))).toEqual([`op-${event}.mst: ${message}`]);
      }
    }
  });

  it('a file with bytes after its last section (two files joined, a damaged copy)', () => {
    const path = join(dir, 'one.mst');
    writeBinaryTrace(traceFromEvents([alloc('a', 10), free('a')]), path);
    const bytes = readFileSync(path);
    const joined = join(dir, 'joined.mst');
    writeFileSync(joined, Buffer.concat([bytes, bytes]));
    expect(problems(joined)).toEqual([
      `joined.mst: field "sections": ${bytes.length.toLocaleString('en-US')} bytes after the last section, which ends at byte ${bytes.length.toLocaleString('en-US')} (the file is damaged, or two files were joined)`,
    ]);
  });
});

describe('validate says what the importer noted', () => {
  it('a TensorFlow log with messages of a type the reader does not know: counted and named', async () => {
    const log = readFileSync(join(ROOT, 'test', 'tflog', 'fixtures', 'bfc-fresh-process.log'), 'utf8');
    const p = write(log.replaceAll('MemoryLogTensorAllocation', 'MemoryLogTensorAlocation'), 'log');
    // What is left, deallocations of allocations the log does not have, is read as in any log: an
    // error, or skipped and counted under --lenient; the unknown types are named first.
    const problems = await checkTraceFile(p).then(
      () => [],
      (e: TraceError) => e.problems.map((q) => formatProblem(q).replace(dir + '/', '')),
    );
    expect(problems.slice(0, 2)).toEqual([
      's34.log: no allocation that this reader knows, but messages of types it does not know (MemoryLogTensorAlocation): if those are the allocations, the log is of a TensorFlow newer than this reader',
      's34.log:6: field "id": free of id "1" which was never allocated',
    ]);
    const checked = await checkTraceFile(p, { lenient: true });
    expect(checked.skipped.unknownFree).toBe(6);
    expect(checked.notes?.join('\n')).toMatch(/6 messages of types this reader does not know ignored \(MemoryLogTensorAlocation\)/);
    expect((await checkTraceFile(join(FIXTURES, 'three-steps.csv'))).notes).toBeUndefined();
  });
});
