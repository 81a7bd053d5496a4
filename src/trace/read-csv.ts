import type { TraceBuilder } from './builder.js';
import { CsvScanner, NO_VALUE } from './csv.js';
import { readCsvMeta } from './csv-meta.js';
import { MAX_DIGITS, usualSpan } from './read-csv-usual.js';
import { addRawEvent, type EventField, isValidAlign, RawEvent } from './event-fields.js';
import { NOT_DECIMAL } from './id-table.js';
import { DEFAULT_ALIGN_BYTES } from './model.js';
import type { ByteSource } from './source.js';

const RELEASE_AFTER = 1 << 20;
const KNOWN: readonly EventField[] = ['op', 'id', 'size', 'step', 'stream', 'tag', 'time', 'align'];

// What each column of the header holds, for the plain-record loop (0: a column memsim does not read).
const OP = 1;
const ID = 2;
const SIZE = 3;
const STEP = 4;
const STREAM = 5;
const TAG = 6;
const TIME = 7;
const ALIGN = 8;
const ROLES: Record<EventField, number> = { op: OP, id: ID, size: SIZE, step: STEP, stream: STREAM, tag: TAG, time: TIME, align: ALIGN };

/** The plain-record loop keeps at least this much input ahead of a record (less only at the end). */
const LOOKAHEAD = 1 << 16;
/**
 * The plain-record loop reads this many bytes (and the rest of a record) per call: the first call
 * ends after a few hundred records, before V8 compiles the loop, so that the compiled code has met
 * its exit too (it would be thrown away at its first exit otherwise).
 */
const SPAN = 1 << 14;
/** After this many events the builder sizes its columns for the whole file. */
const RESERVE_AT = 4096;

/**
 * The common case in one pass over the bytes, with no string and no object per field: records
 * without quotes, comments or blank lines, `alloc`/`free` ops, ids and tags as bytes, plain decimal
 * integers. Reads records until one needs the general path (anything else, including every invalid
 * value, which that path checks and reports) or the input ends; leaves the scanner at that record.
 */
export function plainRecords(sc: CsvScanner, b: TraceBuilder, roles: Uint8Array): void {
  const src = sc.src;
  const usual = roles.length === 4 && roles[0] === OP && roles[1] === ID && roles[2] === SIZE && roles[3] === STEP;
  let reserved = false;
  let usualCalls = 0;
  for (;;) {
    if (src.end - sc.pos < LOOKAHEAD && !src.eof) {
      if (src.base < src.totalBytes >> 2) b.reserveFor(src.base + sc.pos);
      sc.pos -= src.discard(sc.pos);
      src.fill();
      continue;
    }
    const limit = Math.min(src.eof ? src.end : src.end - LOOKAHEAD + 1, sc.pos + SPAN);
    if (sc.pos >= src.end) break;
    if (!reserved && b.length >= RESERVE_AT) {
      // As plainSpan does, here for usualSpan (a call that its compiled code would not have seen run).
      reserved = true;
      b.reserveFor(src.base + sc.pos);
    }
    if (usual) {
      // The usual header's records in the shortest loop. Its first calls read a few records each: V8
      // starts recording what a function meets only once it has run a little, and code compiled
      // without a record of the function's start is thrown away.
      const from = sc.pos;
      const more = usualSpan(sc, b, usualCalls++ < 4 ? Math.min(limit, from + 512) : limit);
      // Its events are added without asking whether `onEvents` is due (see EventColumns.pushPlain).
      b.callIfDue();
      if (more) continue;
      // The record it does not take in the loop for any header: alone, unless it was the first
      // (then the records up to the limit: a file of ids that are not decimal, say).
      if (!plainSpan(sc, b, roles, sc.pos > from || usualCalls <= 4 ? sc.pos + 1 : limit)) break;
      continue;
    }
    if (!plainSpan(sc, b, roles, limit)) break;
  }
}

