import type { TraceBuilder } from './builder.js';
import { DEFAULT_ALIGN_BYTES, MAX_ALIGN_BYTES } from './model.js';

const encoder = new TextEncoder();

/**
 * The raw values of one event's known fields, as a reader found them (JSON values, or numbers and
 * strings converted from CSV text). `undefined` means absent. One instance is reused for every event.
 */
/** Marks a field whose value is a byte range of {@link RawEvent.buf} (an id or tag not yet made a string). */
export const IN_BYTES = Symbol('in bytes');

export class RawEvent {
  /** Source bytes of the fields marked {@link IN_BYTES}. */
  buf: Uint8Array = new Uint8Array(0);
  idStart = 0;
  idEnd = 0;
  tagStart = 0;
  tagEnd = 0;
  op: unknown = undefined;
  id: unknown = undefined;
  size: unknown = undefined;
  step: unknown = undefined;
  stream: unknown = undefined;
  tag: unknown = undefined;
  time: unknown = undefined;
  align: unknown = undefined;
  /** 1-based column where each field's value starts (0 when the reader does not know it). */
  readonly cols: Record<EventField, number> = { op: 0, id: 0, size: 0, step: 0, stream: 0, tag: 0, time: 0, align: 0 };

  reset(): void {
    this.op = this.id = this.size = this.step = this.stream = this.tag = this.time = this.align = undefined;
    const c = this.cols;
    c.op = c.id = c.size = c.step = c.stream = c.tag = c.time = c.align = 0;
  }
}

export type EventField = 'op' | 'id' | 'size' | 'step' | 'stream' | 'tag' | 'time' | 'align';

/** True for an alignment an event may ask for: a power of two from 1 to 2^30. */
export function isValidAlign(v: number): boolean {
  return Number.isInteger(v) && v >= 1 && v <= MAX_ALIGN_BYTES && (v & (v - 1)) === 0;
}

/** Fills a {@link RawEvent} from an already-parsed object (first JSONL line, bare arrays of objects). */
export function rawFromObject(obj: Record<string, unknown>, ev: RawEvent): void {
  ev.reset();
  ev.op = obj['op'];
  ev.id = obj['id'];
  ev.size = obj['size'];
  ev.step = obj['step'];
  ev.stream = obj['stream'];
  ev.tag = obj['tag'];
  ev.time = obj['time'];
  ev.align = obj['align'];
}

/** The largest integer memsim holds exactly, as users read it. */
const SAFE_LIMIT_TEXT = '2^53 - 1 (9,007,199,254,740,991)';

function describe(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return `"${v.length > 40 ? v.slice(0, 40) + '…' : v}"`;
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return String(v);
}

/** An integer too large to hold exactly: a bigint from the JSON scanner, or a whole double past 2^53. */
function isBeyondSafe(v: unknown): boolean {
  if (typeof v === 'bigint') return true;
  return typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v) && v > 0;
}

/**
 * Checks one event's fields against the trace format and hands it to the builder, or records the
 * first problem (with its field) and skips the event.
 */
