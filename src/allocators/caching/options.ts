/**
 * The `caching` allocator's options: `conf` (a PYTORCH_CUDA_ALLOC_CONF string) and one option per
 * setting, each validated by PyTorch's own parser so that errors read as PyTorch words them.
 */
import { z } from 'zod';
import type { OptionSpec } from '../options.js';
import { AllocConfError, type CachingSettings, defaultSettings, formatRoundup, parseAllocConf, type ParsedConf } from './config.js';

const MB = 1048576;

/** Runs PyTorch's parser on `key:value` and hands back what it set, or a zod issue with its message. */
function viaParser<T>(key: string, pick: (p: ParsedConf) => T) {
  return (v: unknown, ctx: z.RefinementCtx): T => {
    try {
      return pick(parseAllocConf(`${key}:${String(v)}`));
    } catch (e) {
      ctx.issues.push({ code: 'custom', message: e instanceof AllocConfError ? e.message : String(e), input: v });
      return z.NEVER;
    }
  };
}

const isNone = (v: unknown): boolean => v === null || v === 'none' || v === 'unlimited' || v === -1 || v === '-1';

/** The option specs (see `memsim allocators`). */
export const cachingOptions = {
  conf: {
    kind: 'string',
    default: '',
    description: 'PYTORCH_CUDA_ALLOC_CONF in PyTorch syntax, e.g. "expandable_segments:True,max_split_size_mb:128"; sets the keys it names',
    schema: z.string().transform((v, ctx) => {
      try {
        parseAllocConf(v);
        return v;
      } catch (e) {
        ctx.issues.push({ code: 'custom', message: e instanceof AllocConfError ? e.message : String(e), input: v });
        return z.NEVER;
      }
    }),
  } satisfies OptionSpec<string>,
  max_split_size_mb: {
    kind: 'integer',
    default: null,
    description: 'blocks of this many MiB or more are never split (none: unlimited); at least 20',
    schema: z.union([z.number(), z.string(), z.null()]).transform((v, ctx) =>
      isNone(v) ? null : viaParser('max_split_size_mb', (p) => (p.maxSplitSizeBytes as number) / MB)(v, ctx),
    ),
  } satisfies OptionSpec<number | null>,
  max_non_split_rounding_mb: {
    kind: 'integer',
    default: 20,
    description: 'an oversize request takes a cached block less than this many MiB larger than itself; at least 20',
    schema: z.union([z.number(), z.string()]).transform(viaParser('max_non_split_rounding_mb', (p) => (p.maxNonSplitRoundingBytes as number) / MB)),
  } satisfies OptionSpec<number>,
  roundup_power2_divisions: {
    kind: 'string',
    default: '',
    description: 'round requests up to power-of-two divisions: one value (e.g. 4) or per MiB interval ([256:1,512:2,>:8]); empty or off: off',
    schema: z.union([z.number(), z.string()]).transform((v, ctx) =>
      v === '' || v === 'off' ? '' : viaParser('roundup_power2_divisions', (p) => formatRoundup(p.roundupPower2Divisions as number[]))(v, ctx),
    ),
  } satisfies OptionSpec<string>,
  garbage_collection_threshold: {
    kind: 'number',
    default: 0,
    description: 'with a memory fraction, collect cached blocks above this share of the allowed memory (0: off)',
    schema: z.union([z.number(), z.string()]).transform((v, ctx) =>
      v === 0 || v === '0' ? 0 : viaParser('garbage_collection_threshold', (p) => p.garbageCollectionThreshold as number)(v, ctx),
    ),
  } satisfies OptionSpec<number>,
  expandable_segments: {
    kind: 'boolean',
    default: false,
    description: 'one growing segment per stream and pool, pages mapped on demand',
    schema: z.union([z.boolean(), z.string()]).transform((v, ctx) => {
      if (typeof v === 'boolean') return v;
      const t = v.trim().toLowerCase();
      if (t === 'true' || t === '1' || t === 'yes' || t === 'on') return true;
      if (t === 'false' || t === '0' || t === 'no' || t === 'off') return false;
      ctx.issues.push({ code: 'custom', message: `Expected a single True/False argument for expandable_segments, got "${v}"`, input: v });
      return z.NEVER;
    }),
  } satisfies OptionSpec<boolean>,
  per_process_memory_fraction: {
    kind: 'number',
    default: null,
    description: 'the allocator may hold at most this fraction of --capacity (none: no fraction in force)',
    schema: z.union([z.number(), z.string(), z.null()]).transform((v, ctx) =>
      v === null || v === 'none' ? null : viaParser('per_process_memory_fraction', (p) => p.perProcessMemoryFraction as number)(v, ctx),
    ),
  } satisfies OptionSpec<number | null>,
};

/** The typed option values. */
export interface CachingOptionValues {
  conf: string;
  max_split_size_mb: number | null;
  max_non_split_rounding_mb: number;
  roundup_power2_divisions: string;
  garbage_collection_threshold: number;
  expandable_segments: boolean;
  per_process_memory_fraction: number | null;
}

/** Every option at PyTorch's default. */
export function defaultOptionValues(): CachingOptionValues {
  return {
    conf: '',
    max_split_size_mb: null,
    max_non_split_rounding_mb: 20,
    roundup_power2_divisions: '',
    garbage_collection_threshold: 0,
    expandable_segments: false,
    per_process_memory_fraction: null,
  };
}

type Individual = Exclude<keyof CachingOptionValues, 'conf'>;
const INDIVIDUAL: Individual[] = [
  'max_split_size_mb',
  'max_non_split_rounding_mb',
  'roundup_power2_divisions',
  'garbage_collection_threshold',
  'expandable_segments',
  'per_process_memory_fraction',
];

function applyIndividual(s: CachingSettings, key: Individual, v: CachingOptionValues): void {
  if (key === 'max_split_size_mb') s.maxSplitSizeBytes = v.max_split_size_mb === null ? Infinity : v.max_split_size_mb * MB;
  else if (key === 'max_non_split_rounding_mb') s.maxNonSplitRoundingBytes = v.max_non_split_rounding_mb * MB;
  else if (key === 'roundup_power2_divisions') {
    s.roundupPower2Divisions = v.roundup_power2_divisions === '' ? defaultSettings().roundupPower2Divisions : (parseAllocConf(`roundup_power2_divisions:${v.roundup_power2_divisions}`).roundupPower2Divisions as number[]);
  } else if (key === 'garbage_collection_threshold') s.garbageCollectionThreshold = v.garbage_collection_threshold;
  else if (key === 'expandable_segments') s.expandableSegments = v.expandable_segments;
  else s.perProcessMemoryFraction = v.per_process_memory_fraction;
}

/**
 * The effective settings: the base values (PyTorch's defaults, or the snapshot's own settings),
 * then the keys `conf` names, then the individual options given apart from the base (an individual
 * option beats `conf`).
 */
export function settingsFromOptions(values: CachingOptionValues, base: CachingOptionValues): CachingSettings {
  const s = defaultSettings();
  for (const key of INDIVIDUAL) applyIndividual(s, key, base);
  Object.assign(s, parseAllocConf(values.conf));
  for (const key of INDIVIDUAL) if (values[key] !== base[key]) applyIndividual(s, key, values);
  return s;
}