/**
 * The records of {@link plainRecords} that start before `limit` (the input holds at least
 * {@link LOOKAHEAD} bytes past it, or ends): the loop that V8 compiles, apart from the refilling of
 * the input, which it would meet first after some 50,000 records and compile the loop again for.
 * Returns true when it stopped at `limit`, false at a record for the general path.
 */
function plainSpan(sc: CsvScanner, b: TraceBuilder, roles: Uint8Array, limit: number): boolean {
  const src = sc.src;
  const columns = roles.length;
  const opIdSizeFirst = roles[0] === OP && roles[1] === ID && roles[2] === SIZE;
  let p = sc.pos;
  let line = sc.nextLine;
  const buf = src.buf;
  const end = src.end;
  let atLimit = true;
  while (p < limit) {
    const rs = p;
    const first = buf[p] as number;
    if (first === 0x0a || first === 0x0d || first === 0x23) {
      atLimit = false;
      break;
    }
    let col = 0;
    let op = -1;
    let idStart = -1;
    let idEnd = -1;
    let idValue = NOT_DECIMAL;
    let size = NO_VALUE;
    let step = NO_VALUE;
    let stream = NO_VALUE;
    let time = NO_VALUE;
    let align = NO_VALUE;
    let tagStart = 0;
    let tagEnd = 0;
    let plain = false;
    record: {
      if (opIdSizeFirst) {
        // The usual layout, op,id,size first: these three without looking up their columns' roles.
        if (first === 0x61) {
          if (buf[p + 1] !== 0x6c || buf[p + 2] !== 0x6c || buf[p + 3] !== 0x6f || buf[p + 4] !== 0x63 || buf[p + 5] !== 0x2c) break record;
          op = 1;
          p += 6;
        } else if (first === 0x66) {
          if (buf[p + 1] !== 0x72 || buf[p + 2] !== 0x65 || buf[p + 3] !== 0x65 || buf[p + 4] !== 0x2c) break record;
          op = 0;
          p += 5;
        } else {
          break record;
        }
        const is = p;
        let v = 0;
        let decimal = true;
        for (; p < end; p++) {
          const c = buf[p] as number;
          if (c === 0x2c || c === 0x0a || c === 0x0d || c === 0x22) break;
          const d = c - 0x30;
          if (d < 0 || d > 9) decimal = false;
          else v = v * 10 + d;
        }
        const n = p - is;
        if (n === 0 || p >= end || buf[p] !== 0x2c) break record;
        idStart = is;
        idEnd = p;
        idValue = decimal && n <= 10 && (n === 1 || buf[is] !== 0x30) && v < 2 ** 31 ? v : NOT_DECIMAL;
        const ss = ++p;
        v = 0;
        for (; p < end; p++) {
          const d = (buf[p] as number) - 0x30;
          if (d < 0 || d > 9) break;
          v = v * 10 + d;
        }
        if (p - ss > MAX_DIGITS || p >= end) break record;
        if (p > ss) size = v;
        const c = buf[p] as number;
        if (c === 0x2c) {
          p++;
          col = 3;
        } else {
          if (c === 0x0a) {
            p++;
            plain = true;
          } else if (c === 0x0d && p + 1 < end && buf[p + 1] === 0x0a) {
            p += 2;
            plain = true;
          }
          break record;
        }
      }
      for (;;) {
        // A field past the header's: the general path reports it.
        if (col >= columns) break record;
        const role = roles[col] as number;
        const fs = p;
        if (role === SIZE || role === STEP || role === STREAM || role === TIME || role === ALIGN) {
          let v = 0;
          for (; p < end; p++) {
            const d = (buf[p] as number) - 0x30;
            if (d < 0 || d > 9) break;
            v = v * 10 + d;
          }
          if (p - fs > MAX_DIGITS) break record;
          const value = p === fs ? NO_VALUE : v;
          if (role === SIZE) size = value;
          else if (role === STEP) step = value;
          else if (role === STREAM) stream = value;
          else if (role === TIME) time = value;
          else align = value;
        } else if (role === ID) {
          let v = 0;
          let decimal = true;
          for (; p < end; p++) {
            const c = buf[p] as number;
            if (c === 0x2c || c === 0x0a || c === 0x0d) break;
            if (c === 0x22) break record;
            const d = c - 0x30;
            if (d < 0 || d > 9) decimal = false;
            else v = v * 10 + d;
          }
          const n = p - fs;
          if (n === 0) break record;
          idStart = fs;
          idEnd = p;
          idValue = decimal && n <= 10 && (n === 1 || buf[fs] !== 0x30) && v < 2 ** 31 ? v : NOT_DECIMAL;
        } else {
          for (; p < end; p++) {
            const c = buf[p] as number;
            if (c === 0x2c || c === 0x0a || c === 0x0d) break;
            if (c === 0x22) break record;
          }
          if (role === OP) {
            const n = p - fs;
            if (n === 5 && buf[fs] === 0x61 && buf[fs + 1] === 0x6c && buf[fs + 2] === 0x6c && buf[fs + 3] === 0x6f && buf[fs + 4] === 0x63) op = 1;
            else if (n === 4 && buf[fs] === 0x66 && buf[fs + 1] === 0x72 && buf[fs + 2] === 0x65 && buf[fs + 3] === 0x65) op = 0;
            else break record;
          } else if (role === TAG) {
            tagStart = fs;
            tagEnd = p;
          }
        }
        if (p >= end) break;
        const c = buf[p] as number;
        if (c === 0x2c) {
          p++;
          col++;
          continue;
        }
        if (c === 0x0a) {
          p++;
          plain = true;
        } else if (c === 0x0d && p + 1 < end && buf[p + 1] === 0x0a) {
          p += 2;
          plain = true;
        }
        break;
      }
    }
    if (!plain || op < 0 || idStart < 0 || (op === 1 && (size === NO_VALUE || (align !== NO_VALUE && !isValidAlign(align))))) {
      p = rs;
      atLimit = false;
      break;
    }
    const stepValue = step === NO_VALUE ? NaN : step;
    const timeValue = time === NO_VALUE ? NaN : time;
    if (op === 1) {
      const tagIndex = tagEnd > tagStart ? b.internTag(buf, tagStart, tagEnd, line) : 0;
      b.addAllocId(buf, idStart, idEnd, idValue, size, stepValue, stream === NO_VALUE ? 0 : stream, tagIndex, timeValue, line, align === NO_VALUE ? DEFAULT_ALIGN_BYTES : align);
    } else {
      b.addFreeId(buf, idStart, idEnd, idValue, stepValue, stream === NO_VALUE ? -1 : stream, timeValue, line, size === NO_VALUE ? NaN : size);
    }
    line++;
    if (b.length === RESERVE_AT) b.reserveFor(src.base + p);
  }
  sc.pos = p;
  sc.nextLine = line;
  return atLimit;
}

