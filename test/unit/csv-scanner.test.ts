import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvScanner } from '../../src/trace/csv.js';
import { readTrace } from '../../src/trace/read.js';
import { ByteSource } from '../../src/trace/source.js';
import { tempDir } from '../helpers.js';

/** Every record of a CSV file as [line, fields] through the streaming scanner, read in `chunk`-byte pieces. */
function scan(file: string, chunk: number): [number, string[]][] {
  const sc = new CsvScanner(new ByteSource(file, chunk));
  const out: [number, string[]][] = [];
  while (sc.next()) {
    const fields: string[] = [];
    for (let i = 0; i < sc.count; i++) fields.push(sc.text(i));
    out.push([sc.line, fields]);
    if (sc.pos > 64) sc.release();
  }
  return out;
}

/** The same by the book (RFC 4180 with CRLF or LF line ends, `#` comment lines, blank lines skipped). */
function reference(text: string): [number, string[]][] {
  const out: [number, string[]][] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    if (text[i] === '\n' || (text[i] === '\r' && text[i + 1] === '\n')) {
      i += text[i] === '\r' ? 2 : 1;
      line++;
      continue;
    }
    if (text[i] === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      i++;
      line++;
      continue;
    }
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (text[i] === '"' && text[i + 1] === '"') {
            field += '"';
            i += 2;
          } else if (text[i] === '"') {
            i++;
            break;
          } else {
            if (text[i] === '\n') line++;
            field += text[i++];
          }
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\n') field += text[i++];
        if (text[i] !== ',' && field.endsWith('\r')) field = field.slice(0, -1);
      }
      fields.push(field);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\r' && text[i + 1] === '\n') i++;
      i++;
      line++;
      break;
    }
    out.push([start, fields]);
  }
  return out;
}

const plain = fc.stringMatching(/^[a-z0-9 .-]{0,12}$/);
const quoted = fc.string({ maxLength: 10 }).map((s) => `"${s.replace(/"/g, '""')}"`);
const record = fc.array(fc.oneof({ weight: 4, arbitrary: plain }, { weight: 1, arbitrary: quoted }), { minLength: 1, maxLength: 24 });
const file = fc.tuple(
  fc.array(fc.oneof({ weight: 8, arbitrary: record.map((r) => r.join(',')) }, { weight: 1, arbitrary: fc.constant('# a comment') }), { minLength: 1, maxLength: 30 }),
  fc.constantFrom('\n', '\r\n'),
  fc.boolean(),
);

describe('CSV scanner', () => {
  it('finds the fields and lines of any RFC 4180 file, whatever the read size (fast-check against a reference)', () => {
    const dir = tempDir();
    const path = join(dir, 'f.csv');
    fc.assert(
      fc.property(file, fc.constantFrom(1, 3, 16, 4096), ([rows, eol, finalEol], chunk) => {
        const text = rows.join(eol) + (finalEol ? eol : '');
        fc.pre(!rows.every((r) => r === ''));
        writeFileSync(path, text);
        expect(scan(path, chunk)).toEqual(reference(text));
      }),
      { numRuns: 300 },
    );
  });

  it('CRLF files, a last line without a line break, and rows of more than 16 columns', () => {
    const dir = tempDir();
    const path = join(dir, 'crlf.csv');
    const wide = Array.from({ length: 40 }, (_, k) => `c${k}`).join(',');
    writeFileSync(path, `op,id,size\r\nalloc,a,1\r\n${wide}\r\nfree,"a",\r\nalloc,b,7`);
    const rows = scan(path, 5);
    expect(rows.map(([l]) => l)).toEqual([1, 2, 3, 4, 5]);
    expect(rows[1]![1]).toEqual(['alloc', 'a', '1']);
    expect(rows[2]![1]).toHaveLength(40);
    expect(rows[2]![1][39]).toBe('c39');
    expect(rows[3]![1]).toEqual(['free', 'a', '']);
    expect(rows[4]![1]).toEqual(['alloc', 'b', '7']);
  });
});

describe('trace builder sized from the file', () => {
  it('a large CSV reads into exactly its events (columns grown to the extrapolated size, then trimmed)', () => {
    const dir = tempDir();
    const path = join(dir, 'big.csv');
    const rows = ['op,id,size,step'];
    const n = 300_000;
    for (let k = 0; k < n; k++) rows.push(`alloc,x${k},${k + 1},${k >> 10}`, `free,x${k},,`);
    writeFileSync(path, rows.join('\n') + '\n');
    const t = readTrace(path);
    expect(t.length).toBe(2 * n);
    expect(t.op.length).toBe(2 * n);
    expect(t.allocEvent.length).toBe(n);
    expect(t.ids.get(n - 1)).toBe(`x${n - 1}`);
    expect(t.size[2 * n - 2]).toBe(n);
    expect(t.freeEvent[n - 1]).toBe(2 * n - 1);
    expect(t.summary).toMatchObject({ allocs: n, frees: n, peakLiveBytes: n, finalLiveBytes: 0 });
  });
});
