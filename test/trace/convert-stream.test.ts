import { chmodSync, existsSync, linkSync, lstatSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputFile } from '../../src/output/index.js';
import { convertAsRead, convertsAsRead } from '../../src/trace/convert-stream.js';
import { csvMetaLine } from '../../src/trace/csv-meta.js';
import { openTrace } from '../../src/trace/open.js';
import { readTrace } from '../../src/trace/read.js';
import { TraceWriter, writeTrace, type WriteFormat } from '../../src/trace/write.js';
import { type EventObject, ROOT, runCli, tempDir } from '../helpers.js';

/** One event as a test writes it; absent fields are left out of the input. */
type Ev = EventObject;

const ID_TEXTS = ['7', '0', '007', 'a', 'b,c', 'q"uote', 'é', 'x y', '#h', '2147483648', '-1'];
const TAGS = ['', 'mm', 'a,b', 'say "hi"', 'café', '#t', 'line\u2028sep'];

/**
 * Valid traces: each alloc takes an id not live (new or freed before), each free a live one; steps,
 * streams, tags, times and alignments sometimes given. `fields` says which optional fields may appear.
 */
function traces(fields: { stream: boolean; time: boolean; align: boolean }): fc.Arbitrary<Ev[]> {
  const step = fc.record({
    free: fc.boolean(),
    pick: fc.nat(),
    idText: fc.constantFrom(...ID_TEXTS),
    idNumber: fc.boolean(),
    size: fc.integer({ min: 0, max: 2 ** 40 }),
    step: fc.option(fc.integer({ min: -3, max: 2 ** 33 }), { nil: undefined }),
    stream: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    tag: fc.option(fc.constantFrom(...TAGS), { nil: undefined }),
    time: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
    align: fc.option(fc.constantFrom(1, 256, 512, 4096), { nil: undefined }),
  });
  return fc.array(step, { maxLength: 60 }).map((steps) => {
    const live: (string | number)[] = [];
    const out: Ev[] = [];
    let clock = 0;
    let fresh = 0;
    for (const s of steps) {
      const time = s.time === undefined ? undefined : (clock += s.time);
      if (s.free && live.length > 0) {
        const [id] = live.splice(s.pick % live.length, 1) as [string | number];
        out.push({ op: 'free', id, ...(s.step !== undefined ? { step: s.step } : {}), ...(fields.stream && s.stream !== undefined && s.pick % 3 === 0 ? { stream: s.stream } : {}), ...(fields.time && time !== undefined ? { time } : {}) });
        continue;
      }
      // A new id, or one freed before (not live).
      let id: string | number = s.idNumber ? fresh++ : `${s.idText}${fresh++}`;
      if (live.includes(id)) id = `n${fresh++}`;
      live.push(id);
      out.push({
        op: 'alloc',
        id,
        size: s.size,
        ...(s.step !== undefined ? { step: s.step } : {}),
        ...(fields.stream && s.stream !== undefined ? { stream: s.stream } : {}),
        ...(s.tag !== undefined ? { tag: s.tag } : {}),
        ...(fields.time && time !== undefined ? { time } : {}),
        ...(fields.align && s.align !== undefined ? { align: s.align } : {}),
      });
    }
    return out;
  });
}

const META = { name: 'run "7"', capacityBytes: 2 ** 34 };

function jsonl(events: Ev[]): string {
  return [JSON.stringify({ format: 'memsim-trace', version: 1, meta: META }), ...events.map((e) => JSON.stringify(e))].join('\n') + '\n';
}

