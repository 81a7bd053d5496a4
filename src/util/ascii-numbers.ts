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

// Filled at start-up (every `memsim replay` loads this module): digit by digit, the thousands' in the
// outer loop and in the low byte, with no array or division per entry (those took some 10 ms, and
// their loop was compiled by the optimizing compiler in the background, which the process then
// waited for at its exit).
let entry = 0;
for (let a = 0x30; a <= 0x39; a++) {
  for (let b = 0x30; b <= 0x39; b++) {
    for (let c = 0x30; c <= 0x39; c++) {
      const abc = a | (b << 8) | (c << 16);
      for (let d = 0x30; d <= 0x39; d++) DEC4[entry++] = abc | (d << 24);
    }
  }
}
LEN4.fill(4).fill(3, 0, 1000).fill(2, 0, 100).fill(1, 0, 10);
for (let n = 0; n < 256; n++) HEX2[n] = (HEX_DIGITS[n >> 4] as number) | ((HEX_DIGITS[n & 15] as number) << 8);

/**
 * Writes a safe integer `v` >= 0 in decimal (as String(v) would); returns the position after it.
 *
 * Below 10^8 (every number of a trace's placements but the largest sizes) it is one function with no
 * call in it, small enough that V8 inlines it at each of the four places a placement line writes a
 * decimal (a call per number, which it did not inline, cost most of a line's instructions). The
 * value is taken as an int32 there, so that the divisions by 10^4 are multiplications.
 */
export function asciiDecimal(v: number, view: DataView, pos: number): number {
  if (!(v < 100_000_000)) return largeDecimal(v, view, pos);
  const x = v | 0;
  const high = (x / 10_000) | 0;
  // The leading group without its leading zeros (shifted out: the zeros stored after its digits
  // are covered by what follows), then, past 10^4, the low group's four digits.
  const lead = high === 0 ? x : high;
  const n = LEN4[lead] as number;
  view.setUint32(pos, (DEC4[lead] as number) >>> ((4 - n) << 3), true);
  if (high === 0) return pos + n;
  view.setUint32(pos + n, DEC4[x - high * 10_000] as number, true);
  return pos + n + 4;
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

/**
 * Writes a safe integer `v` >= 0 in lowercase hexadecimal (as v.toString(16)); returns the position
 * after it. Addresses of a 64-bit device (BFC's start at 2^40, the caching allocator's at 0x7f << 40),
 * from 2^32 to 2^48, are written with no call: the high 16 bits in one store, the low 32 in two.
 */
export function asciiHex(v: number, view: DataView, pos: number): number {
  if (!(v >= 4294967296 && v < 281474976710656)) return otherHex(v, view, pos);
  // Exact: a power of two.
  const high = Math.floor(v * 2.3283064365386963e-10);
  const low = v - high * 4294967296;
  const digits = 8 - (Math.clz32(high) >> 2);
  view.setUint32(pos, ((HEX2[high >>> 8] as number) | ((HEX2[high & 0xff] as number) << 16)) >>> ((4 - digits) << 3), true);
  const p = pos + digits;
  view.setUint32(p, (HEX2[low >>> 24] as number) | ((HEX2[(low >>> 16) & 0xff] as number) << 16), true);
  view.setUint32(p + 4, (HEX2[(low >>> 8) & 0xff] as number) | ((HEX2[low & 0xff] as number) << 16), true);
  return p + 8;
}

/** {@link asciiHex} below 2^32 and from 2^48 on. */
function otherHex(v: number, view: DataView, pos: number): number {
  if (v < 4294967296) return hex32(v >>> 0, view, pos);
  const low = v >>> 0;
  const p = hex32(Math.floor(v * 2.3283064365386963e-10), view, pos);
  view.setUint32(p, (HEX2[low >>> 24] as number) | ((HEX2[(low >>> 16) & 0xff] as number) << 16), true);
  view.setUint32(p + 4, (HEX2[(low >>> 8) & 0xff] as number) | ((HEX2[low & 0xff] as number) << 16), true);
  return p + 8;
}
