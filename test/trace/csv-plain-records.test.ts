import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceBuilder } from '../../src/trace/builder.js';
import { readCsv } from '../../src/trace/read-csv.js';
import { ByteSource } from '../../src/trace/source.js';
import { tempDir } from '../helpers.js';
import { lineOf } from '../../src/trace/model.js';

// The CSV reader takes plain records in one pass over the bytes and hands everything else (quotes,
// comments, blank lines, CRLF, signs, long numbers) to the general record scanner. Both must read
// any file into the same events, wherever the read chunks end.

interface Ev {
  op: 'alloc' | 'free';
  id: string;
  size: number;
  step: number;
  stream: number;
  tag: string;
  time: number | null;
  align: number;
}

const ids = fc.oneof(
  fc.integer({ min: 0, max: 300 }).map(String),
  fc.constantFrom('0', '007', '00', '2147483647', '2147483648', '99999999999', 'w1', 'a 1', 'x,y', 'é', '1e3'),
);

/** A valid trace: each alloc's id is not live, each free's id is. */
const traces = fc.array(fc.tuple(fc.boolean(), ids, fc.nat({ max: 2 ** 40 }), fc.nat(5), fc.nat(3), fc.constantFrom('', 'conv', 'a,b', 'q"uote')), { maxLength: 60 }).map((draws) => {
  const live: string[] = [];
  const out: Ev[] = [];
  let step = 0;
  let time = 0;
  for (const [isAlloc, id, size, dstep, stream, tag] of draws) {
    step += dstep > 3 ? 1 : 0;
    time += dstep;
    if ((isAlloc || live.length === 0) && !live.includes(id)) {
      live.push(id);
      out.push({ op: 'alloc', id, size, step, stream, tag, time: dstep === 0 ? null : time, align: 2 ** (size % 31) });
    } else if (live.length > 0) {
      const k = size % live.length;
      const freed = live.splice(k, 1)[0] as string;
      out.push({ op: 'free', id: freed, size: 0, step, stream: 0, tag: '', time: null, align: 0 });
    }
  }
  return out;
});

