import type { PlanResultOk } from '../planners/run.js';
import type { RecordIds, UsageRecords } from '../planners/types.js';
import { writeDecimal } from '../trace/id-decimal.js';

const csvField = (s: string): string => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/**
 * The input records with an `offset` column, minimalloc's output shape: `id,lower,upper,size,offset`
 * (half-open lifetimes) for minimalloc files and traces, `size,first,last,offset` (with `id` first
 * when the input has ids) for closed-interval record files. Offsets come from the plan (objects
 * plans: their objects laid out back to back).
 */
export function renderPlanCsv(r: UsageRecords, offsets: ArrayLike<number>): string {
  const decoder = new TextDecoder();
  return planCsvBytes(r, offsets)
    .map((chunk) => decoder.decode(chunk))
    .join('');
}

/**
 * {@link renderPlanCsv} as UTF-8 bytes, in chunks of about a megabyte to be written in turn: a
 * million lines go to the file without becoming a string first.
 */
export function planCsvBytes(r: UsageRecords, offsets: ArrayLike<number>): Uint8Array[] {
  const out = new CsvBytes();
  const ids = r.ids;
  if (r.source.format === 'records-csv' || r.source.format === 'records') {
    out.text(ids ? 'id,size,first,last,offset\n' : 'size,first,last,offset\n');
    for (let i = 0; i < r.count; i++) {
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
  } else {
    out.text('id,lower,upper,size,offset\n');
    for (let i = 0; i < r.count; i++) {
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
  }
  return out.finish();
}

const CHUNK_BYTES = 1 << 20;
const COMMA = 44;
const NEWLINE = 10;

/**
 * CSV text built as UTF-8 bytes a megabyte at a time, numbers written digit by digit (as `String`
 * writes them): a million lines make a few dozen chunks rather than millions of small strings.
 */
class CsvBytes {
  private buf = new Uint8Array(CHUNK_BYTES);
  private pos = 0;
  private readonly chunks: Uint8Array[] = [];
  private readonly encoder = new TextEncoder();

  /** Room for `bytes` more (a full megabyte goes to the chunks first). */
  private room(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    this.chunks.push(this.buf.subarray(0, this.pos));
    this.buf = new Uint8Array(Math.max(CHUNK_BYTES, bytes));
    this.pos = 0;
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
    if (x >= 0 && x <= Number.MAX_SAFE_INTEGER && Math.floor(x) === x) {
      if (x < 2 ** 31) {
        this.pos = writeDecimal(x, this.buf, this.pos);
        return;
      }
      // Above 2^31 (offsets in a large arena): the digits past the last eight, then those eight, each
      // part in small integer arithmetic (2^53 / 10^8 < 2^31).
      let high = Math.floor(x / 1e8);
      // The quotient is rounded: one too many when x is just below a multiple of 10^8.
      if (high * 1e8 > x) high--;
      this.pos = eightDigits(x - high * 1e8, this.buf, writeDecimal(high, this.buf, this.pos));
      return;
    }
    const s = String(x);
    for (let k = 0; k < s.length; k++) this.buf[this.pos++] = s.charCodeAt(k);
  }

  /** The whole text, in chunks. */
  finish(): Uint8Array[] {
    this.chunks.push(this.buf.subarray(0, this.pos));
    return this.chunks;
  }
}

/** Writes `v` (an integer in [0, 10^8)) as exactly eight digits, zeros first; returns the position after them. */
function eightDigits(v: number, out: Uint8Array, pos: number): number {
  let x = v | 0;
  for (let k = pos + 7; k >= pos; k--) {
    const q = (x / 10) | 0;
    out[k] = 0x30 + x - q * 10;
    x = q;
  }
  return pos + 8;
}

/** The plan `--format csv` writes: the first result that is a plan (the best-ranked). */
export function csvPlanOf(results: readonly { status: string }[]): PlanResultOk | undefined {
  return results.find((x) => x.status === 'ok') as PlanResultOk | undefined;
}
