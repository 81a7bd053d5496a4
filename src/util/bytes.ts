/**
 * Byte quantities: parsing user input (`123`, `4KiB`, `1.5GiB`, `2GB`) and formatting for reports.
 * The core always works in exact integer bytes; only reports format them.
 */

const UNITS: Record<string, number> = {
  b: 1,
  k: 1024, kb: 1000, kib: 1024,
  m: 1024 ** 2, mb: 1000 ** 2, mib: 1024 ** 2,
  g: 1024 ** 3, gb: 1000 ** 3, gib: 1024 ** 3,
  t: 1024 ** 4, tb: 1000 ** 4, tib: 1024 ** 4,
  p: 1024 ** 5, pb: 1000 ** 5, pib: 1024 ** 5,
};

/**
 * Parses a byte quantity. Binary units (KiB, MiB, GiB, TiB, PiB, and the bare K/M/G/T/P) are powers
 * of 1024; decimal units (KB, MB, GB, TB, PB) are powers of 1000. Fractions are allowed when the
 * result is a whole number of bytes (`1.5KiB` = 1536; `1.5B` is an error).
 * @returns the exact number of bytes, or an error message.
 */
export function parseBytes(text: string): { ok: true; bytes: number } | { ok: false; message: string } {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) return { ok: false, message: `"${text}" is not a byte size (examples: 123, 4KiB, 1.5GiB, 2GB)` };
  const [, num = '', unitRaw = ''] = m;
  const unit = unitRaw.toLowerCase();
  const mult = unit === '' ? 1 : UNITS[unit];
  if (mult === undefined) {
    return { ok: false, message: `unknown unit "${unitRaw}" in "${text}" (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)` };
  }
  const bytes = exactProduct(num, mult);
  if (bytes === undefined) return { ok: false, message: `"${text}" is not a whole number of bytes` };
  if (!Number.isSafeInteger(bytes)) return { ok: false, message: `"${text}" is too large (over 2^53 bytes)` };
  return { ok: true, bytes };
}

/** num (a decimal string) times mult, when that is an integer; computed without binary rounding. */
function exactProduct(num: string, mult: number): number | undefined {
  const [whole = '', frac = ''] = num.split('.');
  const scale = 10 ** frac.length;
  const scaled = BigInt((whole || '0') + frac) * BigInt(mult);
  if (scaled % BigInt(scale) !== 0n) return undefined;
  return Number(scaled / BigInt(scale));
}

const IEC = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/**
 * Human-readable IEC bytes for reports: `512 B`, `1.50 KiB`, `3.00 GiB`: whole bytes below 1 KiB,
 * else two decimals and never four digits before the point: from 1000 of a unit (as shown, after
 * rounding) the next unit is used (`1006 MiB` is `0.98 GiB`), so that figures side by side read in
 * the same unit.
 * Exact byte counts stay available in JSON; this is for reading.
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'unlimited';
  const neg = bytes < 0;
  let v = Math.abs(bytes);
  let i = 0;
  while ((i === 0 ? v >= 1024 : Number(v.toFixed(2)) >= 1000) && i < IEC.length - 1) {
    v /= 1024;
    i++;
  }
  const text = i === 0 ? `${v} B` : `${v.toFixed(2)} ${IEC[i]}`;
  return neg ? `-${text}` : text;
}

/** Formats a ratio in [0, 1] as a percentage with one decimal. */
export function formatPercent(ratio: number): string {
  if (!Number.isFinite(ratio)) return '–';
  return `${(ratio * 100).toFixed(1)}%`;
}

/** Lowercase hexadecimal with a 0x prefix, for addresses. */
export function formatHex(address: number): string {
  return `0x${address.toString(16)}`;
}

/** An integer with thin thousands separators (`12,345`), independent of the locale. */
export function formatCount(n: number): string {
  const s = String(Math.trunc(Math.abs(n)));
  const out = s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${out}` : out;
}
