import type { TraceBuilder } from './builder.js';
import { addRawEvent, IN_BYTES, RawEvent } from './event-fields.js';
import { JsonScanner, JsonSyntaxError } from './json-scanner.js';
import type { TraceMeta } from './model.js';
import type { ByteSource } from './source.js';

/** Release consumed input once this many bytes have been parsed (keeps memory flat). */
const RELEASE_AFTER = 1 << 20;

const enum Key {
  Unknown,
  Op,
  Id,
  Size,
  Step,
  Stream,
  Tag,
  Time,
  Align,
}

/**
 * Reads the key string at `pos` (the opening quote) and returns which event field it names, without
 * building a string for the common keys.
 */
function readKey(sc: JsonScanner): Key {
  const start = sc.pos + 1;
  let p = start;
  for (;;) {
    if (p >= sc.src.end && !sc.src.fill()) sc.fail('unterminated string', start - 1);
    const c = sc.src.buf[p] as number;
    if (c === 0x22) break;
    if (c === 0x5c || p - start > 6) return keyFromString(sc.parseString());
    p++;
  }
  const b = sc.src.buf;
  const len = p - start;
  sc.pos = p + 1;
  const c0 = b[start];
  switch (len) {
    case 2:
      if (c0 === 0x6f && b[start + 1] === 0x70) return Key.Op; // op
      if (c0 === 0x69 && b[start + 1] === 0x64) return Key.Id; // id
      return Key.Unknown;
    case 3:
      return c0 === 0x74 && b[start + 1] === 0x61 && b[start + 2] === 0x67 ? Key.Tag : Key.Unknown;
    case 4:
      if (bytesEqual(b, start, 'size')) return Key.Size;
      if (bytesEqual(b, start, 'step')) return Key.Step;
      if (bytesEqual(b, start, 'time')) return Key.Time;
      return Key.Unknown;
    case 5:
      return bytesEqual(b, start, 'align') ? Key.Align : Key.Unknown;
    case 6:
      return bytesEqual(b, start, 'stream') ? Key.Stream : Key.Unknown;
    default:
      return Key.Unknown;
  }
}

function bytesEqual(b: Buffer, at: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) if (b[at + k] !== word.charCodeAt(k)) return false;
  return true;
}

function keyFromString(k: string): Key {
  switch (k) {
    case 'op': return Key.Op;
    case 'id': return Key.Id;
    case 'size': return Key.Size;
    case 'step': return Key.Step;
    case 'stream': return Key.Stream;
    case 'tag': return Key.Tag;
    case 'time': return Key.Time;
    case 'align': return Key.Align;
    default: return Key.Unknown;
  }
}

/** Parses one event object at `pos` (an opening brace) into `ev`. */
export function parseEventObject(sc: JsonScanner, ev: RawEvent): void {
  ev.reset();
  sc.pos++;
  let c = sc.ws();
  if (c === 0x7d) {
    sc.pos++;
    return;
  }
  for (;;) {
    if (c !== 0x22) sc.fail(`expected a key string, found ${sc.describeHere()}`);
    const key = readKey(sc);
    sc.expect(0x3a, '":"');
    switch (key) {
      case Key.Op:
        c = sc.ws();
        if (c === 0x22) {
          sc.pos++;
          if (sc.matchStringLiteral('alloc')) ev.op = 'alloc';
          else if (sc.matchStringLiteral('free')) ev.op = 'free';
          else {
            sc.pos--;
            ev.op = sc.parseString();
          }
        } else {
          ev.op = sc.parseValue();
        }
        break;
      case Key.Id:
        if (sc.ws() === 0x22 && sc.takePlainString()) {
          ev.id = IN_BYTES;
          ev.idStart = sc.strStart;
          ev.idEnd = sc.strEnd;
        } else {
          ev.id = sc.parseValue();
        }
        break;
      case Key.Size: ev.size = sc.parseValue(); break;
      case Key.Step: ev.step = sc.parseValue(); break;
      case Key.Stream: ev.stream = sc.parseValue(); break;
      case Key.Tag:
        if (sc.ws() === 0x22 && sc.takePlainString()) {
          ev.tag = IN_BYTES;
          ev.tagStart = sc.strStart;
          ev.tagEnd = sc.strEnd;
        } else {
          ev.tag = sc.parseValue();
        }
        break;
      case Key.Time: ev.time = sc.parseValue(); break;
      case Key.Align: ev.align = sc.parseValue(); break;
      default: sc.skipValue();
    }
    c = sc.ws();
    if (c === 0x2c) {
      sc.pos++;
      c = sc.ws();
    } else if (c === 0x7d) {
      sc.pos++;
      // Byte ranges index the current buffer (fill may have replaced it by a larger copy).
      ev.buf = sc.src.buf;
      return;
    } else {
      sc.fail(`expected "," or "}", found ${sc.describeHere()}`);
    }
  }
}

/** Checks a header object's `format`/`version` and returns its meta, or records a problem. */
export function readHeader(header: Record<string, unknown>, b: TraceBuilder, line: number): TraceMeta {
  const format = header['format'];
  if (format !== undefined && format !== 'memsim-trace') {
    b.problem({ line, field: 'format', message: `not a memsim trace (format "${String(format)}"; expected "memsim-trace")` });
  }
  const version = header['version'];
  if (version !== undefined && version !== 1) {
    const message = typeof version === 'number' ? `unsupported version ${show(version)} (this memsim reads version 1)` : `version must be the number 1, got ${show(version)}`;
    b.problem({ line, field: 'version', message });
  }
  return readMeta(header['meta'], b, line);
}

