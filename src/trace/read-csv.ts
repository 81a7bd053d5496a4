import type { TraceBuilder } from './builder.js';
import { CsvScanner } from './csv.js';
import { addRawEvent, type EventField, RawEvent } from './event-fields.js';
import type { ByteSource } from './source.js';

const RELEASE_AFTER = 1 << 20;
const KNOWN: readonly EventField[] = ['op', 'id', 'size', 'step', 'stream', 'tag', 'time'];

/**
 * Reads a CSV trace: a header row naming the columns (`op,id,size` required; `step,stream,tag,time`
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
  const col: Record<EventField, number> = { op: -1, id: -1, size: -1, step: -1, stream: -1, tag: -1, time: -1 };
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
    addRawEvent(b, ev, line);
    if (sc.pos > RELEASE_AFTER) sc.release();
  }
}
