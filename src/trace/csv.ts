import type { ByteSource } from './source.js';
import { grown } from '../util/typed-arrays.js';

/**
 * A streaming RFC 4180 record scanner: finds the fields of one record (quoted fields may hold commas,
 * doubled quotes and line breaks) and decodes them on demand. Lines starting with `#` (outside a
 * record) are comments; blank lines are skipped.
 */
/** {@link CsvScanner.plainInt}: the field is empty or absent. */
export const NO_VALUE = -Infinity;
/** {@link CsvScanner.plainInt}: the field is not a plain integer. */
export const NOT_PLAIN = NaN;

/** A number in decimal notation: sign, digits, fraction, exponent (`12`, `-3`, `1.5`, `1e3`). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export class CsvScanner {
  pos = 0;
  /** 1-based line where the current record starts. */
  line = 0;
  /** 1-based line where the next record (or blank or comment line) starts. */
  nextLine = 1;
  /** Field boundaries of the current record: start and end (exclusive) offsets into src.buf. */
  starts: Int32Array = new Int32Array(16);
  ends: Int32Array = new Int32Array(16);
  quoted = new Uint8Array(16);
  count = 0;
  /** Offset where the current record starts (for columns). */
  recordStart = 0;
  /** A problem found while scanning the record (unterminated quote, text after a closing quote). */
  error: { col: number; message: string } | null = null;

  constructor(readonly src: ByteSource) {
    src.lineOf = () => this.line;
  }

  private byte(p: number): number {
    if (p >= this.src.end && !this.src.fill()) return -1;
    return this.src.buf[p] as number;
  }

  private push(start: number, end: number, quoted: boolean): void {
    if (this.count === this.starts.length) {
      this.starts = grown(this.starts, this.starts.length * 2);
      this.ends = grown(this.ends, this.ends.length * 2);
      this.quoted = grown(this.quoted, this.quoted.length * 2);
    }
    this.starts[this.count] = start;
    this.ends[this.count] = end;
    this.quoted[this.count] = quoted ? 1 : 0;
    this.count++;
  }

  /** Scans the next record; false at end of input. */
  next(): boolean {
    for (;;) {
      let c = this.byte(this.pos);
      if (c < 0) return false;
      this.line = this.nextLine;
      if (c === 0x0a || c === 0x0d) {
        // blank line
        if (c === 0x0d && this.byte(this.pos + 1) === 0x0a) this.pos++;
        this.pos++;
        this.nextLine++;
        continue;
      }
      if (c === 0x23) {
        while ((c = this.byte(this.pos)) >= 0 && c !== 0x0a) this.pos++;
        if (c === 0x0a) this.pos++;
        this.nextLine++;
        continue;
      }
      this.scanRecord();
      return true;
    }
  }

  /**
   * The common record in one pass: no quote, and its line break already in the buffer. Returns false
   * (having changed nothing that {@link CsvScanner.scanRecord} does not reset) otherwise.
   */
  private scanPlainRecord(): boolean {
    const buf = this.src.buf;
    const end = this.src.end;
    let starts = this.starts;
    let ends = this.ends;
    let count = 0;
    let start = this.pos;
    for (let p = start; p < end; p++) {
      const c = buf[p] as number;
      if (c > 0x2c) continue; // every byte that matters (\n \r " ,) is at most 0x2c
      if (c === 0x2c || c === 0x0a) {
        if (count === starts.length) {
          this.count = count;
          this.push(0, 0, false); // grows the arrays
          starts = this.starts;
          ends = this.ends;
        }
        starts[count] = start;
        ends[count] = c === 0x0a && p > start && buf[p - 1] === 0x0d ? p - 1 : p;
        this.quoted[count] = 0;
        count++;
        start = p + 1;
        if (c === 0x0a) {
          this.count = count;
          this.error = null;
          this.recordStart = this.pos;
          this.pos = p + 1;
          this.nextLine++;
          return true;
        }
      } else if (c === 0x22) {
        return false;
      }
    }
    return false;
  }

  private scanRecord(): void {
    if (this.scanPlainRecord()) return;
    this.count = 0;
    this.error = null;
    this.recordStart = this.pos;
    let p = this.pos;
    for (;;) {
      let c = this.byte(p);
      if (c === 0x22) {
        p = this.scanQuoted(p);
      } else {
        // Unquoted field: a tight loop over the buffer, refilling only at its end.
        const start = p;
        let buf = this.src.buf;
        let end = this.src.end;
        c = -1;
        for (;;) {
          while (p < end) {
            c = buf[p] as number;
            if (c === 0x2c || c === 0x0a || c === 0x22) break;
            p++;
          }
          if (p < end || !this.src.fill()) break;
          buf = this.src.buf;
          end = this.src.end;
        }
        if (p >= this.src.end) c = -1;
        if (c === 0x22) {
          this.error ??= { col: p - this.recordStart + 1, message: 'a quote inside an unquoted field' };
          while ((c = this.byte(p)) >= 0 && c !== 0x2c && c !== 0x0a) p++;
        }
        let fieldEnd = p;
        if (fieldEnd > start && this.src.buf[fieldEnd - 1] === 0x0d && c !== 0x2c) fieldEnd--;
        this.push(start, fieldEnd, false);
      }
      c = this.byte(p);
      if (c === 0x2c) {
        p++;
        continue;
      }
      if (c === 0x0d && this.byte(p + 1) === 0x0a) p++;
      if (c >= 0) p++;
      this.nextLine++;
      this.pos = p;
      return;
    }
  }

  /** Scans a quoted field starting at its opening quote; returns the position after it. */
  private scanQuoted(q: number): number {
    const start = q + 1;
    let p = start;
    let c: number;
    for (;;) {
      c = this.byte(p);
      if (c < 0) {
        this.error ??= { col: start - this.recordStart, message: 'unterminated quoted field' };
        this.push(start, p, true);
        return p;
      }
      if (c === 0x22) {
        if (this.byte(p + 1) === 0x22) {
          p += 2;
          continue;
        }
        break;
      }
      if (c === 0x0a) this.nextLine++;
      p++;
    }
    this.push(start, p, true);
    p++; // closing quote
    c = this.byte(p);
    if (c !== 0x2c && c !== 0x0a && c !== 0x0d && c >= 0) {
      this.error ??= { col: p - this.recordStart + 1, message: 'unexpected text after a closing quote' };
      while ((c = this.byte(p)) >= 0 && c !== 0x2c && c !== 0x0a) p++;
    }
    return p;
  }

  /** 1-based column of field `i` in the record's first line. */
  col(i: number): number {
    if (i < 0 || i >= this.count) return 0;
    return (this.starts[i] as number) - this.recordStart + 1 - ((this.quoted[i] as number) ? 1 : 0);
  }

  isEmpty(i: number): boolean {
    return i >= this.count || this.starts[i] === this.ends[i];
  }

  /** Field `i` decoded as text ('' when the record has fewer fields). */
  text(i: number): string {
    if (i >= this.count) return '';
    const s = this.src.buf.toString('utf8', this.starts[i], this.ends[i]);
    return this.quoted[i] ? s.replace(/""/g, '"') : s;
  }

  /** True when field `i` is exactly `word` (unquoted ASCII comparison). */
  equals(i: number, word: string): boolean {
    if (i >= this.count) return false;
    const start = this.starts[i] as number;
    if ((this.ends[i] as number) - start !== word.length) return false;
    const b = this.src.buf;
    for (let k = 0; k < word.length; k++) if (b[start + k] !== word.charCodeAt(k)) return false;
    return true;
  }

  /**
   * Field `i` as a number: plain decimal integers without building a string; other decimal notation
   * (a sign, a fraction, an exponent) through `Number()`. Returns the text itself when it is not a
   * number (so the checker can quote it), a bigint for an integer written beyond 2^53 - 1 (so that it
   * is quoted exactly), and undefined when the field is empty.
   */
  number(i: number): number | bigint | string | undefined {
    if (this.isEmpty(i)) return undefined;
    const b = this.src.buf;
    const start = this.starts[i] as number;
    const end = this.ends[i] as number;
    if (!this.quoted[i] && end - start <= 15) {
      let v = 0;
      let q = start;
      const neg = b[q] === 0x2d;
      if (neg) q++;
      let ok = q < end;
      for (; q < end; q++) {
        const d = (b[q] as number) - 0x30;
        if (d < 0 || d > 9) {
          ok = false;
          break;
        }
        v = v * 10 + d;
      }
      if (ok) return neg ? -v : v;
    }
    const t = this.text(i).trim();
    // Decimal notation only: `Number` would also read 0x10, 0b11, 0o17 and Infinity.
    if (!DECIMAL.test(t)) return t;
    const n = Number(t);
    return !Number.isSafeInteger(n) && /^-?\d+$/.test(t) ? BigInt(t) : n;
  }

  /**
   * Field `i` as a plain decimal integer (optional minus sign, at most 15 digits, unquoted):
   * its value; NO_VALUE when the field is empty or absent; NOT_PLAIN otherwise.
   */
  plainInt(i: number): number {
    if (i < 0 || i >= this.count) return NO_VALUE;
    const start = this.starts[i] as number;
    const end = this.ends[i] as number;
    if (start === end) return NO_VALUE;
    if (this.quoted[i] || end - start > 15) return NOT_PLAIN;
    const b = this.src.buf;
    let q = start;
    const neg = b[q] === 0x2d;
    if (neg) q++;
    if (q === end) return NOT_PLAIN;
    let v = 0;
    for (; q < end; q++) {
      const d = (b[q] as number) - 0x30;
      if (d < 0 || d > 9) return NOT_PLAIN;
      v = v * 10 + d;
    }
    return neg ? -v : v;
  }

  /** Drops consumed input (call between records). */
  release(): void {
    const shift = this.src.discard(this.pos);
    this.pos -= shift;
  }
}
