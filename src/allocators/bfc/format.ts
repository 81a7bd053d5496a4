/**
 * The number formatting TensorFlow's BFC dump uses, reproduced digit for digit: tsl's
 * `strings::HumanReadableNumBytes` (integer division by 1024, then printf `%.1f`/`%.2f`, which rounds
 * halves to even on the exact binary value) and the `%20lld` columns of `AllocatorStats::DebugString`.
 */

const UNITS = 'KMGTPE';

/**
 * `x / 1024` printed with `decimals` digits as glibc's printf does (round half to even on the exact
 * value). Exact because x / 1024 is a dyadic rational: everything is done in integers.
 */
function fixedOver1024(x: number, decimals: 1 | 2): string {
  const scale = decimals === 1 ? 10 : 100;
  const num = x * scale; // exact: x < 2^20 here
  let q = Math.floor(num / 1024);
  const r = num - q * 1024;
  if (r * 2 > 1024 || (r * 2 === 1024 && q % 2 === 1)) q++;
  const whole = Math.floor(q / scale);
  const frac = String(q - whole * scale).padStart(decimals, '0');
  return `${whole}.${frac}`;
}

/**
 * As tsl `strings::HumanReadableNumBytes`: `768B`, `976.8KiB`, `1024.00MiB`, `2.00GiB`. Below 1 MiB
 * the unit is KiB with one decimal; above, the value is divided (truncating) by 1024 until it is
 * under 1024·1024 and printed with two decimals.
 */
export function humanReadableNumBytes(bytes: number): string {
  const neg = bytes < 0 ? '-' : '';
  let n = Math.abs(bytes);
  if (n < 1024) return `${neg}${n}B`;
  let unit = 0;
  while (n >= 1024 * 1024) {
    n = Math.floor(n / 1024);
    unit++;
  }
  return `${neg}${fixedOver1024(n, unit === 0 ? 1 : 2)}${UNITS[unit]}iB`;
}

/** printf `%-18s%20lld`: a label left-aligned in 18 columns and a number right-aligned in 20. */
export function statsRow(label: string, value: number): string {
  return label.padEnd(18) + String(value).padStart(20);
}

/** `strings::Hex` of an address: lowercase, no `0x`, no padding. */
export function hex(address: number): string {
  return address.toString(16);
}

/** How TensorFlow prints an invalid `ChunkHandle` (`SIZE_MAX` as an unsigned 64-bit number). */
export const INVALID_HANDLE_TEXT = '18446744073709551615';