export function addRawEvent(b: TraceBuilder, ev: RawEvent, line: number): void {
  // Once the id is known, an alloc refused for its other fields is noted, so that its free is not a
  // second problem (the id made a string then only).
  let refusing = false;
  const bad = (field: EventField, message: string): void => {
    const col = ev.cols[field];
    b.problem(col === 0 ? { line, field, message } : { line, col, field, message });
    if (refusing) b.refuseAlloc(ev.id === IN_BYTES ? Buffer.from(ev.buf.buffer, ev.buf.byteOffset + ev.idStart, ev.idEnd - ev.idStart).toString('utf8') : id);
  };
  const op = ev.op;
  if (op === undefined || op === null) return bad('op', 'missing field "op" (expected "alloc" or "free")');
  if (op !== 'alloc' && op !== 'free') return bad('op', `unknown op ${describe(op)} (expected "alloc" or "free")`);

  let id = '';
  const rawId = ev.id;
  if (rawId === IN_BYTES) {
    if (ev.idStart === ev.idEnd) return bad('id', 'id must not be empty');
  } else if (typeof rawId === 'string') {
    if (rawId === '') return bad('id', 'id must not be empty');
    id = rawId;
  } else if (typeof rawId === 'number') {
    if (!Number.isSafeInteger(rawId)) return bad('id', `id must be a string or an integer, got ${rawId}`);
    id = String(rawId);
  } else if (typeof rawId === 'bigint') {
    // An integer id is a name: beyond 2^53 it is kept exactly as written.
    id = rawId.toString();
  } else if (rawId === undefined || rawId === null) {
    return bad('id', 'missing field "id"');
  } else {
    return bad('id', `id must be a string or an integer, got ${describe(rawId)}`);
  }
  refusing = op === 'alloc';

  let step: number | undefined;
  if (ev.step !== undefined && ev.step !== null) {
    if (isBeyondSafe(ev.step)) return bad('step', `step ${describe(ev.step)} is beyond ${SAFE_LIMIT_TEXT}, the largest step memsim holds exactly`);
    if (typeof ev.step !== 'number' || !Number.isSafeInteger(ev.step)) {
      return bad('step', `step must be an integer, got ${describe(ev.step)}`);
    }
    step = ev.step;
  }
  let stream: number | undefined;
  if (ev.stream !== undefined && ev.stream !== null) {
    if (isBeyondSafe(ev.stream)) return bad('stream', `stream ${describe(ev.stream)} is beyond ${SAFE_LIMIT_TEXT}, the largest stream memsim holds exactly`);
    if (typeof ev.stream !== 'number' || !Number.isSafeInteger(ev.stream) || ev.stream < 0) {
      return bad('stream', `stream must be a non-negative integer, got ${describe(ev.stream)}`);
    }
    stream = ev.stream;
  }
  let time: number | undefined;
  if (typeof ev.time === 'bigint') ev.time = Number(ev.time); // a timestamp need not be exact
  if (ev.time !== undefined && ev.time !== null) {
    if (typeof ev.time !== 'number' || !Number.isFinite(ev.time)) {
      return bad('time', `time must be a number, got ${describe(ev.time)}`);
    }
    time = ev.time;
  }

  if (op === 'free') {
    // A size on a free is left out, or repeats the alloc's (the builder checks that it does).
    let given = NaN;
    const size = ev.size;
    if (size !== undefined && size !== null) {
      // Reported, and the free made all the same: the allocation it ends raises no second problem.
      if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) bad('size', `size on a free must be left empty or repeat its alloc's size in bytes, got ${describe(size)}`);
      else given = size;
    }
    if (rawId === IN_BYTES) b.addFreeBytes(ev.buf, ev.idStart, ev.idEnd, step ?? NaN, stream ?? -1, time ?? NaN, line, given);
    else b.addFree(id, step, stream, time, line, given);
    return;
  }

  const size = ev.size;
  if (size === undefined || size === null) return bad('size', 'missing field "size" on an alloc');
  if (typeof size === 'bigint' && size < 0n) return bad('size', `size must not be negative, got ${size}`);
  if (isBeyondSafe(size)) return bad('size', `size ${describe(size)} is beyond ${SAFE_LIMIT_TEXT} bytes, the largest size memsim holds exactly`);
  if (typeof size !== 'number') return bad('size', `size must be an integer number of bytes, got ${describe(size)}`);
  if (!Number.isInteger(size)) return bad('size', `size must be an integer number of bytes, got ${size}`);
  if (size < 0) return bad('size', `size must not be negative, got ${size}`);

  let align = DEFAULT_ALIGN_BYTES;
  if (ev.align !== undefined && ev.align !== null) {
    if (typeof ev.align !== 'number' || !isValidAlign(ev.align)) {
      return bad('align', `align must be a power of two from 1 to 2^30 bytes, got ${describe(ev.align)}`);
    }
    align = ev.align;
  }

  let tagIndex = 0;
  if (ev.tag === IN_BYTES) {
    tagIndex = b.internTag(ev.buf, ev.tagStart, ev.tagEnd, line);
  } else if (ev.tag !== undefined && ev.tag !== null) {
    if (typeof ev.tag !== 'string') return bad('tag', `tag must be a string, got ${describe(ev.tag)}`);
    tagIndex = b.internTagString(ev.tag);
  }
  if (rawId === IN_BYTES) {
    b.addAllocBytes(ev.buf, ev.idStart, ev.idEnd, size, step ?? NaN, stream ?? 0, tagIndex, time ?? NaN, line, align);
  } else {
    const bytes = encoder.encode(id);
    b.addAllocBytes(bytes, 0, bytes.length, size, step ?? NaN, stream ?? 0, tagIndex, time ?? NaN, line, align);
  }
}
