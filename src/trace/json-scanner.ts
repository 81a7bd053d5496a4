import type { ByteSource } from './source.js';

/** A JSON syntax error at a position; readers turn it into a `file:line:col` problem. */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly col: number,
  ) {
    super(message);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NL = 0x0a;

/**
 * A byte-level JSON tokenizer over a streaming {@link ByteSource}, tracking lines for error messages.
 * It parses one value at a time and never needs the whole document in memory.
 */
export class JsonScanner {
  pos = 0;
  line = 1;
  /** Buffer offset where the current line starts (for columns). */
  lineStart = 0;
  /** JSON Lines: a value may not continue past the end of its line (ws() stops there). */
  singleLine = false;

  constructor(readonly src: ByteSource) {
    src.lineOf = () => this.line;
  }

  /** Steps over a UTF-8 byte order mark at the start of the input (editors on Windows write one). */
  skipByteOrderMark(): void {
    while (this.src.end < 3 && this.src.fill()) {
      /* keep filling */
    }
    const b = this.src.buf;
    if (this.pos === 0 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) this.pos = this.lineStart = 3;
  }

  /** The byte at `pos`, reading more of the file when needed; -1 at end of input. */
  peek(): number {
    if (this.pos >= this.src.end && !this.src.fill()) return -1;
    return this.src.buf[this.pos] as number;
  }

  /** Skips white space and returns the next byte (-1 at end of input). */
  ws(): number {
    for (;;) {
      if (this.pos >= this.src.end && !this.src.fill()) return -1;
      const c = this.src.buf[this.pos] as number;
      if (c === 0x20 || c === 0x09 || c === 0x0d) {
        this.pos++;
      } else if (c === NL) {
        if (this.singleLine) return -1;
        this.pos++;
        this.line++;
        this.lineStart = this.pos;
      } else {
        return c;
      }
    }
  }

  /** 1-based column of `pos`. */
  col(pos = this.pos): number {
    return pos - this.lineStart + 1;
  }

  fail(message: string, pos = this.pos): never {
    throw new JsonSyntaxError(message, this.line, this.col(pos));
  }

  /** Describes the byte at `pos` for error messages. */
  describeHere(): string {
    const c = this.peek();
    if (c < 0) return 'end of input';
    if (c === NL) return 'end of line';
    if (c >= 0x20 && c < 0x7f) return `"${String.fromCharCode(c)}"`;
    return `byte 0x${c.toString(16).padStart(2, '0')}`;
  }

  /** Consumes byte `ch` (after white space) or fails. */
  expect(ch: number, what: string): void {
    const c = this.ws();
    if (c !== ch) this.fail(`expected ${what}, found ${this.describeHere()}`);
    this.pos++;
  }

  /** Drops consumed bytes before `pos` from the source (between elements only). */
  release(): void {
    const shift = this.src.discard(this.pos);
    this.pos -= shift;
    this.lineStart -= shift;
  }

  /** Parses any JSON value into plain data. */
  parseValue(depth = 0): unknown {
    const c = this.ws();
    if (depth > 512) this.fail('nesting too deep');
    switch (c) {
      case 0x7b: // {
        return this.parseObject(depth);
      case 0x5b: // [
        return this.parseArray(depth);
      case QUOTE:
        return this.parseString();
      case 0x74: // t
        this.literal('true');
        return true;
      case 0x66: // f
        this.literal('false');
        return false;
      case 0x6e: // n
        this.literal('null');
        return null;
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber();
        return this.fail(c < 0 ? 'unexpected end of input' : `unexpected ${this.describeHere()}`);
    }
  }

  private parseObject(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++; // {
    let c = this.ws();
    if (c === 0x7d) {
      this.pos++;
      return out;
    }
    for (;;) {
      if (c !== QUOTE) this.fail(`expected a key string, found ${this.describeHere()}`);
      const key = this.parseString();
      this.expect(0x3a, '":"');
      const value = this.parseValue(depth + 1);
      // A key like "__proto__" must not change the prototype of the parsed object.
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      c = this.ws();
      if (c === 0x2c) {
        this.pos++;
        c = this.ws();
      } else if (c === 0x7d) {
        this.pos++;
        return out;
      } else {
        this.fail(`expected "," or "}", found ${this.describeHere()}`);
      }
    }
  }

  private parseArray(depth: number): unknown[] {
    const out: unknown[] = [];
    this.pos++; // [
    let c = this.ws();
    if (c === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.parseValue(depth + 1));
      c = this.ws();
      if (c === 0x2c) {
        this.pos++;
      } else if (c === 0x5d) {
        this.pos++;
        return out;
      } else {
        this.fail(`expected "," or "]", found ${this.describeHere()}`);
      }
    }
  }

  private literal(word: string): void {
    for (let k = 0; k < word.length; k++) {
      if (this.peek() !== word.charCodeAt(k)) this.fail(`invalid literal (expected ${word})`);
      this.pos++;
    }
  }

  /** Byte range of the last string taken by {@link JsonScanner.takePlainString}. */
  strStart = 0;
  strEnd = 0;

  /**
   * Takes a string at `pos` (the opening quote) without building it, when it has no escapes: sets
   * strStart/strEnd and returns true. Returns false, consuming nothing, when it has escapes.
   */
  takePlainString(): boolean {
    const start = this.pos + 1;
    let p = start;
    for (;;) {
      if (p >= this.src.end && !this.src.fill()) this.fail('unterminated string', start - 1);
      const buf = this.src.buf;
      const end = this.src.end;
      while (p < end) {
        const c = buf[p] as number;
        if (c === QUOTE) {
          this.strStart = start;
          this.strEnd = p;
          this.pos = p + 1;
          return true;
        }
        if (c === BACKSLASH) return false;
        if (c < 0x20) this.fail('control character in string (strings may not span lines)', p);
        p++;
      }
    }
  }

  /** Parses a string at `pos` (which holds the opening quote). */
  parseString(): string {
    const start = ++this.pos;
    let p = start;
    let high = false;
    for (;;) {
      if (p >= this.src.end && !this.src.fill()) this.fail('unterminated string', start - 1);
      const buf = this.src.buf;
      const end = this.src.end;
      while (p < end) {
        const c = buf[p] as number;
        if (c === QUOTE) {
          this.pos = p + 1;
          return high ? buf.toString('utf8', start, p) : buf.toString('latin1', start, p);
        }
        if (c === BACKSLASH) return this.parseEscapedString(start, p);
        if (c < 0x20) this.fail('control character in string (strings may not span lines)', p);
        if (c >= 0x80) high = true;
        p++;
      }
    }
  }

  private parseEscapedString(start: number, firstEscape: number): string {
    let out = this.src.buf.toString('utf8', start, firstEscape);
    let p = firstEscape;
    let runStart = p;
    for (;;) {
      if (p >= this.src.end && !this.src.fill()) this.fail('unterminated string', start - 1);
      const buf = this.src.buf;
      const c = buf[p] as number;
      if (c === QUOTE) {
        out += buf.toString('utf8', runStart, p);
        this.pos = p + 1;
        return out;
      }
      if (c < 0x20) this.fail('control character in string', p);
      if (c !== BACKSLASH) {
        p++;
        continue;
      }
      out += buf.toString('utf8', runStart, p);
      this.pos = p + 1;
      const e = this.peek();
      p = this.pos + 1;
      switch (e) {
        case 0x22: out += '"'; break;
        case 0x5c: out += '\\'; break;
        case 0x2f: out += '/'; break;
        case 0x62: out += '\b'; break;
        case 0x66: out += '\f'; break;
        case 0x6e: out += '\n'; break;
        case 0x72: out += '\r'; break;
        case 0x74: out += '\t'; break;
        case 0x75: { // \uXXXX
          let code = 0;
          for (let k = 0; k < 4; k++) {
            this.pos = p + k;
            const h = this.peek();
            const v = hexValue(h);
            if (v < 0) this.fail('invalid \\u escape');
            code = code * 16 + v;
          }
          p += 4;
          out += String.fromCharCode(code);
          break;
        }
        default:
          this.fail('invalid escape in string', this.pos);
      }
      runStart = p;
    }
  }

  /**
   * Parses a number at `pos`, checking JSON's grammar. An integer literal beyond 2^53 - 1 comes back
   * as a bigint, so that it is reported as written (a double would round 9007199254740993 to …992).
   */
  parseNumber(): number | bigint {
    const start = this.pos;
    // Numbers are short: make sure the next 40 bytes (or the rest of the input) are in the buffer,
    // then scan without refilling.
    while (this.src.end - start < 40 && this.src.fill()) {
      /* keep filling */
    }
    const buf = this.src.buf;
    const end = this.src.end;
    let p = start;
    let isPlainInt = true;
    let c = p < end ? (buf[p] as number) : -1;
    if (c === 0x2d) c = ++p < end ? (buf[p] as number) : -1;
    if (c === 0x30) {
      p++;
    } else if (c >= 0x31 && c <= 0x39) {
      while (p < end && (c = buf[p] as number) >= 0x30 && c <= 0x39) p++;
    } else {
      this.fail('invalid number', start);
    }
    c = p < end ? (buf[p] as number) : -1;
    if (c === 0x2e) {
      isPlainInt = false;
      p++;
      if (!(p < end && (c = buf[p] as number) >= 0x30 && c <= 0x39)) this.fail('invalid number: digits expected after "."', p);
      while (p < end && (c = buf[p] as number) >= 0x30 && c <= 0x39) p++;
      c = p < end ? (buf[p] as number) : -1;
    }
    if (c === 0x65 || c === 0x45) {
      isPlainInt = false;
      p++;
      c = p < end ? (buf[p] as number) : -1;
      if (c === 0x2b || c === 0x2d) p++;
      if (!(p < end && (c = buf[p] as number) >= 0x30 && c <= 0x39)) this.fail('invalid number: exponent digits expected', p);
      while (p < end && (c = buf[p] as number) >= 0x30 && c <= 0x39) p++;
    }
    if (p - start > 32) return this.parseLongNumber(start);
    this.pos = p;
    if (isPlainInt && p - start <= 15) {
      let q = start;
      const neg = buf[q] === 0x2d;
      if (neg) q++;
      let v = 0;
      for (; q < p; q++) v = v * 10 + ((buf[q] as number) - 0x30);
      return neg ? -v : v;
    }
    const text = buf.toString('latin1', start, p);
    const v = Number(text);
    return isPlainInt && !Number.isSafeInteger(v) ? BigInt(text) : v;
  }

  /** A number token longer than the scan window (rare): collect it whole, then convert. */
  private parseLongNumber(start: number): number | bigint {
    let p = start;
    for (;;) {
      if (p >= this.src.end && !this.src.fill()) break;
      const c = this.src.buf[p] as number;
      if (!((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45)) break;
      p++;
    }
    this.pos = p;
    const text = this.src.buf.toString('latin1', start, p);
    const v = Number(text);
    if (Number.isNaN(v)) this.fail('invalid number', start);
    return /^-?\d+$/.test(text) && !Number.isSafeInteger(v) ? BigInt(text) : v;
  }

  /** Skips any value without building it. */
  skipValue(): void {
    const c = this.ws();
    if (c === QUOTE) {
      this.parseString();
    } else if (c === 0x7b || c === 0x5b) {
      this.parseValue();
    } else {
      this.parseValue();
    }
  }

  /**
   * Compares the bytes of a just-opened string at `pos` (after the quote) with `word` followed by a
   * closing quote; on a match consumes them and returns true.
   */
  matchStringLiteral(word: string): boolean {
    const n = word.length;
    // make sure n+1 bytes are available
    while (this.pos + n >= this.src.end) if (!this.src.fill()) return false;
    const buf = this.src.buf;
    for (let k = 0; k < n; k++) if (buf[this.pos + k] !== word.charCodeAt(k)) return false;
    if (buf[this.pos + n] !== QUOTE) return false;
    this.pos += n + 1;
    return true;
  }
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}
