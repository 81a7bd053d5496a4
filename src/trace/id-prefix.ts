/**
 * Ids written as a short prefix and a number (`w0`, `a123`, `g4980215`: what `memsim gen` and many
 * tools write): the id table keeps them as a prefix index and a number, with no hashing and no bytes
 * per id, as it keeps plain numbers (see id-table.ts).
 */
import { NOT_DECIMAL } from './id-decimal.js';

/** Prefixes longer than this are ids like any other. */
const MAX_PREFIX_BYTES = 8;
/** Distinct prefixes a table tells apart by index (0 is the empty prefix of plain numbers). */
const MAX_PREFIXES = 255;

/** Where the number of the last id {@link prefixedNumber} accepted starts. */
export let prefixEnd = 0;

/**
 * The number of an id made of 1 to 8 non-digit bytes and a plain decimal number below 2^31 (no
 * leading zero), else {@link NOT_DECIMAL}; its prefix ends at {@link prefixEnd}.
 */
export function prefixedNumber(buf: Uint8Array, s: number, e: number): number {
  let d = s;
  while (d < e && d - s <= MAX_PREFIX_BYTES) {
    const c = (buf[d] as number) - 0x30;
    if (c >= 0 && c <= 9) break;
    d++;
  }
  const digits = e - d;
  if (d === s || d - s > MAX_PREFIX_BYTES || digits === 0 || digits > 10) return NOT_DECIMAL;
  const first = (buf[d] as number) - 0x30;
  if (first === 0 && digits > 1) return NOT_DECIMAL;
  let v = first;
  for (let i = d + 1; i < e; i++) {
    const c = (buf[i] as number) - 0x30;
    if (c < 0 || c > 9) return NOT_DECIMAL;
    v = v * 10 + c;
  }
  if (v >= 2 ** 31) return NOT_DECIMAL;
  prefixEnd = d;
  return v;
}

/** The prefixes of a table's ids, by index. */
export class IdPrefixes {
  /** index -> prefix text; 0 is the empty prefix. */
  texts: string[] = [''];
  private bytes: Uint8Array[] = [new Uint8Array(0)];

  /**
   * The index of prefix bytes [s, e) of `buf`: an existing one, else a new one when `add` (or -1 when
   * there is no room), else -1.
   */
  indexOf(buf: Uint8Array, s: number, e: number, add: boolean): number {
    const n = e - s;
    const all = this.bytes;
    for (let k = 1; k < all.length; k++) {
      const p = all[k] as Uint8Array;
      if (p.length !== n) continue;
      let j = 0;
      while (j < n && p[j] === buf[s + j]) j++;
      if (j === n) return k;
    }
    if (!add || all.length > MAX_PREFIXES) return -1;
    // A copy: a Buffer's slice is a view of memory that the reader reuses.
    all.push(Uint8Array.prototype.slice.call(buf, s, e));
    this.texts.push(Buffer.from(buf.buffer, buf.byteOffset + s, n).toString('utf8'));
    return all.length - 1;
  }

  /** The bytes of prefix `k`. */
  bytesOf(k: number): Uint8Array {
    return this.bytes[k] as Uint8Array;
  }

  /** A table holding the given prefix texts (another thread's, see IdTable.reading). */
  static of(texts: string[]): IdPrefixes {
    const p = new IdPrefixes();
    p.texts = [...texts];
    p.bytes = texts.map((t) => new Uint8Array(Buffer.from(t, 'utf8')));
    return p;
  }
}
