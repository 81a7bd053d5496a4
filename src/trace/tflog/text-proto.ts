/**
 * A parser of the protobuf text format, as `Message::ShortDebugString` prints it (protobuf's
 * `TextFormat::Printer` in single-line mode, text_format.cc): `name: value` for scalars,
 * `name { … }` for nested messages, a repeated field as the same name again, fields equal to
 * their default (0, false, "") left out, strings C-escaped (`\n`, `\"`, `\\`, octal `\ooo` for
 * bytes outside printable ASCII).
 *
 * It also reads what protobuf's own text parser accepts around that (`name: { … }`, `< … >`,
 * `[a, b]` lists, `,`/`;` after a field, `#` comments, single quotes, adjacent strings, hex and
 * octal integers, floats, `inf`/`nan`, `\x` and `\u` escapes), and any run of blanks between
 * tokens: newer protobuf releases insert extra blanks at random in debug strings.
 *
 * It does not build objects: it calls a {@link TextProtoVisitor} per field with the value in the
 * parser's own fields, so that a reader of millions of lines allocates nothing per field. Field
 * names and identifiers are interned ({@link TextProtoParser.names}); a visitor compares indexes.
 */
import { StringInterner } from '../string-interner.js';
import { CStringDecoder, hexValue } from './c-string.js';
import { TextProtoError } from './text-proto-error.js';

export { TextProtoError };

/** The value of the last scalar is a number (`num`). */
export const K_NUMBER = 0;
/** The value of the last scalar is a string (bytes `strStart..strEnd` of `strBuf`). */
export const K_STRING = 1;
/** The value of the last scalar is an identifier: an enum value, `true`, `false` (`ident`). */
export const K_IDENT = 2;

/** Receives the fields of a message as the parser meets them. */
export interface TextProtoVisitor {
  /** A nested message `name {` opens (`name` indexes {@link TextProtoParser.names}). */
  enter(name: number, p: TextProtoParser): void;
  /** The nested message opened last closes. */
  leave(p: TextProtoParser): void;
  /** A scalar field; its value is in `p.kind` and `p.num` / `p.strBuf…` / `p.ident`. */
  scalar(name: number, p: TextProtoParser): void;
}

const MAX_DEPTH = 64;

const SAFE = Number.MAX_SAFE_INTEGER;

const isIdentStart = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isIdentChar = (c: number): boolean => isIdentStart(c) || isDigit(c);

/** Parses text-format messages; one instance is reused for every line of a file. */
export class TextProtoParser {
  /** Interned field names and identifiers (`names.strings[i]`). */
  readonly names = new StringInterner();
  /** Kind of the last scalar: {@link K_NUMBER}, {@link K_STRING} or {@link K_IDENT}. */
  kind = K_NUMBER;
  /** Value of the last number. */
  num = 0;
  /** True when the last number was written as an integer (no point, exponent or `f`). */
  isInteger = false;
  /** True when the last integer is exact: its magnitude is at most 2^53 - 1. */
  isExact = false;
  /** Bytes of the last string (unescaped): `strBuf[strStart, strEnd)`. */
  strBuf: Uint8Array = new Uint8Array(0);
  strStart = 0;
  strEnd = 0;
  /** Index in {@link TextProtoParser.names} of the last identifier. */
  ident = 0;
  /** Where the last value starts (for error positions). */
  valuePos = 0;
  /** The last number as written (only for messages; built on demand). */
  numberText(): string {
    return Buffer.from(this.buf.buffer, this.buf.byteOffset + this.valuePos, this.valueEnd - this.valuePos).toString('latin1');
  }
  private valueEnd = 0;

  private buf: Uint8Array = new Uint8Array(0);
  private pos = 0;
  private end = 0;
  private depth = 0;
  private readonly decoder = new CStringDecoder();

  /** The last string value as text. */
  get str(): string {
    return Buffer.from(this.strBuf.buffer, this.strBuf.byteOffset + this.strStart, this.strEnd - this.strStart).toString('utf8');
  }

  /** The last scalar as a boolean, or undefined when it is not one (`true`/`false`/`t`/`f`/`1`/`0`). */
  boolValue(): boolean | undefined {
    if (this.kind === K_NUMBER) return this.isInteger && (this.num === 0 || this.num === 1) ? this.num === 1 : undefined;
    if (this.kind !== K_IDENT) return undefined;
    const s = this.names.strings[this.ident];
    if (s === 'true' || s === 't' || s === 'True') return true;
    if (s === 'false' || s === 'f' || s === 'False') return false;
    return undefined;
  }

