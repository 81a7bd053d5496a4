import type { PlanResultOk } from '../planners/run.js';
import type { RecordIds, UsageRecords } from '../planners/types.js';
import { asciiDecimal } from '../util/ascii-numbers.js';

const csvField = (s: string): string => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/**
 * The input records with an `offset` column, minimalloc's output shape: `id,lower,upper,size,offset`
 * (half-open lifetimes) for minimalloc files and traces, `size,first,last,offset` (with `id` first
 * when the input has ids) for closed-interval record files. Offsets come from the plan (objects
 * plans: their objects laid out back to back).
 */
export function renderPlanCsv(r: UsageRecords, offsets: ArrayLike<number>): string {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  for (const chunk of planCsvBytes(r, offsets)) parts.push(decoder.decode(chunk));
  return parts.join('');
}

/**
 * {@link renderPlanCsv} as UTF-8 bytes, in chunks of about a megabyte to be written in turn: a
 * million lines go to the file without becoming a string first. Each chunk is made when the one
 * before it has been taken, in the same buffer (a view of it that the next chunk overwrites), so the
 * text never takes more than a megabyte of memory: write or copy each chunk before asking for the next.
 */
export function planCsvBytes(r: UsageRecords, offsets: ArrayLike<number>): Iterable<Uint8Array> {
  return {
    [Symbol.iterator](): Iterator<Uint8Array> {
      const out = new CsvBytes();
      const isRecords = r.source.format === 'records-csv' || r.source.format === 'records';
      const ids = r.ids;
      out.text(isRecords ? (ids ? 'id,size,first,last,offset\n' : 'size,first,last,offset\n') : 'id,lower,upper,size,offset\n');
      // Ids that are numbers (a trace's, mostly) or none: lines of numbers alone.
      const numbers = ids === null ? null : ids.plainNumbers?.() ?? undefined;
      let i = 0;
      let isDone = false;
      return {
        next(): IteratorResult<Uint8Array> {
          if (isDone) return { done: true, value: undefined };
          if (isRecords) i = recordLines(out, r, offsets, i);
          else if (numbers !== undefined) i = minimallocNumberLines(out, r, offsets, numbers, i);
          else i = minimallocLines(out, r, offsets, i);
          isDone = i >= r.count;
          return { done: false, value: out.take() };
        },
      };
    },
  };
}

/** Lines of a closed-interval record file from record i until the chunk is full; returns the next record. */
function recordLines(out: CsvBytes, r: UsageRecords, offsets: ArrayLike<number>, i: number): number {
  const ids = r.ids;
  for (; i < r.count && !out.isFull(); i++) {
    if (ids) {
      out.id(ids, i);
      out.comma();
    }
    out.number(r.size[i] as number);
    out.comma();
    out.number(r.first[i] as number);
    out.comma();
    out.number(r.last[i] as number);
    out.comma();
    out.number(offsets[i] as number);
    out.newline();
  }
  return i;
}

/** Lines of minimalloc's shape (half-open lifetimes) from record i until the chunk is full; returns the next record. */
function minimallocLines(out: CsvBytes, r: UsageRecords, offsets: ArrayLike<number>, i: number): number {
  const ids = r.ids;
  for (; i < r.count && !out.isFull(); i++) {
    if (ids) out.id(ids, i);
    else out.number(i);
    out.comma();
    out.number(r.first[i] as number);
    out.comma();
    out.number((r.last[i] as number) + 1);
    out.comma();
    out.number(r.size[i] as number);
    out.comma();
    out.number(offsets[i] as number);
    out.newline();
  }
  return i;
}

/**
 * {@link minimallocLines} where each id is a number (`numbers[i]`, or i with none): the numbers of a
 * line written straight into the buffer, whose room is checked once a line.
 */
function minimallocNumberLines(out: CsvBytes, r: UsageRecords, offsets: ArrayLike<number>, numbers: ArrayLike<number> | null, i: number): number {
  const buf = out.buffer();
  const view = out.view();
  // A number takes at most 32 bytes (what String writes), a line five and their separators.
  const limit = Math.min(buf.length, CHUNK_BYTES) - 256;
  const { first, last, size } = r;
  let pos = out.position();
  for (; i < r.count && pos < limit; i++) {
    pos = writeNumber(numbers === null ? i : (numbers[i] as number), buf, view, pos);
    buf[pos++] = COMMA;
    pos = writeNumber(first[i] as number, buf, view, pos);
    buf[pos++] = COMMA;
    pos = writeNumber((last[i] as number) + 1, buf, view, pos);
    buf[pos++] = COMMA;
    pos = writeNumber(size[i] as number, buf, view, pos);
    buf[pos++] = COMMA;
    pos = writeNumber(offsets[i] as number, buf, view, pos);
    buf[pos++] = NEWLINE;
  }
  out.moveTo(pos);
  return i;
}

