import { ProblemList, TraceError } from '../errors.js';
import { CsvScanner } from '../trace/csv.js';
import { ByteSource } from '../trace/source.js';
import { invalidIdMessage, invalidUtf8At } from '../trace/utf8.js';
import { idList } from './records.js';
import type { UsageRecords } from './types.js';
import { grown } from '../util/typed-arrays.js';

/** The two usage-record CSV dialects memsim reads. */
export type RecordsCsvFormat = 'minimalloc-csv' | 'records-csv';

const RELEASE_AFTER = 1 << 20;

/** Header names as minimalloc's FromCsv accepts them (converter.cc): aliases map to one column. */
const MINIMALLOC_ALIASES: Record<string, string> = {
  id: 'id', buffer: 'id', buffer_id: 'id',
  lower: 'lower', start: 'lower', begin: 'lower',
  upper: 'upper', end: 'end',
  size: 'size', alignment: 'alignment', hint: 'hint', gaps: 'gaps', offset: 'offset',
};

function headerColumns(line: string): string[] {
  return line.split(',').map((c) => c.trim().replace(/^"|"$/g, '').toLowerCase());
}

/**
 * Tells a usage-record CSV by its header row: `size,first,last` (closed intervals, TFLite's
 * TensorUsageRecord) or minimalloc's `id,lower,upper,size` (half-open), told by the bounds it names.
 * Anything else (a memsim trace, whose header has `op`) is not one: null.
 */
export function sniffRecordsCsv(head: Buffer): RecordsCsvFormat | null {
  let text = head.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const line = text.split('\n').find((l) => l.trim() !== '' && !l.startsWith('#'));
  if (line === undefined) return null;
  const cols = headerColumns(line.replace(/\r$/, ''));
  if (cols.includes('op')) return null;
  // A header that names a lifespan's bounds is a usage-record one, whole or not (its reading says
  // which column is missing).
  if (cols.includes('first') || cols.includes('last')) return 'records-csv';
  const canon = new Set(cols.map((c) => MINIMALLOC_ALIASES[c]).filter((c) => c !== undefined));
  if (canon.has('lower') || canon.has('upper') || canon.has('end')) return 'minimalloc-csv';
  return null;
}

/** Grows a Float64Array column. */
function grow(a: Float64Array<ArrayBuffer>, n: number): Float64Array<ArrayBuffer> {
  return n < a.length ? a : grown(a, a.length * 2);
}

/**
 * Reads a usage-record CSV in one streaming pass, checking every row: sizes are non-negative
 * integers, times integers with `first <= last` (closed) or `lower < upper` (half-open, so
 * `last = upper - 1`; minimalloc's inclusive `end` column gives `last = end`), ids unique. Throws a
 * TraceError listing the problems (file:line, field) when the file is invalid.
 */