const needsQuotes = (s: string): boolean => /[",\r\n]/.test(s);
const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** Writes events as CSV with the given columns, some fields quoted, comments and blank lines between. */
function csv(events: Ev[], columns: string[], style: { crlf: boolean; quoteEvery: number; commentEvery: number }): { text: string; lines: number[] } {
  const eol = style.crlf ? '\r\n' : '\n';
  let line = 1;
  const rows = [columns.join(',')];
  const lines: number[] = [];
  events.forEach((e, k) => {
    if (style.commentEvery > 0 && k % style.commentEvery === 1) {
      rows.push(k % 2 ? '# a comment, "with" quotes' : '');
      line++;
    }
    const field = (c: string): string => {
      const v =
        c === 'op' ? e.op : c === 'id' ? e.id : c === 'size' ? (e.op === 'alloc' ? String(e.size) : '') : c === 'step' ? String(e.step)
        : c === 'stream' ? (e.op === 'alloc' ? String(e.stream) : '') : c === 'tag' ? e.tag : c === 'time' ? (e.time === null ? '' : String(e.time))
        : c === 'align' ? (e.op === 'alloc' ? String(e.align) : '') : 'x';
      return needsQuotes(v) || (style.quoteEvery > 0 && k % style.quoteEvery === 0 && v !== '') ? quote(v) : v;
    };
    rows.push(columns.map(field).join(','));
    line++;
    lines.push(line);
  });
  return { text: rows.join(eol) + eol, lines };
}

function read(path: string, chunk: number): ReturnType<TraceBuilder['finish']> {
  const src = new ByteSource(path, chunk);
  const b = new TraceBuilder(path, { source: src });
  readCsv(src, b);
  src.close();
  return b.finish('csv');
}

describe('CSV: plain records and the general path read the same events', () => {
  it('any trace, any column order, quotes, comments, CRLF, any chunk size (fast-check)', () => {
    const dir = tempDir();
    const path = join(dir, 't.csv');
    const columns = fc.shuffledSubarray(['step', 'stream', 'tag', 'time', 'align', 'extra'], { minLength: 0 }).chain((opt) => fc.shuffledSubarray(['op', 'id', 'size', ...opt], { minLength: 3 + opt.length }));
    fc.assert(
      fc.property(traces, columns, fc.boolean(), fc.nat(4), fc.nat(5), fc.constantFrom(7, 64, 1 << 20), (events, cols, crlf, quoteEvery, commentEvery, chunk) => {
        const { text, lines } = csv(events, cols, { crlf, quoteEvery, commentEvery });
        writeFileSync(path, text);
        const t = read(path, chunk);
        expect(t.length).toBe(events.length);
        events.forEach((e, i) => {
          expect(t.op[i]).toBe(e.op === 'alloc' ? 0 : 1);
          expect(t.ids.get(t.alloc[i] as number)).toBe(e.id);
          expect(lineOf(t, i)).toBe(lines[i]);
          if (e.op === 'alloc') {
            expect(t.size[i]).toBe(e.size);
            if (cols.includes('tag')) expect(t.tags[t.tag?.[i] ?? 0]).toBe(e.tag);
            if (cols.includes('stream')) expect(t.stream?.[i] ?? 0).toBe(e.stream);
            if (cols.includes('time')) expect(t.time?.[i] ?? NaN).toBe(e.time ?? NaN);
            expect(t.align?.[i] ?? 64).toBe(cols.includes('align') ? e.align : 64);
          }
          if (cols.includes('step')) expect(t.step[i]).toBe(e.step);
        });
      }),
      { numRuns: 400 },
    );
  });

  it('a record that ends at a chunk boundary, and a last record without a line break', () => {
    const dir = tempDir();
    const path = join(dir, 'edge.csv');
    const body = Array.from({ length: 5000 }, (_, k) => `alloc,${k},${k * 7},${k >> 6}\nfree,${k},,${k >> 6}`).join('\n');
    writeFileSync(path, `op,id,size,step\n${body}\nalloc,last,5,99`);
    for (const chunk of [1, 13, 4096, 1 << 16]) {
      const t = read(path, chunk);
      expect(t.length).toBe(10_001);
      expect(t.size[9998]).toBe(4999 * 7);
      expect(t.ids.get(5000)).toBe('last');
      expect(t.step[10_000]).toBe(99);
      expect(lineOf(t, 10_000)).toBe(10_002);
    }
  });
});

describe('step column', () => {
  it('holds 32-bit steps as integers, and a larger step widens it without losing the earlier ones', () => {
    const dir = tempDir();
    const path = join(dir, 'steps.csv');
    writeFileSync(path, 'op,id,size,step\nalloc,a,1,7\nfree,a,,-3\nalloc,b,2,2147483648\nfree,b,,9007199254740991\n');
    const small = read(join(dir, 'steps.csv').replace('steps', 'steps'), 1 << 20);
    expect(Array.from(small.step)).toEqual([7, -3, 2147483648, 9007199254740991]);
    expect(small.step).toBeInstanceOf(Float64Array);
    writeFileSync(path, 'op,id,size,step\nalloc,a,1,7\nfree,a,,-3\n');
    const t = read(path, 1 << 20);
    expect(Array.from(t.step)).toEqual([7, -3]);
    expect(t.step).toBeInstanceOf(Int32Array);
  });
});

describe('ids across buffer refills', () => {
  it('prefixed and plain numbers, and other ids, keep their identity over a file many buffers long', () => {
    const dir = tempDir();
    const path = join(dir, 'ids.csv');
    const kinds = (k: number): string => (k % 5 === 0 ? `t${k}` : k % 5 === 1 ? `${k}` : k % 5 === 2 ? `layer.${k}` : k % 5 === 3 ? `g${k}` : `w${k % 97}`);
    const rows = ['op,id,size,step'];
    const live: string[] = [];
    for (let k = 0; k < 60_000; k++) {
      const id = kinds(k);
      if (!live.includes(id) || k % 5 !== 4) {
        if (live.includes(id)) continue;
        rows.push(`alloc,${id},${k + 1},${k >> 8}`);
        live.push(id);
      }
      if (live.length > 400) rows.push(`free,${live.shift() as string},,${k >> 8}`);
    }
    writeFileSync(path, rows.join('\n') + '\n');
    for (const chunk of [1 << 12, 1 << 20]) {
      const t = read(path, chunk);
      expect(t.length).toBe(rows.length - 1);
      const ids = t.ids.toArray();
      expect(ids[0]).toBe('t0');
      expect(ids.slice(0, 6)).toEqual(['t0', '1', 'layer.2', 'g3', 'w4', 't5']);
      expect(t.summary.finalLiveAllocs).toBe(live.length);
    }
  });
});

describe('the usual header, op,id,size,step', () => {
  /** Rows of any kind for that header, mostly valid: ids decimal or not, fields empty or not. */
  const rare = <T,>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<T>): fc.Arbitrary<T> => fc.oneof({ arbitrary: usual, weight: 30 }, { arbitrary: odd, weight: 1 });
  const rows = fc.array(
    fc.tuple(
      rare(fc.constantFrom('alloc', 'free'), fc.constantFrom('Free', '', 'alloc ')),
      fc.oneof(fc.integer({ min: 0, max: 12 }).map(String), fc.constantFrom('0', '00', '007', '123456789', '1234567890', '2147483648', 'w1', '-4')),
      rare(fc.nat({ max: 2 ** 40 }).map(String), fc.constantFrom('', '0', '1234567890123456', '-5', '1.5', ' 7', '"3"')),
      fc.oneof(fc.nat(9).map(String), fc.constant(''), fc.constantFrom('2147483648', '-1', 'x')),
      rare(fc.constant('\n'), fc.constantFrom('\r\n', '\n#c\n', '\n\n')),
    ),
    { maxLength: 40 },
  );

  function outcome(path: string, chunk: number, lenient: boolean): unknown {
    const src = new ByteSource(path, chunk);
    const b = new TraceBuilder(path, { source: src, lenient });
    try {
      readCsv(src, b);
      const t = b.finish('csv');
      return {
        events: Array.from({ length: t.length }, (_, i) => [t.op[i], t.ids.get(t.alloc[i] as number), t.size[i], t.step[i], lineOf(t, i)]),
        summary: t.summary,
        skipped: t.skipped,
      };
    } catch (e) {
      return { error: (e as Error).message };
    } finally {
      src.close();
    }
  }

  it('reads any rows as the loop for any header does (fast-check, with an extra column that takes that loop)', () => {
    const dir = tempDir();
    const usual = join(dir, 'usual.csv');
    const other = join(dir, 'other.csv');
    fc.assert(
      fc.property(rows, fc.boolean(), fc.constantFrom(7, 64, 1 << 20), (rs, lenient, chunk) => {
        const body = (extra: string): string => rs.map(([op, id, size, step, eol]) => `${op},${id},${size},${step}${extra}${eol}`).join('');
        writeFileSync(usual, `op,id,size,step\n${body('')}`);
        writeFileSync(other, `op,id,size,step,note\n${body(',x')}`);
        const a = outcome(usual, chunk, lenient);
        const b = outcome(other, chunk, lenient);
        if ('error' in (a as object)) expect((a as { error: string }).error.replaceAll(usual, 'F')).toBe((b as { error: string }).error.replaceAll(other, 'F'));
        else expect(a).toEqual(b);
      }),
      { numRuns: 300 },
    );
  });
});
