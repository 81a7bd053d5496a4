/**
 * Integers written as ASCII digits straight into a byte buffer, through a DataView over it: four
 * decimal digits per table look-up and per 32-bit store, the length of a group from a table rather
 * than from comparisons (the sizes of a trace follow no pattern a branch predictor could learn). The
 * writers of millions of numbers (`--placements`) spend their time here.
 *
 * A writer may store up to 3 bytes past the end of what it writes (bytes that the next write covers,
 * and that are never part of the output): the caller leaves room for 20 bytes per number.
 */

/** DEC4[n]: the four decimal digits of n (0 <= n < 10^4, zero-padded) as a little-endian word. */
const DEC4 = new Uint32Array(10_000);
/** LEN4[n]: the number of decimal digits of n (0 <= n < 10^4; 1 for 0). */
const LEN4 = new Uint8Array(10_000);
/** HEX2[n]: the two lowercase hexadecimal digits of a byte n as a little-endian 16-bit word. */
const HEX2 = new Uint16Array(256);
const HEX_DIGITS = new TextEncoder().encode('0123456789abcdef');

for (let n = 0; n < 10_000; n++) {
  const d = [Math.floor(n / 1000), Math.floor(n / 100) % 10, Math.floor(n / 10) % 10, n % 10];
  DEC4[n] = ((0x30 + d[0]!) | ((0x30 + d[1]!) << 8) | ((0x30 + d[2]!) << 16) | ((0x30 + d[3]!) << 24)) >>> 0;
  LEN4[n] = n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : 4;
}
for (let n = 0; n < 256; n++) HEX2[n] = (HEX_DIGITS[n >> 4] as number) | ((HEX_DIGITS[n & 15] as number) << 8);

/**
 * Writes `v` (0 <= v < 10^4) without leading zeros: its padded group shifted so that the digits
 * come first (the zeros stored after them are the bytes past the end).
 */
function leadingGroup(v: number, view: DataView, pos: number): number {
  const n = LEN4[v] as number;
  view.setUint32(pos, (DEC4[v] as number) >>> ((4 - n) << 3), true);
  return pos + n;
}

/** Writes a safe integer `v` >= 0 in decimal (as String(v) would); returns the position after it. */
export function asciiDecimal(v: number, view: DataView, pos: number): number {
  if (v >= 100_000_000) return largeDecimal(v, view, pos);
  if (v < 10_000) return leadingGroup(v, view, pos);
  const high = (v / 10_000) | 0;
  const p = leadingGroup(high, view, pos);
  view.setUint32(p, DEC4[v - high * 10_000] as number, true);
  return p + 4;
}

/** {@link asciiDecimal} from 10^8 on. */
function largeDecimal(v: number, view: DataView, pos: number): number {
  // Below 2^53 the quotient (below 10^8 too) and the remainder are exact in double arithmetic.
  const high = Math.floor(v / 100_000_000);
  const low = v - high * 100_000_000;
  const p = asciiDecimal(high, view, pos);
  const lowHigh = (low / 10_000) | 0;
  view.setUint32(p, DEC4[lowHigh] as number, true);
  view.setUint32(p + 4, DEC4[low - lowHigh * 10_000] as number, true);
  return p + 8;
}

/** Writes `v` (0 <= v < 2^32) in lowercase hexadecimal without leading zeros. */
function hex32(v: number, view: DataView, pos: number): number {
  const digits = v === 0 ? 1 : 8 - (Math.clz32(v) >> 2);
  const end = pos + digits;
  let k = end;
  let x = v;
  while (k - pos >= 2) {
    k -= 2;
    view.setUint16(k, HEX2[x & 0xff] as number, true);
    x >>>= 8;
  }
  if (k > pos) view.setUint8(pos, HEX_DIGITS[x & 15] as number);
  return end;
}

/** Writes `x` (0 < x < 2^16) in lowercase hexadecimal without leading zeros: one store. */
function hex16(x: number, view: DataView, pos: number): number {
  const digits = 8 - (Math.clz32(x) >> 2);
  view.setUint32(pos, ((HEX2[x >>> 8] as number) | ((HEX2[x & 0xff] as number) << 16)) >>> ((4 - digits) << 3), true);
  return pos + digits;
}

/** Writes a safe integer `v` >= 0 in lowercase hexadecimal (as v.toString(16)); returns the position after it. */
export function asciiHex(v: number, view: DataView, pos: number): number {
  if (v < 4294967296) return hex32(v >>> 0, view, pos);
  const low = v >>> 0;
  // Exact: a power of two. Addresses of a 64-bit device (BFC's start at 2^40) take the one-store path.
  const high = Math.floor(v * 2.3283064365386963e-10);
  const p = high < 65536 ? hex16(high, view, pos) : hex32(high, view, pos);
  view.setUint32(p, (HEX2[low >>> 24] as number) | ((HEX2[(low >>> 16) & 0xff] as number) << 16), true);
  view.setUint32(p + 4, (HEX2[(low >>> 8) & 0xff] as number) | ((HEX2[low & 0xff] as number) << 16), true);
  return p + 8;
}
