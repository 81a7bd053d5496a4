import { z } from 'zod';
import { parseBytes } from '../util/bytes.js';

/** What kind of value an allocator option takes (drives help text and parsing of `--option k=v`). */
export type OptionKind = 'bytes' | 'integer' | 'number' | 'boolean' | 'string' | 'enum';

/**
 * One allocator option: its default, a one-line description, and a zod schema that accepts either
 * the typed value (library callers) or the text of `--option key=value` (CLI) and yields the value.
 */
export interface OptionSpec<T> {
  kind: OptionKind;
  default: T;
  description: string;
  /** Accepted values, for `enum`. */
  values?: readonly string[];
  schema: z.ZodType<T>;
}

type Range = { min?: number; max?: number };

function rangeMessage(name: string, v: number, r: Range): string | undefined {
  if (r.min !== undefined && v < r.min) return `${name} must be at least ${r.min}, got ${v}`;
  if (r.max !== undefined && v > r.max) return `${name} must be at most ${r.max}, got ${v}`;
  return undefined;
}

function numberSchema(integer: boolean, r: Range, nullable: boolean): z.ZodType<number | null> {
  return z.union([z.number(), z.string(), z.null()]).transform((v, ctx) => {
    if (v === null || v === 'null' || v === 'none') {
      if (nullable) return null;
      ctx.issues.push({ code: 'custom', message: 'a value is required', input: v });
      return z.NEVER;
    }
    const n = typeof v === 'number' ? v : v.trim() === '' ? NaN : Number(v);
    if (!Number.isFinite(n) || (integer && !Number.isSafeInteger(n))) {
      ctx.issues.push({ code: 'custom', message: `expected ${integer ? 'an integer' : 'a number'}, got "${v}"`, input: v });
      return z.NEVER;
    }
    const bad = rangeMessage('the value', n, r);
    if (bad) {
      ctx.issues.push({ code: 'custom', message: bad, input: v });
      return z.NEVER;
    }
    return n;
  });
}

/** Builders for option specs. Byte options accept `123`, `4KiB`, `1.5GiB`, `2GB`. */
export const opt = {
  bytes(def: number, description: string, r: Range = {}): OptionSpec<number> {
    const schema = z.union([z.number(), z.string()]).transform((v, ctx) => {
      let n: number;
      if (typeof v === 'number') {
        n = v;
      } else {
        const parsed = parseBytes(v);
        if (!parsed.ok) {
          ctx.issues.push({ code: 'custom', message: parsed.message, input: v });
          return z.NEVER;
        }
        n = parsed.bytes;
      }
      if (!Number.isSafeInteger(n)) {
        ctx.issues.push({ code: 'custom', message: `expected a whole number of bytes, got ${v}`, input: v });
        return z.NEVER;
      }
      const bad = rangeMessage('the size', n, r);
      if (bad) {
        ctx.issues.push({ code: 'custom', message: bad, input: v });
        return z.NEVER;
      }
      return n;
    });
    return { kind: 'bytes', default: def, description, schema };
  },
  integer(def: number, description: string, r: Range = {}): OptionSpec<number> {
    return { kind: 'integer', default: def, description, schema: numberSchema(true, r, false) as z.ZodType<number> };
  },
  /** An integer that may be absent (`null`, written `none` on the command line). */
  optionalInteger(def: number | null, description: string, r: Range = {}): OptionSpec<number | null> {
    return { kind: 'integer', default: def, description, schema: numberSchema(true, r, true) };
  },
  number(def: number, description: string, r: Range = {}): OptionSpec<number> {
    return { kind: 'number', default: def, description, schema: numberSchema(false, r, false) as z.ZodType<number> };
  },
  optionalNumber(def: number | null, description: string, r: Range = {}): OptionSpec<number | null> {
    return { kind: 'number', default: def, description, schema: numberSchema(false, r, true) };
  },
  boolean(def: boolean, description: string): OptionSpec<boolean> {
    const schema = z.union([z.boolean(), z.string()]).transform((v, ctx) => {
      if (typeof v === 'boolean') return v;
      const t = v.trim().toLowerCase();
      if (t === 'true' || t === '1' || t === 'yes' || t === 'on') return true;
      if (t === 'false' || t === '0' || t === 'no' || t === 'off') return false;
      ctx.issues.push({ code: 'custom', message: `expected true or false, got "${v}"`, input: v });
      return z.NEVER;
    });
    return { kind: 'boolean', default: def, description, schema };
  },
  string(def: string, description: string): OptionSpec<string> {
    return { kind: 'string', default: def, description, schema: z.string() };
  },
  enum<const V extends readonly [string, ...string[]]>(values: V, def: V[number], description: string): OptionSpec<V[number]> {
    const schema = z.string().transform((v, ctx) => {
      if ((values as readonly string[]).includes(v)) return v as V[number];
      ctx.issues.push({ code: 'custom', message: `expected one of ${values.join(', ')}, got "${v}"`, input: v });
      return z.NEVER;
    });
    return { kind: 'enum', default: def, description, values, schema };
  },
};

/** The option values an allocator receives, typed from its specs. */
export type OptionValues<S extends Record<string, OptionSpec<unknown>>> = {
  [K in keyof S]: S[K] extends OptionSpec<infer T> ? T : never;
};
