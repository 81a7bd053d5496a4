/**
 * Decoding of the C-escaped strings of the protobuf text format (absl::CEscape on the printing side:
 * `\n \r \t \" \' \\`, and every byte outside printable ASCII as three octal digits), plus the
 * escapes protobuf's parser also accepts (`\a \b \f \v \?`, `\xHH`, `\uXXXX`, `\UXXXXXXXX`).
 */
import { TextProtoError } from './text-proto-error.js';

/** The byte each one-letter C escape stands for (`\n` -> 10), -1 for letters that are not one. */
const SIMPLE_ESCAPES = new Int16Array(128).fill(-1);
for (const [letter, byte] of [['n', 10], ['t', 9], ['r', 13], ['a', 7], ['b', 8], ['f', 12], ['v', 11], ['\\', 0x5c], ["'", 0x27], ['"', 0x22], ['?', 0x3f]] as const) {
  SIMPLE_ESCAPES[letter.charCodeAt(0)] = byte;
}

/** The value of a hexadecimal digit, -1 for other bytes. */
export const hexValue = (c: number): number => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1);

const decodeError = (message: string, at: number): TextProtoError => new TextProtoError(message, at);

/** Decodes quoted strings into one reusable buffer: the value is `bytes[0, length)`. */
export class CStringDecoder {
  bytes = Buffer.allocUnsafe(256);
  length = 0;
  private buf: Uint8Array = new Uint8Array(0);
  private end = 0;

  /** Empties the value (adjacent strings are appended to it until the next reset). */
  reset(): void {
    this.length = 0;
  }

  /**
   * Decodes the string that starts after its opening `quote` at `s` in `buf[.., end)`, appending it
   * to the value; returns the position after the closing quote.
   */
  decode(buf: Uint8Array, s: number, end: number, quote: number): number {
    this.buf = buf;
    this.end = end;
    return this.unescape(s, quote);
  }

  /** Appends bytes `[s, e)` of `src` as they are. */
  append(src: Uint8Array, s: number, e: number): void {
    const n = e - s;
    this.reserve(n);
    for (let i = 0; i < n; i++) this.bytes[this.length + i] = src[s + i] as number;
    this.length += n;
  }

  private reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + n));
    this.bytes.copy(next, 0, 0, this.length);
    this.bytes = next;
  }

  private putByte(b: number): void {
    this.reserve(1);
    this.bytes[this.length++] = b;
  }

  private unescape(s: number, quote: number): number {
    const buf = this.buf;
    let i = s;
    for (;;) {
      if (i >= this.end || buf[i] === 0x0a) throw decodeError('unterminated string: the closing quote is missing', s - 1);
      const c = buf[i] as number;
      if (c === quote) return i + 1;
      if (c !== 0x5c) {
        this.putByte(c);
        i++;
        continue;
      }
      i = this.escape(i);
    }
  }

  /** Decodes the escape at `i` (a backslash); returns the position after it. */
  private escape(i: number): number {
    const buf = this.buf;
    const c = i + 1 < this.end ? (buf[i + 1] as number) : -1;
    const mapped = c >= 0 && c < 128 ? (SIMPLE_ESCAPES[c] as number) : -1;
    if (mapped >= 0) {
      this.putByte(mapped);
      return i + 2;
    }
    if (c >= 0x30 && c <= 0x37) {
      // Up to three octal digits: CEscape writes every byte outside printable ASCII as \ooo.
      let v = 0;
      let j = i + 1;
      while (j < i + 4 && j < this.end && (buf[j] as number) >= 0x30 && (buf[j] as number) <= 0x37) v = v * 8 + (buf[j++] as number) - 0x30;
      if (v > 255) throw decodeError('octal escape above \\377', i);
      this.putByte(v);
      return j;
    }
    if (c === 0x78 || c === 0x58) {
      let v = 0;
      let j = i + 2;
      let h: number;
      while (j < i + 4 && j < this.end && (h = hexValue(buf[j] as number)) >= 0) {
        v = v * 16 + h;
        j++;
      }
      if (j === i + 2) throw decodeError('expected hexadecimal digits after \\x', i);
      this.putByte(v);
      return j;
    }
    if (c === 0x75 || c === 0x55) {
      const digits = c === 0x75 ? 4 : 8;
      let v = 0;
      for (let j = i + 2; j < i + 2 + digits; j++) {
        const h = j < this.end ? hexValue(buf[j] as number) : -1;
        if (h < 0) throw decodeError(`expected ${digits} hexadecimal digits after \\${String.fromCharCode(c)}`, i);
        v = v * 16 + h;
      }
      if (v > 0x10ffff) throw decodeError('code point above U+10FFFF', i);
      const bytes = Buffer.from(String.fromCodePoint(v), 'utf8');
      this.append(bytes, 0, bytes.length);
      return i + 2 + digits;
    }
    throw decodeError(`invalid escape ${c >= 0x21 && c <= 0x7e ? `'\\${String.fromCharCode(c)}'` : 'at the end of the string'}`, i);
  }
}
