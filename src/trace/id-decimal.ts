/** Ids that are plain decimal numbers, which the id table holds by their value (see id-table.ts). */

/** {@link decimalId}: the id is not a plain decimal number that the direct table may hold. */
export const NOT_DECIMAL = -1;
/** Plain decimal ids below this go through the direct table (when it is dense enough, see below). */
const MAX_DIRECT = 2 ** 31;

/**
 * The value of an id written as a plain decimal number below 2^31 (`0` or a digit 1-9 followed by
 * digits), else {@link NOT_DECIMAL}. Two ids with the same value are the same bytes.
 */
export function decimalId(buf: Uint8Array, s: number, e: number): number {
  const n = e - s;
  if (n === 0 || n > 10) return NOT_DECIMAL;
  const first = (buf[s] as number) - 0x30;
  if (first < 0 || first > 9 || (first === 0 && n > 1)) return NOT_DECIMAL;
  let v = first;
  for (let i = s + 1; i < e; i++) {
    const d = (buf[i] as number) - 0x30;
    if (d < 0 || d > 9) return NOT_DECIMAL;
    v = v * 10 + d;
  }
  return v < MAX_DIRECT ? v : NOT_DECIMAL;
}

/** Writes a non-negative integer below 2^53 in decimal into `out` at `pos`; returns the position after it. */
export function writeDecimal(v: number, out: Uint8Array, pos: number): number {
  if (v < 2 ** 31) {
    // Small integer arithmetic: most sizes, events and ids.
    let x = v | 0;
    const digits = x < 10 ? 1 : x < 100 ? 2 : x < 1000 ? 3 : x < 1e4 ? 4 : x < 1e5 ? 5 : x < 1e6 ? 6 : x < 1e7 ? 7 : x < 1e8 ? 8 : x < 1e9 ? 9 : 10;
    let k = pos + digits;
    const end = k;
    do {
      const q = (x / 10) | 0;
      out[--k] = 0x30 + x - q * 10;
      x = q;
    } while (x > 0);
    return end;
  }
  let digits = 1;
  for (let t = v; t >= 10; t = Math.floor(t / 10)) digits++;
  let k = pos + digits;
  const end = k;
  do {
    const q = Math.floor(v / 10);
    out[--k] = 0x30 + (v - q * 10);
    v = q;
  } while (v > 0);
  return end;
}