const CHUNK_BYTES = 1 << 20;
const COMMA = 44;
const NEWLINE = 10;

/**
 * CSV text built as UTF-8 bytes a megabyte at a time in one buffer, numbers written digit by digit
 * (as `String` writes them): a million lines make a few dozen chunks rather than millions of small
 * strings, and take no more memory than one.
 */
class CsvBytes {
  private buf = new Uint8Array(CHUNK_BYTES);
  private dataView = new DataView(this.buf.buffer);
  private pos = 0;
  private readonly encoder = new TextEncoder();

  /** Whether the chunk is about full: the next line goes in the next one. */
  isFull(): boolean {
    return this.pos >= CHUNK_BYTES - 256;
  }

  /** The chunk so far, as a view of the buffer that the next one overwrites. */
  take(): Uint8Array {
    const chunk = this.buf.subarray(0, this.pos);
    this.pos = 0;
    return chunk;
  }

  /** Room for `bytes` more: a line longer than the rest of the buffer (a long id) gets a larger one. */
  private room(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const bigger = new Uint8Array(Math.max(2 * this.buf.length, this.pos + bytes));
    bigger.set(this.buf.subarray(0, this.pos));
    this.buf = bigger;
    this.dataView = new DataView(bigger.buffer);
  }

  comma(): void {
    this.room(1);
    this.buf[this.pos++] = COMMA;
  }

  newline(): void {
    this.room(1);
    this.buf[this.pos++] = NEWLINE;
  }

  /** Text written as is (UTF-8). */
  text(s: string): void {
    this.room(3 * s.length);
    this.pos += this.encoder.encodeInto(s, this.buf.subarray(this.pos)).written;
  }

  /** A field, quoted when it holds a quote, comma or line break. */
  field(s: string): void {
    this.room(s.length);
    const buf = this.buf;
    let p = this.pos;
    for (let k = 0; k < s.length; k++) {
      const c = s.charCodeAt(k);
      if (c >= 128 || c === 34 || c === COMMA || c === NEWLINE || c === 13) {
        this.text(csvField(s));
        return;
      }
      buf[p++] = c;
    }
    this.pos = p;
  }

  /**
   * The id of record i as {@link field} writes it: written in place when the ids can, and kept when
   * its bytes are plain ASCII with nothing to quote (then they are the string's), else as a field.
   */
  id(ids: RecordIds, i: number): void {
    if (!ids.writeId || !ids.bytesOf) {
      this.field(ids.get(i));
      return;
    }
    this.room(ids.bytesOf(i));
    const buf = this.buf;
    const start = this.pos;
    const end = ids.writeId(i, buf, start);
    for (let k = start; k < end; k++) {
      const c = buf[k] as number;
      if (c >= 128 || c === 34 || c === COMMA || c === NEWLINE || c === 13) {
        this.pos = start;
        this.field(ids.get(i));
        return;
      }
    }
    this.pos = end;
  }

  /** A number as `String(x)` writes it. */
  number(x: number): void {
    this.room(32);
    this.pos = writeNumber(x, this.buf, this.dataView, this.pos);
  }

  /** The buffer, for a writer that checks its room itself (see {@link position} and {@link moveTo}). */
  buffer(): Uint8Array {
    return this.buf;
  }

  /** A view of {@link buffer}, for the digit writers. */
  view(): DataView {
    return this.dataView;
  }

  position(): number {
    return this.pos;
  }

  moveTo(pos: number): void {
    this.pos = pos;
  }
}

/**
 * Writes `x` as `String(x)` does into `out` (viewed by `view`) at `pos`, with room for 32 bytes;
 * returns the position after it. Integers go through the placements' digit writer.
 */
function writeNumber(x: number, out: Uint8Array, view: DataView, pos: number): number {
  if (x >= 0 && x <= Number.MAX_SAFE_INTEGER && Math.floor(x) === x) return asciiDecimal(x, view, pos);
  const s = String(x);
  for (let k = 0; k < s.length; k++) out[pos++] = s.charCodeAt(k);
  return pos;
}

/** The plan `--format csv` writes: the first result that is a plan (the best-ranked). */
export function csvPlanOf(results: readonly { status: string }[]): PlanResultOk | undefined {
  return results.find((x) => x.status === 'ok') as PlanResultOk | undefined;
}