const csvField = (s: string): string => (/[",\n\r]/.test(s) || s.startsWith('#') ? `"${s.replace(/"/g, '""')}"` : s);

function csv(events: Ev[]): string {
  const rows = events.map((e) => [e.op, csvField(String(e.id)), e.size ?? '', e.step ?? '', e.tag === undefined ? '' : csvField(e.tag)].join(','));
  return csvMetaLine(META) + 'op,id,size,step,tag\n' + rows.join('\n') + '\n';
}

/** The output of the whole-trace path and of the as-read path for `input`, as bytes. */
function both(input: string, format: WriteFormat, dir: string, options = {}): [Buffer, Buffer] {
  const whole = join(dir, `whole.${format}`);
  const asRead = join(dir, `as-read.${format}`);
  writeTrace(readTrace(input, options), whole, format);
  convertAsRead(openTrace(input, options), asRead, format, options);
  return [readFileSync(whole), readFileSync(asRead)];
}

describe('convert as read (CSV and JSON Lines inputs)', () => {
  const dir = tempDir();

  it('writes what converting the whole trace writes, byte for byte: JSON Lines in, every text format out (fast-check)', () => {
    fc.assert(
      fc.property(traces({ stream: true, time: true, align: true }), (events) => {
        const input = join(dir, 'in.jsonl');
        writeFileSync(input, jsonl(events));
        for (const format of ['json', 'jsonl'] as const) {
          const [a, b] = both(input, format, dir);
          expect(b.toString()).toBe(a.toString());
        }
      }),
      { numRuns: 150 },
    );
  });

  it('the same for CSV in, CSV out included (fast-check)', () => {
    fc.assert(
      fc.property(traces({ stream: false, time: false, align: false }), (events) => {
        const input = join(dir, 'in.csv');
        writeFileSync(input, csv(events));
        expect(convertsAsRead(openTrace(input), 'csv', '-', 0)).toBe(true);
        for (const format of ['json', 'jsonl', 'csv'] as const) {
          const [a, b] = both(input, format, dir);
          expect(b.toString()).toBe(a.toString());
        }
      }),
      { numRuns: 150 },
    );
  });

  it('under --lenient skips what reading skips: frees of ids not live, allocs of live ones', () => {
    const input = join(dir, 'lenient.csv');
    writeFileSync(input, 'op,id,size,step\nalloc,1,10,0\nalloc,1,20,0\nfree,9,,1\nfree,1,,1\nfree,1,,2\nalloc,2,30,\n');
    for (const format of ['json', 'jsonl', 'csv'] as const) {
      const [a, b] = both(input, format, dir, { lenient: true });
      expect(b.toString()).toBe(a.toString());
    }
    expect(readFileSync(join(dir, 'as-read.csv'), 'utf8')).toBe('op,id,size,step,tag\nalloc,1,10,0,\nfree,1,,1,\nalloc,2,30,1,\n');
  });

  it('reads whole what it cannot write as read: a CSV with a stream, time or align column to CSV, JSON Lines to CSV, a JSON document, a small file', () => {
    const withStream = join(dir, 'stream.csv');
    writeFileSync(withStream, 'op,id,size,step,stream\nalloc,1,10,0,1\nfree,1,,0,\n');
    expect(convertsAsRead(openTrace(withStream), 'csv', '-', 0)).toBe(false);
    expect(convertsAsRead(openTrace(withStream), 'jsonl', '-', 0)).toBe(true);
    const lines = join(dir, 'in.jsonl');
    writeFileSync(lines, jsonl([{ op: 'alloc', id: 1, size: 5 }]));
    expect(convertsAsRead(openTrace(lines), 'csv', '-', 0)).toBe(false);
    const doc = join(dir, 'doc.json');
    writeFileSync(doc, JSON.stringify({ format: 'memsim-trace', version: 1, events: [] }));
    expect(convertsAsRead(openTrace(doc), 'jsonl', '-', 0)).toBe(false);
    expect(convertsAsRead(openTrace(withStream), 'jsonl')).toBe(false);
  });

  it('reads whole an input that is also the output (or a link to it): written as read, it would be cut while read', () => {
    const same = join(dir, 'same.jsonl');
    // In memsim's own form already, so that converting it to itself gives it back.
    writeFileSync(same, '{"format":"memsim-trace","version":1,"meta":{}}\n{"op":"alloc","id":"1","size":5,"step":0}\n{"op":"free","id":"1","step":0}\n');
    const link = join(dir, 'same-link.jsonl');
    symlinkSync(same, link);
    expect(convertsAsRead(openTrace(same), 'jsonl', same, 0)).toBe(false);
    expect(convertsAsRead(openTrace(same), 'jsonl', link, 0)).toBe(false);
    expect(convertsAsRead(openTrace(same), 'jsonl', join(dir, 'other.jsonl'), 0)).toBe(true);
    const before = readFileSync(same, 'utf8');
    // Standard input that is the output file, converted to itself: the same text back.
    const r = runCli(['convert', '-', link], { input: readFileSync(same) });
    expect(r.code).toBe(0);
    const fromLink = runCli(['convert', same, link]);
    expect(fromLink.code).toBe(0);
    expect(readFileSync(same, 'utf8')).toBe(before);
  });
});

describe('memsim convert from a pipe', () => {
  const dir = tempDir();
  const input = join(dir, 'in.csv');
  writeFileSync(input, 'op,id,size,step,tag\nalloc,a,100,0,x\nalloc,b,200,1,\nfree,a,,2,\nfree,b,,2,\n');

  it('writes what converting the file writes', () => {
    for (const format of ['json', 'jsonl', 'csv']) {
      const fromFile = runCli(['convert', input, '-', '--format', format]);
      const piped = runCli(['convert', '-', '-', '--format', format], { input: readFileSync(input) });
      expect(piped.code).toBe(0);
      expect(piped.stdout).toBe(fromFile.stdout);
    }
  });

  it('a bad input leaves the output file as it was, with nothing beside it; standard output has the events before the problem', () => {
    const out = join(dir, 'out.jsonl');
    writeFileSync(out, 'before\n');
    const bad = 'op,id,size,step\nalloc,a,100,0\nfree,a,,1\nfree,zz,,2\n';
    const r = runCli(['convert', '-', out], { input: bad });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('-:4: field "id": free of id "zz" which was never allocated');
    expect(readFileSync(out, 'utf8')).toBe('before\n');
    expect(readdirSync(dir).sort()).toEqual(['in.csv', 'out.jsonl']);
    const toStdout = runCli(['convert', '-', '-', '--format', 'jsonl'], { input: bad });
    expect(toStdout.code).toBe(2);
    expect(toStdout.stdout.split('\n').filter(Boolean)).toEqual([
      '{"format":"memsim-trace","version":1,"meta":{}}',
      '{"op":"alloc","id":"a","size":100,"step":0}',
      '{"op":"free","id":"a","step":1}',
    ]);
  });

  it('standard output never gets an event of a line found bad after it was read (junk after a JSON Lines object)', () => {
    const head = '{"format":"memsim-trace","version":1,"meta":{}}\n';
    const a = '{"op":"alloc","id":"a","size":10,"step":0}';
    const junkB = '{"op":"alloc","id":"b","size":10,"step":0} junk';
    const jsonl = runCli(['convert', '-', '-', '--format', 'jsonl'], { input: `${head}${a}\n${junkB}\n{"op":"free","id":"a","step":0}\n` });
    expect(jsonl.code).toBe(2);
    expect(jsonl.stderr).toContain('-:3:44: unexpected "j" after the event');
    expect(jsonl.stdout).toBe(`${head}${a}\n`);
    const json = runCli(['convert', '-', '-', '--format', 'json'], { input: `${head}${a}\n${junkB}\n` });
    expect(json.stdout).toBe(`{"format":"memsim-trace","version":1,"meta":{},"events":[\n${a}\n`);
    // The first event taken back: the document has no event, its header line whole.
    const first = runCli(['convert', '-', '-', '--format', 'json'], { input: `${head}${junkB}\n${a}\n` });
    expect(first.code).toBe(2);
    expect(first.stdout).toBe('{"format":"memsim-trace","version":1,"meta":{},"events":[\n');
  });
});

describe('memsim convert through a link to the file it reads', () => {
  it('leaves the file whole: `cat big.csv | memsim convert - link-to-big.csv`', () => {
    const dir = tempDir();
    const big = join(dir, 'big.csv');
    // Larger than a pipe's buffer, so that cat still reads the file when the output is opened.
    expect(runCli(['gen', 'training', '--steps', '80', '--format', 'csv', '--output', big]).code).toBe(0);
    const before = readFileSync(big);
    expect(before.length).toBeGreaterThan(1 << 20);
    const link = join(dir, 'link.csv');
    symlinkSync(big, link);
    const r = spawnSync('sh', ['-c', `cat "${big}" | "${process.execPath}" "${join(ROOT, 'bin', 'memsim.js')}" convert - "${link}"`], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(big).equals(before)).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});

describe('an output file put in place when whole (OutputFile, replace)', () => {
  it('is there only once closed; an abandoned one leaves the file as it was', () => {
    const dir = tempDir();
    const target = join(dir, 'out.txt');
    const a = new OutputFile(target, { replace: true });
    a.write('new\n');
    a.flush();
    expect(existsSync(target)).toBe(false);
    a.close();
    expect(readFileSync(target, 'utf8')).toBe('new\n');
    const b = new OutputFile(target, { replace: true });
    b.write('half');
    b.flush();
    b.abandon();
    expect(readFileSync(target, 'utf8')).toBe('new\n');
    expect(readdirSync(dir)).toEqual(['out.txt']);
  });

  it('replaces the file a link names, keeping the link; writes a device in place', () => {
    const dir = tempDir();
    const real = join(dir, 'real.txt');
    writeFileSync(real, 'old');
    const link = join(dir, 'link.txt');
    symlinkSync(real, link);
    const out = new OutputFile(link, { replace: true });
    out.write('through the link');
    out.flush();
    // The file being replaced is untouched until the end (a link to the input cannot cut it).
    expect(readFileSync(real, 'utf8')).toBe('old');
    expect(readdirSync(dir).sort()).toEqual(['link.txt', 'real.txt', `real.txt.${process.pid}.partial`]);
    out.close();
    expect(readFileSync(real, 'utf8')).toBe('through the link');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const dev = new OutputFile('/dev/null', { replace: true });
    dev.write('gone');
    dev.close();
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it("keeps the replaced file's permissions, and writes a file with other hard links in place (they keep seeing it)", () => {
    const dir = tempDir();
    const priv = join(dir, 'private.txt');
    writeFileSync(priv, 'old');
    chmodSync(priv, 0o600);
    const a = new OutputFile(priv, { replace: true });
    a.write('new');
    a.close();
    expect(statSync(priv).mode & 0o777).toBe(0o600);
    expect(readFileSync(priv, 'utf8')).toBe('new');
    const linked = join(dir, 'linked.txt');
    writeFileSync(linked, 'old');
    linkSync(linked, join(dir, 'other-name.txt'));
    expect(OutputFile.staged(linked)).toBeUndefined();
    const b = new OutputFile(linked, { replace: true });
    b.write('new');
    b.close();
    expect(readFileSync(join(dir, 'other-name.txt'), 'utf8')).toBe('new');
  });
});

describe('event lines as bytes (write-bytes.ts)', () => {
  const text = fc.oneof(fc.constantFrom('7', '0', 'a,b', 'q"u', '#c', 'é', 'x\ty', 'back\\slash', '\u2028', 'ctl\u0001'), fc.string({ maxLength: 6 }));
  const number = fc.oneof(fc.integer({ min: -5, max: 2 ** 53 - 1 }), fc.double({ min: -1e6, max: 1e25, noNaN: true, noDefaultInfinity: true }));
  const event = fc.record({
    alloc: fc.boolean(),
    id: text.filter((t) => t.length > 0),
    size: fc.integer({ min: 0, max: 2 ** 53 - 1 }),
    step: number,
    tag: fc.option(text.filter((t) => t.length > 0), { nil: undefined }),
    stream: fc.integer({ min: 0, max: 5 }),
    time: fc.option(number, { nil: undefined }),
    align: fc.constantFrom(1, 64, 256, 4096),
  });

  /** The line an event is, as the format describes it (JSON through JSON.stringify; CSV quoted as the test's csvField quotes). */
  function expectedLine(e: typeof event extends fc.Arbitrary<infer T> ? T : never, format: WriteFormat, columns: boolean): string {
    const id = Buffer.from(e.id, 'utf8').toString('utf8'); // as written: UTF-8
    if (format === 'csv') {
      let row = `${e.alloc ? 'alloc' : 'free'},${csvField(id)},${e.alloc ? e.size : ''},${e.step},${e.alloc && e.tag !== undefined ? csvField(e.tag) : ''}`;
      if (columns) row += `,${e.stream},${e.time ?? ''},${e.alloc ? e.align : ''}`;
      return row;
    }
    let s = `{"op":"${e.alloc ? 'alloc' : 'free'}","id":${JSON.stringify(id)}${e.alloc ? `,"size":${e.size}` : ''},"step":${e.step}`;
    if (e.alloc && e.tag !== undefined) s += `,"tag":${JSON.stringify(e.tag)}`;
    if (e.stream !== 0) s += `,"stream":${e.stream}`;
    if (e.time !== undefined) s += `,"time":${e.time}`;
    if (e.alloc && e.align !== 64) s += `,"align":${e.align}`;
    return `${s}}`;
  }

  it('are the lines the formats describe, byte for byte, from text and from bytes, in every format and with any CSV columns (fast-check)', () => {
    const dir = tempDir();
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), fc.constantFrom<WriteFormat>('json', 'jsonl', 'csv'), fc.boolean(), (events, format, columns) => {
        const cols = { stream: columns, time: columns, align: columns };
        const asText = new TraceWriter(join(dir, 'text'), format, { name: 'n' }, cols);
        const asBytes = new TraceWriter(join(dir, 'bytes'), format, { name: 'n' }, cols);
        for (const e of events) {
          const id = Buffer.from(e.id, 'utf8');
          if (e.alloc) {
            asText.alloc(e.id, e.size, e.step, e.tag, e.stream, e.time, e.align);
            asBytes.allocBytes(id, 0, id.length, e.size, e.step, e.tag, e.stream, e.time ?? NaN, e.align);
          } else {
            asText.free(e.id, e.step, e.stream, e.time);
            asBytes.freeBytes(id, 0, id.length, e.step, e.stream, e.time ?? NaN);
          }
        }
        asText.end();
        asBytes.end();
        const lines = events.map((e) => expectedLine(e, format, columns));
        const body =
          format === 'json'
            ? `{"format":"memsim-trace","version":1,"meta":{"name":"n"},"events":[\n${lines.join(',\n')}${lines.length > 0 ? '\n' : ''}]}\n`
            : format === 'jsonl'
              ? `{"format":"memsim-trace","version":1,"meta":{"name":"n"}}\n${lines.map((l) => `${l}\n`).join('')}`
              : `${csvMetaLine({ name: 'n' })}op,id,size,step,tag${columns ? ',stream,time,align' : ''}\n${lines.map((l) => `${l}\n`).join('')}`;
        expect(readFileSync(join(dir, 'text'), 'utf8')).toBe(body);
        expect(readFileSync(join(dir, 'bytes'), 'utf8')).toBe(body);
      }),
      { numRuns: 400 },
    );
  });

  it('hold ids longer than a line\'s room, and a line is written only whole (takes its last line back)', () => {
    const dir = tempDir();
    // Ids of 400 KiB: each meets the buffer's end at a different place (moved, or the buffer grown).
    const ids = ['a', 'x'.repeat(400 << 10), 'b', 'é'.repeat(300 << 10), 'q"'.repeat(150 << 10), 'c'];
    for (const format of ['json', 'jsonl', 'csv'] as const) {
      const asText = new TraceWriter(join(dir, 'text'), format, {});
      const asBytes = new TraceWriter(join(dir, 'bytes'), format, {});
      for (const id of ids) {
        const b = Buffer.from(id, 'utf8');
        asText.alloc(id, b.length, 0);
        asBytes.allocBytes(b, 0, b.length, 1, 1, undefined, 0, NaN, 64);
        asBytes.dropLast();
        asBytes.allocBytes(b, 0, b.length, b.length, 0, undefined, 0, NaN, 64);
      }
      asText.end();
      asBytes.end();
      expect(readFileSync(join(dir, 'bytes')).equals(readFileSync(join(dir, 'text')))).toBe(true);
    }
  });

  it('the two kinds of call may take turns on one writer', () => {
    const dir = tempDir();
    const one = new TraceWriter(join(dir, 'one'), 'json', {});
    const mixed = new TraceWriter(join(dir, 'mixed'), 'json', {});
    const id = Buffer.from('a');
    one.alloc('a', 10, 0);
    one.free('a', 1);
    one.alloc('b', 20, 1, 't');
    mixed.allocBytes(id, 0, 1, 10, 0, undefined, 0, NaN, 64);
    mixed.free('a', 1);
    mixed.allocBytes(Buffer.from('b'), 0, 1, 20, 1, 't', 0, NaN, 64);
    one.end();
    mixed.end();
    expect(readFileSync(join(dir, 'mixed'), 'utf8')).toBe(readFileSync(join(dir, 'one'), 'utf8'));
  });
});
