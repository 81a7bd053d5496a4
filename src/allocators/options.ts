import { parseBytes } from '../util/bytes.js';

/** What kind of value an allocator option takes (drives help text and parsing of `--option k=v`). */
export type OptionKind = 'bytes' | 'integer' | 'number' | 'boolean' | 'string' | 'enum';

/** The outcome of checking one option value (the shape of zod's `safeParse`). */
export type OptionParse<T> = { success: true; data: T } | { success: false; error: { issues: { message: string }[] } };

/**
 * How an option's value is checked: it accepts the typed value (library callers) or the text of
 * `--option key=value` (CLI) and yields the value, or the problem in words.
 */
export interface OptionSchema<T> {
  safeParse(raw: unknown): OptionParse<T>;
}

/** Thrown by a check given to {@link optionSchema}: the value is bad, and this says why. */
export class OptionValueError extends Error {
  override name = 'OptionValueError';
}

/**
 * A schema from a plain check that returns the value or throws an {@link OptionValueError}. Option
 * checks are small and hand-written: they load nothing (start-up loads every allocator's options).
 */
export function optionSchema<T>(check: (raw: unknown) => T): OptionSchema<T> {
  return {
    safeParse(raw: unknown): OptionParse<T> {
      try {
        return { success: true, data: check(raw) };
      } catch (e) {
        if (!(e instanceof OptionValueError)) throw e;
        return { success: false, error: { issues: [{ message: e.message }] } };
      }
    },
  };
}

/** Throws an {@link OptionValueError}. */
export function badValue(message: string): never {
  throw new OptionValueError(message);
}

/** How a value that is neither a number nor text reads in a message. */
function shown(v: unknown): string {
  return typeof v === 'string' ? `"${v}"` : String(v);
}

/**
 * One allocator option: its default, a one-line description, and a schema that accepts either the
 * typed value (library callers) or the text of `--option key=value` (CLI) and yields the value.
 */
export interface OptionSpec<T> {
  kind: OptionKind;
  default: T;
  description: string;
  /** Accepted values, for `enum`. */
  values?: readonly string[];
  schema: OptionSchema<T>;
}

type Range = { min?: number; max?: number };

function rangeMessage(name: string, v: number, r: Range): string | undefined {
  if (r.min !== undefined && v < r.min) return `${name} must be at least ${r.min}, got ${v}`;
  if (r.max !== undefined && v > r.max) return `${name} must be at most ${r.max}, got ${v}`;
  return undefined;
}

function numberSchema(integer: boolean, r: Range, nullable: boolean): OptionSchema<number | null> {
  return optionSchema((v) => {
    if (v === null || v === 'null' || v === 'none') {
      if (nullable) return null;
      return badValue('a value is required');
    }
    if (typeof v !== 'number' && typeof v !== 'string') return badValue(`expected ${integer ? 'an integer' : 'a number'}, got ${shown(v)}`);
    const n = typeof v === 'number' ? v : v.trim() === '' ? NaN : Number(v);
    if (!Number.isFinite(n) || (integer && !Number.isSafeInteger(n))) {
      return badValue(`expected ${integer ? 'an integer' : 'a number'}, got "${v}"`);
    }
    const bad = rangeMessage('the value', n, r);
    if (bad) return badValue(bad);
    return n;
  });
}

/** Builders for option specs. Byte options accept `123`, `4KiB`, `1.5GiB`, `2GB`. */
export const opt = {
  bytes(def: number, description: string, r: Range = {}): OptionSpec<number> {
    const schema = optionSchema((v) => {
      let n: number;
      if (typeof v === 'number') {
        n = v;
      } else if (typeof v === 'string') {
        const parsed = parseBytes(v);
        if (!parsed.ok) return badValue(parsed.message);
        n = parsed.bytes;
      } else {
        return badValue(`expected a size in bytes, got ${shown(v)}`);
      }
      if (!Number.isSafeInteger(n)) return badValue(`expected a whole number of bytes, got ${v}`);
      const bad = rangeMessage('the size', n, r);
      if (bad) return badValue(bad);
      return n;
    });
    return { kind: 'bytes', default: def, description, schema };
  },
  integer(def: number, description: string, r: Range = {}): OptionSpec<number> {
    return { kind: 'integer', default: def, description, schema: numberSchema(true, r, false) as OptionSchema<number> };
  },
  /** An integer that may be absent (`null`, written `none` on the command line). */
  optionalInteger(def: number | null, description: string, r: Range = {}): OptionSpec<number | null> {
    return { kind: 'integer', default: def, description, schema: numberSchema(true, r, true) };
  },
  number(def: number, description: string, r: Range = {}): OptionSpec<number> {
    return { kind: 'number', default: def, description, schema: numberSchema(false, r, false) as OptionSchema<number> };
  },
  optionalNumber(def: number | null, description: string, r: Range = {}): OptionSpec<number | null> {
    return { kind: 'number', default: def, description, schema: numberSchema(false, r, true) };
  },
  boolean(def: boolean, description: string): OptionSpec<boolean> {
    const schema = optionSchema((v) => {
      if (typeof v === 'boolean') return v;
      if (typeof v !== 'string') return badValue(`expected true or false, got ${shown(v)}`);
      const t = v.trim().toLowerCase();
      if (t === 'true' || t === '1' || t === 'yes' || t === 'on') return true;
      if (t === 'false' || t === '0' || t === 'no' || t === 'off') return false;
      return badValue(`expected true or false, got "${v}"`);
    });
    return { kind: 'boolean', default: def, description, schema };
  },
  string(def: string, description: string): OptionSpec<string> {
    return { kind: 'string', default: def, description, schema: optionSchema((v) => (typeof v === 'string' ? v : badValue(`expected text, got ${shown(v)}`))) };
  },
  enum<const V extends readonly [string, ...string[]]>(values: V, def: V[number], description: string): OptionSpec<V[number]> {
    const schema = optionSchema((v) => {
      if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as V[number];
      return badValue(`expected one of ${values.join(', ')}, got ${shown(v)}`);
    });
    return { kind: 'enum', default: def, description, values, schema };
  },
};

/** The option values an allocator receives, typed from its specs. */
export type OptionValues<S extends Record<string, OptionSpec<unknown>>> = {
  [K in keyof S]: S[K] extends OptionSpec<infer T> ? T : never;
};