function readMeta(meta: unknown, b: TraceBuilder, line: number): TraceMeta {
  if (meta === undefined || meta === null) return {};
  if (typeof meta !== 'object' || Array.isArray(meta)) {
    b.problem({ line, field: 'meta', message: 'meta must be an object' });
    return {};
  }
  const m = meta as TraceMeta;
  const cap = m.capacityBytes as unknown;
  if (typeof cap === 'bigint' && cap > 0n) {
    b.problem({ line, field: 'meta.capacityBytes', message: `capacityBytes ${cap} is beyond 2^53 - 1 bytes, the largest capacity memsim holds exactly` });
    delete m.capacityBytes;
  } else if (cap !== undefined && (typeof cap !== 'number' || !Number.isSafeInteger(cap) || cap <= 0)) {
    b.problem({ line, field: 'meta.capacityBytes', message: `capacityBytes must be a positive integer, got ${show(cap)}` });
    delete m.capacityBytes;
  }
  return plainNumbers(m) as TraceMeta;
}

/** A parsed value as JSON would write it (bigints included). */
function show(v: unknown): string {
  return typeof v === 'bigint' ? v.toString() : JSON.stringify(v);
}

/** Meta is free-form and goes into reports as JSON: integers past 2^53 become (rounded) numbers there. */
function plainNumbers(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plainNumbers);
  if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      Object.defineProperty(v, k, { value: plainNumbers(x), enumerable: true, writable: true, configurable: true });
    }
  }
  return v;
}

function parseEventsArray(sc: JsonScanner, b: TraceBuilder, arrayName: string): void {
  const ev = new RawEvent();
  sc.expect(0x5b, '"[" (the events array)');
  let c = sc.ws();
  if (c === 0x5d) {
    sc.pos++;
    return;
  }
  // An event that shares its line with another (a trace written on one line) is named by its index
  // in problems too.
  let previousLine = -1;
  b.itemArray = arrayName;
  for (let index = 0; ; index++) {
    const line = sc.line;
    if (c === 0x7b) {
      parseEventObject(sc, ev);
      if (line === previousLine || nextEventOnThisLine(sc)) b.itemIndex = index;
      addRawEvent(b, ev, line);
      b.itemIndex = -1;
      previousLine = line;
    } else {
      if (c < 0) sc.fail('unexpected end of input inside the events array');
      b.problem({ line, col: sc.col(), message: 'an event must be a JSON object' });
      sc.skipValue();
    }
    c = sc.ws();
    if (c === 0x2c) {
      sc.pos++;
      if (sc.pos > RELEASE_AFTER) sc.release();
      c = sc.ws();
    } else if (c === 0x5d) {
      sc.pos++;
      return;
    } else {
      sc.fail(`expected "," or "]" after an event, found ${sc.describeHere()}`);
    }
  }
}

/** Whether another event object starts on the current line after the one just parsed (looks, does not move). */
function nextEventOnThisLine(sc: JsonScanner): boolean {
  const src = sc.src;
  for (let p = sc.pos; ; p++) {
    if (p >= src.end && !src.fill()) return false;
    const c = src.buf[p] as number;
    if (c === 0x7b) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x2c) return false;
  }
}

/**
 * Reads a memsim JSON trace (`{"format":"memsim-trace","version":1,"meta":…,"events":[…]}` or a bare
 * array of events), streaming: the events array is never held as a whole.
 */
export function readJson(src: ByteSource, b: TraceBuilder): void {
  const sc = new JsonScanner(src);
  sc.skipByteOrderMark();
  try {
    const c = sc.ws();
    if (c === 0x5b) {
      parseEventsArray(sc, b, '');
    } else if (c === 0x7b) {
      readTopObject(sc, b);
    } else {
      sc.fail(
        c < 0
          ? 'empty file (expected a memsim trace)'
          : `expected a memsim trace (an object with "events", or an array of events), found ${sc.describeHere()}`,
      );
    }
    if (sc.ws() >= 0) sc.fail(`unexpected ${sc.describeHere()} after the end of the trace`);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    b.problem({ line: e.line, col: e.col, message: e.message });
    src.close();
  }
}

function readTopObject(sc: JsonScanner, b: TraceBuilder): void {
  const topLine = sc.line;
  sc.pos++;
  let sawEvents = false;
  const header: Record<string, unknown> = {};
  let c = sc.ws();
  if (c === 0x7d) {
    sc.pos++;
  } else {
    for (;;) {
      if (c !== 0x22) sc.fail(`expected a key string, found ${sc.describeHere()}`);
      const keyLine = sc.line;
      const key = sc.parseString();
      sc.expect(0x3a, '":"');
      if (key === 'events') {
        if (sc.ws() !== 0x5b) {
          b.problem({ line: keyLine, field: 'events', message: '"events" must be an array of events' });
          sc.skipValue();
        } else {
          parseEventsArray(sc, b, 'events');
        }
        sawEvents = true;
      } else if (key === 'format' || key === 'version' || key === 'meta') {
        header[key] = sc.parseValue();
      } else {
        sc.skipValue();
      }
      c = sc.ws();
      if (c === 0x2c) {
        sc.pos++;
        c = sc.ws();
      } else if (c === 0x7d) {
        sc.pos++;
        break;
      } else {
        sc.fail(`expected "," or "}", found ${sc.describeHere()}`);
      }
    }
  }
  b.meta = readHeader(header, b, topLine);
  if (!sawEvents) b.problem({ line: topLine, field: 'events', message: 'no "events" array in the trace' });
}
