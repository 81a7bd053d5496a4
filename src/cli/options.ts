import { z } from 'zod';
import { parseBytes } from '../util/bytes.js';

export { collect, parseOptionPairs, parseOptions } from './flags.js';

/** A byte size given on the command line (`80GiB`, `1.5GiB`, `2GB`, `123`). */
export const bytesArg = z.string().transform((v, ctx) => {
  const p = parseBytes(v);
  if (!p.ok) {
    ctx.issues.push({ code: 'custom', message: p.message, input: v });
    return z.NEVER;
  }
  if (p.bytes <= 0) {
    ctx.issues.push({ code: 'custom', message: `must be positive, got "${v}"`, input: v });
    return z.NEVER;
  }
  return p.bytes;
});

/** A non-negative integer given on the command line. */
export const intArg = z.string().transform((v, ctx) => {
  const n = Number(v);
  if (!/^\s*\d+\s*$/.test(v) || !Number.isSafeInteger(n)) {
    ctx.issues.push({ code: 'custom', message: `expected a non-negative integer, got "${v}"`, input: v });
    return z.NEVER;
  }
  return n;
});

/** `--width N`: the columns text reports keep to. */
export const widthArg = z.string().transform((v, ctx) => {
  const n = Number(v);
  if (!/^\s*\d+\s*$/.test(v) || n < 40 || n > 1000) {
    ctx.issues.push({ code: 'custom', message: `expected a number of columns from 40 to 1000, got "${v}"`, input: v });
    return z.NEVER;
  }
  return n;
});

/** The help of `--width`. */
export const WIDTH_HELP = 'columns the text report keeps to, tables wrapping or leaving out columns to fit (default: the terminal\'s width, else 100)';
