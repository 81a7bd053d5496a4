import { hashBytes, IdTable } from './id-table.js';

const encoder = new TextEncoder();

/**
 * Interned strings (tags) keyed by their bytes: a repeated tag costs a hash and a compare, and its
 * string is made once.
 */
export class StringInterner {
  /** index -> string; index 0 is the empty string. */
  readonly strings: string[] = [''];
  /** Keys in the same order as `strings`, so an entry's number is its index. */
  private readonly keys = new IdTable(1 << 12);

  constructor() {
    const empty = new Uint8Array(0);
    this.keys.add(empty, 0, 0, hashBytes(empty, 0, 0));
  }

  /** Index of the string in bytes [s, e) of `buf`, adding it when new. */
  intern(buf: Uint8Array, s: number, e: number): number {
    const h = hashBytes(buf, s, e);
    const a = this.keys.find(buf, s, e, h);
    if (a >= 0) return a;
    this.strings.push(Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('utf8'));
    return this.keys.add(buf, s, e, h, true);
  }

  /** Index of a string, adding it when new. */
  internString(text: string): number {
    const b = encoder.encode(text);
    return this.intern(b, 0, b.length);
  }
}