/** What the header row of a CSV trace says: the column of each field (-1: none), each column's role. */
export interface CsvHeader {
  col: Record<EventField, number>;
  roles: Uint8Array;
}

/**
 * Reads the start of a CSV trace up to its first record: a byte order mark, the metadata comment
 * line (see csv-meta.ts) and the header row. Returns undefined when they have problems, which it
 * reports to `b`.
 */
export function readCsvHeader(sc: CsvScanner, b: TraceBuilder): CsvHeader | undefined {
  const src = sc.src;
  // Skip a UTF-8 byte order mark.
  if (src.end < 3) src.fill();
  if (src.buf[0] === 0xef && src.buf[1] === 0xbb && src.buf[2] === 0xbf) sc.pos = 3;
  readCsvMeta(sc, b);
  if (!sc.next()) {
    b.problem({ line: 1, message: 'empty file (expected a CSV header row: op,id,size,…)' });
    return undefined;
  }
  const col: Record<EventField, number> = { op: -1, id: -1, size: -1, step: -1, stream: -1, tag: -1, time: -1, align: -1 };
  for (let i = 0; i < sc.count; i++) {
    // A carriage return that ends no line: the file's lines end in CR alone, and its records would
    // all be read as this one row.
    if (!sc.quoted[i] && sc.text(i).includes('\r')) {
      b.problem({ line: sc.line, col: sc.col(i), message: 'a carriage return (\\r) that no line feed follows: memsim reads lines that end in LF or CRLF (convert a file with CR line endings, e.g. with `tr "\\r" "\\n"`)' });
      return undefined;
    }
    const name = sc.text(i).trim().toLowerCase() as EventField;
    if (!KNOWN.includes(name)) continue;
    if (col[name] >= 0) {
      b.problem({ line: sc.line, col: sc.col(i), field: name, message: `column "${name}" appears twice in the header` });
    }
    col[name] = i;
  }
  for (const required of ['op', 'id', 'size'] as const) {
    if (col[required] < 0) {
      b.problem({ line: sc.line, field: required, message: `missing column "${required}" in the header (required: op,id,size)` });
    }
  }
  if (!b.problems.isEmpty) return undefined;
  const roles = new Uint8Array(sc.count);
  for (const name of KNOWN) if (col[name] >= 0) roles[col[name]] = ROLES[name];
  return { col, roles };
}

