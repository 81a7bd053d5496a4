/**
 * Event lines in memsim's text formats written as UTF-8 bytes a megabyte at a time, without a string
 * per event: ids copied from their bytes, numbers written digit by digit, tags encoded once each. An
 * id that JSON must escape or CSV must quote, and a number that is not a plain integer, go through
 * their text. {@link TraceWriter} writes every event through them.
 */
import type { OutputFile } from '../output/index.js';
import { writeDecimal } from './id-decimal.js';
import { DEFAULT_ALIGN_BYTES } from './model.js';

/** The text formats memsim writes. */
export type WriteFormat = 'json' | 'jsonl' | 'csv';

/** A CSV field as memsim writes it: quoted when it holds a quote, comma or line break, or starts as a comment does. */
export function csvField(s: string): string {
  return /[",\n\r]/.test(s) || s.startsWith('#') ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Bytes gathered before they are written. */
const CHUNK_BYTES = 1 << 20;
/** Room kept for a line past the chunk: its numbers and fixed text (ids and tags ask for theirs). */
const LINE_ROOM = 512;
/** The most distinct tags whose bytes are kept. */
const MAX_TAGS_KEPT = 1 << 12;

const QUOTE = 0x22;
const COMMA = 0x2c;
const NEWLINE = 0x0a;

const encoder = new TextEncoder();
const ascii = (s: string): Uint8Array => encoder.encode(s);

const JSON_ALLOC = ascii('{"op":"alloc","id":');
const JSON_FREE = ascii('{"op":"free","id":');
const JSON_SIZE = ascii(',"size":');
const JSON_STEP = ascii(',"step":');
const JSON_STREAM = ascii(',"stream":');
const JSON_TIME = ascii(',"time":');
const JSON_ALIGN = ascii(',"align":');
const CSV_ALLOC = ascii('alloc,');
const CSV_FREE = ascii('free,');

/** The optional CSV columns a trace's lines have. */
export interface CsvColumns {
  stream: boolean;
  time: boolean;
  align: boolean;
}

export class EventBytes {
  /** JSON: no separator before the next line (the document's first event). */
  first = true;
  private buf = new Uint8Array(CHUNK_BYTES + LINE_ROOM);
  private pos = 0;
  /** Where the last line begins in `buf` (none of it is written before the next line begins), and `first` before it. */
  private lineStart = 0;
  private firstBefore = true;
  /** Tags as the format writes them (JSON: with their key; CSV: the field). */
  private readonly tags = new Map<string, Uint8Array>();
  private readonly json: boolean;

  constructor(
    private readonly out: OutputFile,
    private readonly format: WriteFormat,
    private readonly columns: CsvColumns,
  ) {
    this.json = format !== 'csv';
  }

  /** Writes what is gathered. */
  flush(): void {
    if (this.pos > 0) this.out.bytes(this.buf, this.pos);
    this.pos = 0;
    this.lineStart = 0;
  }

  /**
   * Takes the last line back, unwritten (its event turned out bad after it was written: junk after a
   * JSON Lines object). Only the last line, and only before the next flush.
   */
  dropLast(): void {
    this.pos = this.lineStart;
    this.first = this.firstBefore;
  }

  /**
   * One event: its id the UTF-8 bytes [s, e) of `id`, `time` NaN when it has none; `size`, `tag` and
   * `align` are an alloc's (a free has none).
   */
  line(isAlloc: boolean, id: Uint8Array, s: number, e: number, size: number, step: number, tag: string | undefined, stream: number, time: number, align: number): void {
    if (this.pos >= CHUNK_BYTES) this.flush();
    this.lineStart = this.pos;
    this.firstBefore = this.first;
    if (this.json) this.jsonLine(isAlloc, id, s, e, size, step, tag, stream, time, align);
    else this.csvLine(isAlloc, id, s, e, size, step, tag, stream, time, align);
  }

  /**
   * Room for `bytes` more than a line's usual room (a long id or tag): the lines before the one being
   * written are written, and that one is moved to the start (it is written only once whole).
   */
  private room(bytes: number): void {
    if (this.pos + bytes + LINE_ROOM <= this.buf.length) return;
    const start = this.lineStart;
    if (start > 0) this.out.bytes(this.buf, start);
    const begun = this.pos - start;
    if (begun + bytes + LINE_ROOM > this.buf.length) {
      const grown = new Uint8Array(begun + bytes + LINE_ROOM);
      grown.set(this.buf.subarray(start, this.pos));
      this.buf = grown;
    } else {
      this.buf.copyWithin(0, start, this.pos);
    }
    this.pos = begun;
    this.lineStart = 0;
  }

  private put(bytes: Uint8Array): void {
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** A number as `String(x)` writes it. */
  private number(x: number): void {
    if (x >= 0 && Number.isSafeInteger(x)) {
      this.pos = writeDecimal(x, this.buf, this.pos);
      return;
    }
    const s = String(x);
    for (let k = 0; k < s.length; k++) this.buf[this.pos++] = s.charCodeAt(k);
  }

  /** The id as the format writes it: its bytes when they need no escaping (JSON) or quoting (CSV), else its text so treated. */
  private id(id: Uint8Array, s: number, e: number): void {
    let plain = this.json || (e > s && id[s] !== 0x23);
    for (let k = s; k < e && plain; k++) {
      const c = id[k] as number;
      plain = this.json ? c >= 0x20 && c !== QUOTE && c !== 0x5c : c !== QUOTE && c !== COMMA && c !== NEWLINE && c !== 0x0d;
    }
    if (!plain) {
      const text = Buffer.from(id.buffer, id.byteOffset + s, e - s).toString('utf8');
      const escaped = encoder.encode(this.json ? JSON.stringify(text) : csvField(text));
      this.room(escaped.length);
      this.put(escaped);
      return;
    }
    this.room(e - s + 2);
    if (this.json) this.buf[this.pos++] = QUOTE;
    this.buf.set(id.subarray(s, e), this.pos);
    this.pos += e - s;
    if (this.json) this.buf[this.pos++] = QUOTE;
  }

  private tag(text: string): void {
    let b = this.tags.get(text);
    if (b === undefined) {
      b = encoder.encode(this.json ? `,"tag":${JSON.stringify(text)}` : csvField(text));
      if (this.tags.size < MAX_TAGS_KEPT) this.tags.set(text, b);
    }
    this.room(b.length);
    this.put(b);
  }

  private jsonLine(isAlloc: boolean, id: Uint8Array, s: number, e: number, size: number, step: number, tag: string | undefined, stream: number, time: number, align: number): void {
    if (this.format === 'json') {
      if (!this.first) {
        this.buf[this.pos++] = COMMA;
        this.buf[this.pos++] = NEWLINE;
      }
      this.first = false;
    }
    this.put(isAlloc ? JSON_ALLOC : JSON_FREE);
    this.id(id, s, e);
    if (isAlloc) {
      this.put(JSON_SIZE);
      this.number(size);
    }
    this.put(JSON_STEP);
    this.number(step);
    if (isAlloc && tag !== undefined) this.tag(tag);
    if (stream !== 0) {
      this.put(JSON_STREAM);
      this.number(stream);
    }
    if (time === time) {
      this.put(JSON_TIME);
      this.number(time);
    }
    if (isAlloc && align !== DEFAULT_ALIGN_BYTES) {
      this.put(JSON_ALIGN);
      this.number(align);
    }
    this.buf[this.pos++] = 0x7d;
    if (this.format === 'jsonl') this.buf[this.pos++] = NEWLINE;
  }

  private csvLine(isAlloc: boolean, id: Uint8Array, s: number, e: number, size: number, step: number, tag: string | undefined, stream: number, time: number, align: number): void {
    this.put(isAlloc ? CSV_ALLOC : CSV_FREE);
    this.id(id, s, e);
    this.buf[this.pos++] = COMMA;
    if (isAlloc) this.number(size);
    this.buf[this.pos++] = COMMA;
    this.number(step);
    this.buf[this.pos++] = COMMA;
    if (isAlloc && tag !== undefined) this.tag(tag);
    const c = this.columns;
    if (c.stream) {
      this.buf[this.pos++] = COMMA;
      this.number(stream);
    }
    if (c.time) {
      this.buf[this.pos++] = COMMA;
      if (time === time) this.number(time);
    }
    if (c.align) {
      this.buf[this.pos++] = COMMA;
      if (isAlloc) this.number(align);
    }
    this.buf[this.pos++] = NEWLINE;
  }
}
