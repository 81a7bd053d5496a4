import { z } from 'zod';
import { UsageError } from '../errors.js';
import { parseBytes } from '../util/bytes.js';

/** Validates raw commander options with a zod schema; problems become a usage error naming the flag. */
export function parseOptions<T>(schema: z.ZodType<T>, raw: unknown): T {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const flag = issue && issue.path.length > 0 ? `--${String(issue.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ` : '';
  throw new UsageError(`${flag}${issue?.message ?? 'invalid options'}`);
}

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

/** Collects repeated `--option` flags. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Parses `--option key=value` flags. One flag may hold several pairs separated by commas
 * (`start_step=2,stable_steps=1`); a comma followed by text without `=` stays inside the value, so
 * `conf=expandable_segments:True,max_split_size_mb:128` is one pair. With `prefixed`, keys may be
 * `allocator.key` (for commands that run several allocators).
 */
export function parseOptionPairs(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags) {
    const parts = flag.split(/,(?=\s*[A-Za-z_][\w.-]*\s*=)/);
    for (const part of parts) {
      const eq = part.indexOf('=');
      if (eq <= 0) throw new UsageError(`--option expects key=value, got "${part}"`);
      const key = part.slice(0, eq).trim();
      let value = part.slice(eq + 1).trim();
      if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) {
        value = value.slice(1, -1);
      }
      out[key] = value;
    }
  }
  return out;
}
