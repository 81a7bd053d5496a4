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
  /**
   * Where {@link internString} encodes its text: one buffer for every call, not a new one per string
   * (each new buffer is memory the collector is told of, and costs microseconds while a large trace
   * is read).
   */
  private scratch = Buffer.alloc(256);

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
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (text.length * 3 > this.scratch.length) this.scratch = Buffer.alloc(Math.max(text.length * 3, this.scratch.length * 2));
    const b = this.scratch;
    const n = encoder.encodeInto(text, b).written;
    const h = hashBytes(b, 0, n);
    const a = this.keys.find(b, 0, n, h);
    if (a >= 0) return a;
    this.strings.push(b.toString('utf8', 0, n));
    return this.keys.add(b, 0, n, h, true);
  }
}
