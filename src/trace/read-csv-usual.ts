/**
 * The CSV loop of the usual header (`op,id,size,step`, as the peers' traces and most exports have
 * it): the hottest path of reading a CSV trace, kept apart from the loop for any header.
 */
import type { TraceBuilder } from './builder.js';
import type { CsvScanner } from './csv.js';

/** Plain integers have at most this many digits (below 2^53). */
export const MAX_DIGITS = 15;

/**
 * read-csv.ts's plain-record loop (plainSpan) for the usual header, whose records it reads without
 * looking up their columns' roles: `alloc` or `free`, a decimal id below 2^31 written without leading
 * zeros, then plain decimal integers. Stops (returning false) at the first record that is anything
 * else, which that loop reads (or hands to the general path) as it would any.
 */
export function usualSpan(sc: CsvScanner, b: TraceBuilder, limit: number): boolean {
  const src = sc.src;
  const buf = src.buf;
  const end = src.end;
  let p = sc.pos;
  let line = sc.nextLine;
  let atLimit = true;
  while (p < limit) {
    const rs = p;
    const first = buf[p] as number;
    let alloc: boolean;
    if (first === 0x61 && buf[p + 1] === 0x6c && buf[p + 2] === 0x6c && buf[p + 3] === 0x6f && buf[p + 4] === 0x63 && buf[p + 5] === 0x2c) {
      alloc = true;
      p += 6;
    } else if (first === 0x66 && buf[p + 1] === 0x72 && buf[p + 2] === 0x65 && buf[p + 3] === 0x65 && buf[p + 4] === 0x2c) {
      alloc = false;
      p += 5;
    } else {
      atLimit = false;
      break;
    }
    // The id: at most 9 digits (below 2^31 then), the first not 0 unless it is the only one.
    const is = p;
    let id = 0;
    let d = 0;
    while (p < end && (d = (buf[p] as number) - 0x30) >= 0 && d <= 9) {
      id = id * 10 + d;
      p++;
    }
    // Each operation here runs on every record: one that ran on none before V8 compiled the loop
    // (`p - is > 1` after a leading 0, say) would throw the compiled loop away where it first runs.
    const idDigits = p - is;
    const leadingZero = buf[is] === 0x30;
    if (idDigits === 0 || idDigits > 9 || (idDigits > 1 && leadingZero) || p >= end || buf[p] !== 0x2c) {
      p = rs;
      atLimit = false;
      break;
    }
    const ss = ++p;
    let size = 0;
    while (p < end && (d = (buf[p] as number) - 0x30) >= 0 && d <= 9) {
      size = size * 10 + d;
      p++;
    }
    const sizeDigits = p - ss;
    if (sizeDigits > MAX_DIGITS || (alloc && sizeDigits === 0) || p >= end || buf[p] !== 0x2c) {
      p = rs;
      atLimit = false;
      break;
    }
    const ts = ++p;
    let step = 0;
    while (p < end && (d = (buf[p] as number) - 0x30) >= 0 && d <= 9) {
      step = step * 10 + d;
      p++;
    }
    const stepDigits = p - ts;
    if (stepDigits > MAX_DIGITS || p >= end) {
      p = rs;
      atLimit = false;
      break;
    }
    if (buf[p] === 0x0a) {
      p++;
    } else if (buf[p] === 0x0d && p + 1 < end && buf[p + 1] === 0x0a) {
      p += 2;
    } else {
      p = rs;
      atLimit = false;
      break;
    }
    const stepValue = stepDigits === 0 ? NaN : step;
    // An event that the builder's short path does not take (the first id past its direct table, an
    // id that is live, …) is left to plainSpan: handled here, that rare case would be code that V8
    // compiled without having seen it run, and thrown away when it first runs.
    if (!(alloc ? b.addDecimalAlloc(id, size, stepValue, line) : b.addDecimalFree(id, sizeDigits === 0 ? NaN : size, stepValue, line))) {
      p = rs;
      atLimit = false;
      break;
    }
    line++;
  }
  sc.pos = p;
  sc.nextLine = line;
  return atLimit;
}
