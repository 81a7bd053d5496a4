import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../../src/errors.js';
import { readPlanInput } from '../../src/planners/input.js';
import { readRecordsCsv, recordId, sniffRecordsCsv } from '../../src/planners/index.js';
import { FIXTURES, tempDir } from '../helpers.js';

const write = (text: string, name = 'records.csv'): string => {
  const p = join(tempDir(), name);
  writeFileSync(p, text);
  return p;
};

const problems = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (e) {
    if (e instanceof TraceError) return e.message.split('\n');
    throw e;
  }
  throw new Error('no error');
};

describe('usage-record CSVs', () => {
  it('are told by their header; memsim CSV traces are not', () => {
    expect(sniffRecordsCsv(Buffer.from('id,lower,upper,size\n'))).toBe('minimalloc-csv');
    expect(sniffRecordsCsv(Buffer.from('\ufeff# c\nbuffer_id,begin,end,size,offset\n'))).toBe('minimalloc-csv');
    expect(sniffRecordsCsv(Buffer.from('size,first,last\n'))).toBe('records-csv');
    expect(sniffRecordsCsv(Buffer.from('op,id,size,step\n'))).toBeNull();
    expect(sniffRecordsCsv(Buffer.from('{"events":[]}'))).toBeNull();
  });

  it('minimalloc lifetimes are half-open: last = upper - 1', () => {
    const r = readRecordsCsv(write('id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n'), 'minimalloc-csv');
    expect([r.count, Array.from(r.first), Array.from(r.last), Array.from(r.size)]).toEqual([2, [0, 3], [2, 8], [4, 4]]);
    expect([recordId(r, 0), recordId(r, 1)]).toEqual(['b1', 'b2']);
  });

  it("minimalloc's aliases (buffer, start, end) with an inclusive end column, as its converter reads them", () => {
    const r = readPlanInput(join(FIXTURES, 'planners', 'minimalloc-inclusive-end.csv'));
    expect(r.source.format).toBe('minimalloc-csv');
    expect(Array.from(r.last)).toEqual([2, 8, 8, 20, 20]);
  });

  it('size,first,last are closed intervals, in any column order, without ids', () => {
    const r = readRecordsCsv(write('last,size,first\n1,16,0\n2,8,1\n'), 'records-csv');
    expect([Array.from(r.size), Array.from(r.first), Array.from(r.last), r.ids]).toEqual([[16, 8], [0, 1], [1, 2], null]);
  });

  it('reports every bad row with file, line and field', () => {
    const p = write('id,lower,upper,size\na,0,3,4\nb,3,3,x\na,5,2,-1\nc,1.5,4,2\n,0,1,1\n');
    expect(problems(() => readRecordsCsv(p, 'minimalloc-csv'))).toEqual([
      `${p}:3: field "size": expected an integer, got "x"`,
      `${p}:3: field "upper": upper must be > lower (lifespans are half-open), got lower=3, upper=3`,
      `${p}:4: field "size": must be non-negative, got -1`,
      `${p}:4: field "upper": upper must be > lower (lifespans are half-open), got lower=5, upper=2`,
      `${p}:4: field "id": duplicate id "a" (first on line 2)`,
      `${p}:5: field "lower": expected an integer, got "1.5"`,
      `${p}:6: field "id": missing value`,
    ]);
  });

  it('a header that names bounds but misses a column is told so; rows past the header and numbers in other notations are refused', () => {
    expect(sniffRecordsCsv(Buffer.from('id,lower,size\n'))).toBe('minimalloc-csv');
    expect(sniffRecordsCsv(Buffer.from('size,first\n'))).toBe('records-csv');
    const missing = write('id,lower,size\nb1,0,4\n');
    expect(problems(() => readRecordsCsv(missing, 'minimalloc-csv'))).toEqual([
      `${missing}:1: field "upper": missing column "upper" in the header (required: id,lower,upper,size (or end for an inclusive bound), as minimalloc writes them)`,
    ]);
    const short = write('size,first\n4,0\n');
    expect(problems(() => readRecordsCsv(short, 'records-csv'))).toEqual([`${short}:1: field "last": missing column "last" in the header (required: size,first,last)`]);
    const p = write('id,lower,upper,size\nb1,0,3,4,extra\nb2,0,0x10,4\nb3,0,3,1e1\n');
    expect(problems(() => readRecordsCsv(p, 'minimalloc-csv'))).toEqual([`${p}:2: 5 fields, where the header row has 4`, `${p}:3: field "upper": expected an integer, got "0x10"`]);
    // Ids that are not UTF-8 are refused as such, not read as one id (U+FFFD) twice.
    const bytes = write('');
    writeFileSync(bytes, Buffer.concat([Buffer.from('id,lower,upper,size\nb'), Buffer.from([0xff]), Buffer.from(',0,3,4\nb'), Buffer.from([0xfe]), Buffer.from(',0,3,4\n')]));
    expect(problems(() => readRecordsCsv(bytes, 'minimalloc-csv'))).toEqual([
      `${bytes}:2: field "id": id is not valid UTF-8 (byte 0xff at byte 2 of the id); ids are text, so write them in UTF-8`,
      `${bytes}:3: field "id": id is not valid UTF-8 (byte 0xfe at byte 2 of the id); ids are text, so write them in UTF-8`,
    ]);
  });

  it('closed intervals need last >= first; missing values are named', () => {
    const p = write('size,first,last\n8,3,2\n8,,1\n');
    expect(problems(() => readRecordsCsv(p, 'records-csv'))).toEqual([
      `${p}:2: field "last": last must be >= first, got first=3, last=2`,
      `${p}:3: field "first": missing value`,
    ]);
  });

  it('refuses per-buffer alignment and notes ignored gaps', () => {
    const p = write('id,lower,upper,size,alignment\na,0,1,4,1\nb,0,1,4,8\n');
    expect(problems(() => readRecordsCsv(p, 'minimalloc-csv'))).toEqual([
      `${p}:3: field "alignment": per-buffer alignment 8 is not supported; use --alignment for all records`,
    ]);
    const g = readRecordsCsv(write('id,lower,upper,size,gaps\na,0,9,4,2-4\nb,0,1,4,\n'), 'minimalloc-csv');
    expect(g.notes).toEqual(['1 record with gaps: gaps are ignored (each buffer is treated as live over its whole lifespan)']);
  });

  it('a memsim trace becomes one record per allocation (time advances at each alloc)', () => {
    const p = write('op,id,size\nalloc,a,10\nalloc,b,20\nfree,a\nalloc,c,30\nfree,b\n', 'trace.csv');
    const r = readPlanInput(p);
    expect(r.source.format).toBe('trace:csv');
    // a lives over the allocs of a and b (times 0-1), b until after c (1-2), c to the end (2-2).
    expect([Array.from(r.first), Array.from(r.last), Array.from(r.size)]).toEqual([[0, 1, 2], [1, 2, 2], [10, 20, 30]]);
  });
});