export function readRecordsCsv(path: string, format: RecordsCsvFormat, source?: ByteSource): UsageRecords {
  const src = source ?? new ByteSource(path);
  const sc = new CsvScanner(src);
  const problems = new ProblemList();
  const notes: string[] = [];
  const problem = (line: number, field: string | undefined, message: string): void => {
    problems.add({ file: path, line, ...(field !== undefined ? { field } : {}), message });
  };
  if (src.end < 3) src.fill();
  if (src.buf[0] === 0xef && src.buf[1] === 0xbb && src.buf[2] === 0xbf) sc.pos = 3;
  if (!sc.next()) throw TraceError.at(path, 1, 'empty file (expected a header row)');

  const col = new Map<string, number>();
  const columns = sc.count;
  for (let i = 0; i < sc.count; i++) {
    const raw = sc.text(i).trim().toLowerCase();
    const name = format === 'minimalloc-csv' ? MINIMALLOC_ALIASES[raw] : ['size', 'first', 'last', 'id'].includes(raw) ? raw : undefined;
    if (name === undefined) continue;
    if (col.has(name)) problem(sc.line, name, `column "${name}" appears twice in the header`);
    col.set(name, i);
  }
  if (format === 'minimalloc-csv' && col.has('upper') && col.has('end')) problem(sc.line, 'end', 'both "upper" and "end" columns: give one');
  const required = format === 'minimalloc-csv' ? ['id', 'lower', 'upper', 'size'] : ['size', 'first', 'last'];
  for (const name of required) {
    if (col.has(name) || (name === 'upper' && col.has('end'))) continue;
    const whole = format === 'minimalloc-csv' ? 'id,lower,upper,size (or end for an inclusive bound), as minimalloc writes them' : 'size,first,last';
    problem(sc.line, name, `missing column "${name}" in the header (required: ${whole})`);
  }
  problems.throwIfAny();
  const idCol = col.get('id') ?? -1;
  const sizeCol = col.get('size') as number;
  const isMinimalloc = format === 'minimalloc-csv';
  const lowerCol = (isMinimalloc ? col.get('lower') : col.get('first')) as number;
  const inclusiveEnd = isMinimalloc ? col.has('end') : true;
  const upperCol = (isMinimalloc ? (col.get('upper') ?? col.get('end')) : col.get('last')) as number;
  const upperName = isMinimalloc ? (inclusiveEnd ? 'end' : 'upper') : 'last';
  const lowerName = isMinimalloc ? 'lower' : 'first';
  const alignCol = col.get('alignment') ?? -1;
  const gapsCol = col.get('gaps') ?? -1;

  let size: Float64Array<ArrayBuffer> = new Float64Array(1024);
  let first: Float64Array<ArrayBuffer> = new Float64Array(1024);
  let last: Float64Array<ArrayBuffer> = new Float64Array(1024);
  const ids: string[] | null = idCol >= 0 ? [] : null;
  const idLine = new Map<string, number>();
  let n = 0;
  let gapsIgnored = 0;
  const integer = (i: number, field: string, line: number, min: number | null): number | null => {
    const v = sc.number(i);
    if (v === undefined) {
      problem(line, field, 'missing value');
      return null;
    }
    if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v))) {
      problem(line, field, `${String(v)} is beyond 2^53 - 1 (9,007,199,254,740,991), the largest integer memsim holds exactly`);
      return null;
    }
    if (typeof v === 'string' || !Number.isSafeInteger(v)) {
      problem(line, field, `expected an integer, got "${String(v)}"`);
      return null;
    }
    if (min !== null && v < min) {
      problem(line, field, `must be ${min === 0 ? 'non-negative' : `at least ${min}`}, got ${v}`);
      return null;
    }
    return v;
  };
  while (sc.next()) {
    const line = sc.line;
    if (sc.error) {
      problem(line, undefined, sc.error.message);
      continue;
    }
    if (sc.count > columns) {
      problem(line, undefined, `${sc.count} fields, where the header row has ${columns}`);
      continue;
    }
    const s = integer(sizeCol, 'size', line, 0);
    const lo = integer(lowerCol, lowerName, line, null);
    const hi = integer(upperCol, upperName, line, null);
    const lastTime = hi === null ? null : inclusiveEnd ? hi : hi - 1;
    if (lo !== null && lastTime !== null && lastTime < lo) {
      const rule = inclusiveEnd ? `${upperName} must be >= ${lowerName}` : 'upper must be > lower (lifespans are half-open)';
      problem(line, upperName, `${rule}, got ${lowerName}=${lo}, ${upperName}=${hi}`);
    }
    if (alignCol >= 0) {
      const a = integer(alignCol, 'alignment', line, 1);
      if (a !== null && a !== 1) problem(line, 'alignment', `per-buffer alignment ${a} is not supported; use --alignment for all records`);
    }
    if (gapsCol >= 0 && !sc.isEmpty(gapsCol)) gapsIgnored++;
    if (ids) {
      const id = sc.text(idCol).trim();
      // Bytes that are not UTF-8 would all read as U+FFFD, and distinct ids as one.
      const bad = idCol < sc.count ? invalidUtf8At(src.buf, sc.starts[idCol] as number, sc.ends[idCol] as number) : -1;
      if (bad >= 0) problem(line, 'id', invalidIdMessage(src.buf, sc.starts[idCol] as number, bad));
      else if (id === '') problem(line, 'id', 'missing value');
      else if (idLine.has(id)) problem(line, 'id', `duplicate id "${id}" (first on line ${idLine.get(id)})`);
      else idLine.set(id, line);
      ids.push(id);
    }
    size = grow(size, n);
    first = grow(first, n);
    last = grow(last, n);
    size[n] = s ?? 0;
    first[n] = lo ?? 0;
    last[n] = lastTime ?? 0;
    n++;
    if (sc.pos > RELEASE_AFTER) sc.release();
  }
  src.close();
  problems.throwIfAny();
  if (gapsIgnored > 0) {
    notes.push(`${gapsIgnored} record${gapsIgnored === 1 ? '' : 's'} with gaps: gaps are ignored (each buffer is treated as live over its whole lifespan)`);
  }
  return { count: n, size: size.slice(0, n), first: first.slice(0, n), last: last.slice(0, n), ids: ids ? idList(ids) : null, source: { path, format }, notes };
}
