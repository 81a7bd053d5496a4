/**
 * Command-line flags checked at the edge without a schema library: the commands on the start-up path
 * (`replay`, `validate`) validate their raw commander options with these, which load nothing (the
 * others use zod, see options.ts). A flag schema has zod's `safeParse` shape, so {@link parseOptions}
 * takes either.
 */
import { UsageError } from '../errors.js';
import { parseBytes } from '../util/bytes.js';

/** One issue, as zod reports it: the flag's key and the problem. */
export interface FlagIssue {
  path: readonly PropertyKey[];
  message: string;
}

/** What {@link parseOptions} needs of a schema: zod's, or one made by {@link flagSchema}. */
export interface OptionsSchema<T> {
  safeParse(raw: unknown): { success: true; data: T } | { success: false; error: { issues: FlagIssue[] } };
}

/** Validates raw commander options with a schema; problems become a usage error naming the flag. */
export function parseOptions<T>(schema: OptionsSchema<T>, raw: unknown): T {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const flag = issue && issue.path.length > 0 ? `--${String(issue.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ` : '';
  throw new UsageError(`${flag}${issue?.message ?? 'invalid options'}`);
}

/** Thrown by a flag's check: the value is bad, and this says why. */
class FlagError extends Error {}

/** A flag's check: the raw value commander gives (undefined when absent) to the typed value. */
export type Flag<T> = (raw: unknown) => T;

/** A schema over a command's flags, each checked by its {@link Flag}. */
export function flagSchema<F extends Record<string, Flag<unknown>>>(fields: F): OptionsSchema<{ [K in keyof F]: ReturnType<F[K]> }> {
  return {
    safeParse(raw) {
      const given = (raw ?? {}) as Record<string, unknown>;
      const data: Record<string, unknown> = {};
      for (const [key, check] of Object.entries(fields)) {
        try {
          data[key] = check(given[key]);
        } catch (e) {
          if (!(e instanceof FlagError)) throw e;
          return { success: false, error: { issues: [{ path: [key], message: e.message }] } };
        }
      }
      return { success: true, data: data as { [K in keyof F]: ReturnType<F[K]> } };
    },
  };
}

function fail(message: string): never {
  throw new FlagError(message);
}

/** Flag checks, as zod's builders are used for flags: absent values are undefined unless defaulted. */
export const flag = {
  string: (): Flag<string | undefined> => (v) => (v === undefined || typeof v === 'string' ? v : fail(`expected text, got ${String(v)}`)),
  /** Text that must not be empty. */
  name: (what: string): Flag<string | undefined> => (v) => (v === undefined ? undefined : typeof v === 'string' && v !== '' ? v : fail(`expected ${what}`)),
  required: (): Flag<string> => (v) => (typeof v === 'string' ? v : fail('a value is required')),
  boolean: (def: boolean): Flag<boolean> => (v) => (v === undefined ? def : typeof v === 'boolean' ? v : fail(`expected true or false, got ${String(v)}`)),
  list: (): Flag<string[]> => (v) => (v === undefined ? [] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : fail('expected a list of values')),
  oneOf:
    <const V extends readonly [string, ...string[]]>(values: V, def: V[number]): Flag<V[number]> =>
    (v) => {
      if (v === undefined) return def;
      if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as V[number];
      return fail(`expected one of ${values.map((x) => `"${x}"`).join(', ')}, got ${JSON.stringify(v)}`);
    },
  /** One of `values`, or undefined when absent. */
  maybeOneOf:
    <const V extends readonly [string, ...string[]]>(values: V): Flag<V[number] | undefined> =>
    (v) => {
      if (v === undefined) return undefined;
      if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as V[number];
      return fail(`expected one of ${values.map((x) => `"${x}"`).join(', ')}, got ${JSON.stringify(v)}`);
    },
  /** A positive byte size (`80GiB`, `1.5GiB`, `2GB`, `123`), or undefined when absent. */
  bytes: (): Flag<number | undefined> => (v) => {
    if (v === undefined) return undefined;
    if (typeof v !== 'string') return fail(`expected a size, got ${String(v)}`);
    const p = parseBytes(v);
    if (!p.ok) return fail(p.message);
    if (p.bytes <= 0) return fail(`must be positive, got "${v}"`);
    return p.bytes;
  },
  /** A whole number from `min` to `max` written in digits, or undefined when absent. */
  between: (min: number, max: number): Flag<number | undefined> => (v) => {
    if (v === undefined) return undefined;
    const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
    return n >= min && n <= max ? n : fail(`expected a whole number between ${min} and ${max}, got ${JSON.stringify(v)}`);
  },
  /** A non-negative integer written in digits, or undefined when absent. */
  digits: (what: string): Flag<number | undefined> => (v) => (v === undefined ? undefined : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : fail(`expected ${what}`)),
};

/** Collects repeated flags (`--option a=1 --option b=2`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Parses `--option key=value` flags. One flag may hold several pairs separated by commas
 * (`start_step=2,stable_steps=1`); a comma followed by text without `=` stays inside the value, so
 * `conf=expandable_segments:True,max_split_size_mb:128` is one pair.
 */
export function parseOptionPairs(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flagText of flags) {
    const parts = flagText.split(/,(?=\s*[A-Za-z_][\w.-]*\s*=)/);
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
