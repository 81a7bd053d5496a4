import type { TraceBuilder } from './builder.js';
import { CsvScanner, NO_VALUE } from './csv.js';
import { addRawEvent, type EventField, isValidAlign, RawEvent } from './event-fields.js';
import { DEFAULT_ALIGN_BYTES } from './model.js';
import type { ByteSource } from './source.js';

const RELEASE_AFTER = 1 << 20;
const KNOWN: readonly EventField[] = ['op', 'id', 'size', 'step', 'stream', 'tag', 'time', 'align'];

/**
 * The common case without building a string per field: plain op, unquoted id and tag, plain
 * integers. Anything else (including every invalid value) takes the general path, which checks and
 * reports it; returns false then.
 */
function fastPath(sc: CsvScanner, b: TraceBuilder, col: Record<EventField, number>, line: number): boolean {
  const isAlloc = sc.equals(col.op, 'alloc');
  if (!isAlloc && !sc.equals(col.op, 'free')) return false;
  const idc = col.id;
  if (idc >= sc.count || sc.quoted[idc] || sc.starts[idc] === sc.ends[idc]) return false;
  const step = sc.plainInt(col.step);
  if (step !== step) return false;
  const stream = sc.plainInt(col.stream);
  if (stream !== stream || stream < 0 && stream !== NO_VALUE) return false;
  if (col.time >= 0 && !sc.isEmpty(col.time)) return false;
  const buf = sc.src.buf;
  const idStart = sc.starts[idc] as number;
  const idEnd = sc.ends[idc] as number;
  const stepValue = step === NO_VALUE ? NaN : step;
  if (!isAlloc) {
    b.addFreeBytes(buf, idStart, idEnd, stepValue, stream === NO_VALUE ? -1 : stream, NaN, line);
    return true;
  }
  const size = sc.plainInt(col.size);
  if (size !== size || size < 0) return false;
  let align = DEFAULT_ALIGN_BYTES;
  if (col.align >= 0) {
    const a = sc.plainInt(col.align);
    if (a !== NO_VALUE) {
      if (a !== a || !isValidAlign(a)) return false;
      align = a;
    }
  }
  let tagIndex = 0;
  const tc = col.tag;
  if (tc >= 0 && tc < sc.count && sc.starts[tc] !== sc.ends[tc]) {
    if (sc.quoted[tc]) return false;
    tagIndex = b.internTag(buf, sc.starts[tc] as number, sc.ends[tc] as number);
  }
  b.addAllocBytes(buf, idStart, idEnd, size, stepValue, stream === NO_VALUE ? 0 : stream, tagIndex, NaN, line, align);
  return true;
}

/**
 * Reads a CSV trace: a header row naming the columns (`op,id,size` required; `step,stream,tag,time,align`
 * optional, any order; other columns ignored), then one event per row.
 */
export function readCsv(src: ByteSource, b: TraceBuilder): void {
  const sc = new CsvScanner(src);
  // Skip a UTF-8 byte order mark.
  if (src.end < 3) src.fill();
  if (src.buf[0] === 0xef && src.buf[1] === 0xbb && src.buf[2] === 0xbf) sc.pos = 3;
  if (!sc.next()) {
    b.problem({ line: 1, message: 'empty file (expected a CSV header row: op,id,size,…)' });
    return;
  }
  const col: Record<EventField, number> = { op: -1, id: -1, size: -1, step: -1, stream: -1, tag: -1, time: -1, align: -1 };
  for (let i = 0; i < sc.count; i++) {
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
  if (!b.problems.isEmpty) return;

  const ev = new RawEvent();
  while (sc.next()) {
    const line = sc.line;
    if (sc.error) {
      b.problem({ line, col: sc.error.col, message: sc.error.message });
      continue;
    }
    if (fastPath(sc, b, col, line)) {
      if (sc.pos > RELEASE_AFTER) sc.release();
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