/**
 * Reads a CSV trace: an optional metadata comment line (see csv-meta.ts), a header row naming the
 * columns (`op,id,size` required; `step,stream,tag,time,align` optional, any order; other columns
 * ignored), then one event per row.
 */
export function readCsv(src: ByteSource, b: TraceBuilder): void {
  const sc = new CsvScanner(src);
  const header = readCsvHeader(sc, b);
  if (!header) return;
  const { col, roles } = header;
  const ev = new RawEvent();
  for (;;) {
    plainRecords(sc, b, roles);
    if (!sc.next()) break;
    const line = sc.line;
    if (sc.error || sc.count > roles.length) {
      if (sc.error) b.problem({ line, col: sc.error.col, message: sc.error.message });
      else b.problem({ line, col: sc.col(roles.length), message: `${sc.count} fields, where the header row has ${roles.length}` });
      // The record is not read: its free, if it is an alloc, is no second problem.
      if (sc.equals(col.op, 'alloc') && !sc.isEmpty(col.id)) b.refuseAlloc(sc.text(col.id));
      continue;
    }
    ev.reset();
    const opCol = col.op;
    if (sc.equals(opCol, 'alloc')) ev.op = 'alloc';
    else if (sc.equals(opCol, 'free')) ev.op = 'free';
    else ev.op = sc.isEmpty(opCol) ? undefined : sc.text(opCol);
    ev.cols.op = sc.col(opCol);
    if (!sc.isEmpty(col.id)) {
      ev.id = sc.text(col.id);
      ev.cols.id = sc.col(col.id);
    }
    ev.size = sc.number(col.size);
    ev.cols.size = sc.col(col.size);
    if (col.step >= 0) {
      ev.step = sc.number(col.step);
      ev.cols.step = sc.col(col.step);
    }
    if (col.stream >= 0) {
      ev.stream = sc.number(col.stream);
      ev.cols.stream = sc.col(col.stream);
    }
    if (col.tag >= 0 && !sc.isEmpty(col.tag)) ev.tag = sc.text(col.tag);
    if (col.time >= 0) {
      ev.time = sc.number(col.time);
      ev.cols.time = sc.col(col.time);
    }
    if (col.align >= 0) {
      ev.align = sc.number(col.align);
      ev.cols.align = sc.col(col.align);
    }
    addRawEvent(b, ev, line);
    if (sc.pos > RELEASE_AFTER) sc.release();
  }
}