  /**
   * Parses `{ fields }` (or `< fields >`) starting at `pos` (blanks first allowed) within
   * `buf[pos, end)`; returns the position after the closing brace.
   */
  parseMessage(buf: Uint8Array, pos: number, end: number, v: TextProtoVisitor): number {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    this.depth = 0;
    const c = this.skipBlanks();
    if (c !== 0x7b && c !== 0x3c) throw this.error(`expected '{', found ${this.describe(this.pos)}`);
    this.pos++;
    this.body(c === 0x7b ? 0x7d : 0x3e, v);
    return this.pos;
  }

  /** Parses fields up to `end` (a whole text-format document); returns `end`. */
  parseFields(buf: Uint8Array, pos: number, end: number, v: TextProtoVisitor): number {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    this.depth = 0;
    this.body(-1, v);
    return this.pos;
  }

  /** Position after the blanks and comments at the current position; returns the byte there (-1 at the end). */
  skipBlanks(): number {
    const buf = this.buf;
    while (this.pos < this.end) {
      const c = buf[this.pos] as number;
      if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) {
        this.pos++;
      } else if (c === 0x23) {
        while (this.pos < this.end && buf[this.pos] !== 0x0a) this.pos++;
      } else {
        return c;
      }
    }
    return -1;
  }

  /** Current position (after {@link TextProtoParser.skipBlanks} or a parse). */
  get position(): number {
    return this.pos;
  }

  /** Describes the byte at `at` for an error message. */
  describe(at: number): string {
    if (at >= this.end) return 'the end of the line';
    const c = this.buf[at] as number;
    if (c >= 0x21 && c <= 0x7e) return `'${String.fromCharCode(c)}'`;
    return `byte 0x${c.toString(16).padStart(2, '0')}`;
  }

  private error(message: string, at = this.pos): TextProtoError {
    return new TextProtoError(message, at);
  }

  /** Fields until `close` (`}` or `>`), or until the end when `close` is -1. */
  private body(close: number, v: TextProtoVisitor): void {
    if (++this.depth > MAX_DEPTH) throw this.error(`messages nested deeper than ${MAX_DEPTH}`);
    for (;;) {
      const c = this.skipBlanks();
      if (c === close) {
        if (c >= 0) this.pos++;
        this.depth--;
        return;
      }
      if (c < 0) throw this.error(`expected '${String.fromCharCode(close)}', found the end of the line`);
      const name = this.fieldName();
      let d = this.skipBlanks();
      let colon = false;
      if (d === 0x3a) {
        colon = true;
        this.pos++;
        d = this.skipBlanks();
      }
      if (d === 0x7b || d === 0x3c) {
        this.nested(name, d, v);
      } else if (!colon) {
        throw this.error(`expected ':' or '{' after the field name "${this.names.strings[name]}", found ${this.describe(this.pos)}`);
      } else if (d === 0x5b) {
        this.list(name, v);
      } else {
        this.value();
        v.scalar(name, this);
      }
      const e = this.skipBlanks();
      if (e === 0x2c || e === 0x3b) this.pos++;
    }
  }

  private nested(name: number, open: number, v: TextProtoVisitor): void {
    this.pos++;
    v.enter(name, this);
    this.body(open === 0x7b ? 0x7d : 0x3e, v);
    v.leave(this);
  }

  /** `[a, b, …]`: each element is a repeated value of the field (scalars or messages). */
  private list(name: number, v: TextProtoVisitor): void {
    this.pos++;
    if (this.skipBlanks() === 0x5d) {
      this.pos++;
      return;
    }
    for (;;) {
      const c = this.skipBlanks();
      if (c === 0x7b || c === 0x3c) {
        this.nested(name, c, v);
      } else {
        this.value();
        v.scalar(name, this);
      }
      const d = this.skipBlanks();
      if (d === 0x5d) {
        this.pos++;
        return;
      }
      if (d !== 0x2c) throw this.error(`expected ',' or ']' in the list, found ${this.describe(this.pos)}`);
      this.pos++;
    }
  }

  /** A field name: an identifier, or `[extension.name]`. */
  private fieldName(): number {
    const buf = this.buf;
    const s = this.pos;
    const c = buf[s] as number;
    if (c === 0x5b) {
      let e = s + 1;
      while (e < this.end && buf[e] !== 0x5d) e++;
      if (e >= this.end) throw this.error("expected ']' closing the extension name", e);
      this.pos = e + 1;
      return this.names.intern(buf, s, e + 1);
    }
    if (!isIdentStart(c)) throw this.error(`expected a field name, found ${this.describe(s)}`);
    let e = s + 1;
    while (e < this.end && isIdentChar(buf[e] as number)) e++;
    this.pos = e;
    return this.names.intern(buf, s, e);
  }

  /** A scalar value: number, string(s) or identifier. */
  private value(): void {
    const buf = this.buf;
    this.valuePos = this.pos;
    const c = buf[this.pos] as number;
    if (c === 0x22 || c === 0x27) {
      this.strings();
      return;
    }
    let negative = false;
    if (c === 0x2d) {
      negative = true;
      this.pos++;
    }
    const d = this.pos < this.end ? (buf[this.pos] as number) : -1;
    if (isDigit(d) || (d === 0x2e && isDigit(buf[this.pos + 1] ?? -1))) {
      this.number(negative);
      return;
    }
    if (d >= 0 && isIdentStart(d)) {
      const s = this.pos;
      while (this.pos < this.end && isIdentChar(buf[this.pos] as number)) this.pos++;
      const word = this.names.intern(buf, s, this.pos);
      const text = this.names.strings[word] as string;
      const lower = text.length === 3 || text.length === 8 ? text.toLowerCase() : '';
      if (lower === 'inf' || lower === 'infinity' || lower === 'nan') {
        this.kind = K_NUMBER;
        this.valueEnd = this.pos;
        this.isInteger = false;
        this.isExact = false;
        this.num = lower === 'nan' ? NaN : negative ? -Infinity : Infinity;
        return;
      }
      if (negative) throw this.error(`expected a number after '-', found "${text}"`, s);
      this.kind = K_IDENT;
      this.ident = word;
      return;
    }
    throw this.error(`expected a value, found ${this.describe(this.pos)}`);
  }

  private number(negative: boolean): void {
    const buf = this.buf;
    const s = this.pos;
    let value = 0;
    let isFloat = false;
    if (buf[s] === 0x30 && (buf[s + 1] === 0x78 || buf[s + 1] === 0x58)) {
      this.pos = s + 2;
      let h: number;
      while (this.pos < this.end && (h = hexValue(buf[this.pos] as number)) >= 0) {
        value = value * 16 + h;
        this.pos++;
      }
      if (this.pos === s + 2) throw this.error('expected hexadecimal digits after 0x', this.pos);
    } else {
      let e = s;
      while (e < this.end && isDigit(buf[e] as number)) e++;
      if (e < this.end && buf[e] === 0x2e) {
        isFloat = true;
        e++;
        while (e < this.end && isDigit(buf[e] as number)) e++;
      }
      if (e < this.end && (buf[e] === 0x65 || buf[e] === 0x45)) {
        isFloat = true;
        e++;
        if (e < this.end && (buf[e] === 0x2b || buf[e] === 0x2d)) e++;
        const digits = e;
        while (e < this.end && isDigit(buf[e] as number)) e++;
        if (e === digits) throw this.error('expected digits in the exponent', e);
      }
      if (isFloat) {
        value = Number(Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('latin1'));
      } else {
        // A leading 0 means octal, as protobuf's tokenizer reads integers.
        const octal = buf[s] === 0x30 && e - s > 1;
        for (let i = s; i < e; i++) {
          const digit = (buf[i] as number) - 0x30;
          if (octal && digit > 7) throw this.error('invalid digit in an octal number', i);
          value = value * (octal ? 8 : 10) + digit;
        }
      }
      this.pos = e;
      if (e < this.end && (buf[e] === 0x66 || buf[e] === 0x46)) {
        isFloat = true;
        this.pos++;
      }
    }
    if (this.pos < this.end && isIdentChar(buf[this.pos] as number)) {
      throw this.error(`unexpected ${this.describe(this.pos)} in a number`);
    }
    this.kind = K_NUMBER;
    this.valueEnd = this.pos;
    this.isInteger = !isFloat;
    this.isExact = !isFloat && value <= SAFE;
    this.num = negative ? -value : value;
  }

  /** One string, or several adjacent ones (concatenated, as the protobuf parser does). */
  private strings(): void {
    const buf = this.buf;
    const d = this.decoder;
    d.reset();
    // A single string without escapes is used where it stands; anything else is decoded.
    let directStart = -1;
    let directEnd = -1;
    let first = true;
    while (this.pos < this.end && (buf[this.pos] === 0x22 || buf[this.pos] === 0x27)) {
      const quote = buf[this.pos] as number;
      const s = this.pos + 1;
      if (directStart >= 0) {
        d.append(buf, directStart, directEnd);
        directStart = -1;
      }
      let e = s;
      if (first) while (e < this.end && buf[e] !== quote && buf[e] !== 0x5c && buf[e] !== 0x0a) e++;
      if (first && e < this.end && buf[e] === quote) {
        directStart = s;
        directEnd = e;
        this.pos = e + 1;
      } else {
        this.pos = d.decode(buf, s, this.end, quote);
      }
      first = false;
      this.skipBlanks();
    }
    this.kind = K_STRING;
    if (directStart >= 0) {
      this.strBuf = buf;
      this.strStart = directStart;
      this.strEnd = directEnd;
    } else {
      this.strBuf = d.bytes;
      this.strStart = 0;
      this.strEnd = d.length;
    }
  }
}
