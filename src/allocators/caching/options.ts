/**
 * The `caching` allocator's options: `conf` (a PYTORCH_CUDA_ALLOC_CONF string) and one option per
 * setting, each validated by PyTorch's own parser so that errors read as PyTorch words them.
 */
import { badValue, optionSchema, type OptionSpec } from '../options.js';
import { AllocConfError, type CachingSettings, defaultSettings, formatRoundup, parseAllocConf, type ParsedConf } from './config.js';

const MB = 1048576;

/** Runs PyTorch's parser on `key:value` and hands back what it set, or its message as the problem. */
function viaParser<T>(key: string, pick: (p: ParsedConf) => T) {
  return (v: unknown): T => {
    try {
      return pick(parseAllocConf(`${key}:${String(v)}`));
    } catch (e) {
      return badValue(e instanceof AllocConfError ? e.message : String(e));
    }
  };
}

/** A value given as a number or as text (`--option`), else the problem. */
function numberOrText(v: unknown, nullable = false): number | string | null {
  if (typeof v === 'number' || typeof v === 'string' || (nullable && v === null)) return v as number | string | null;
  return badValue(`expected a number, got ${String(v)}`);
}

const isNone = (v: unknown): boolean => v === null || v === 'none' || v === 'unlimited' || v === -1 || v === '-1';

/** The option specs (see `memsim allocators`). */
export const cachingOptions = {
  conf: {
    kind: 'string',
    default: '',
    description: 'PYTORCH_CUDA_ALLOC_CONF in PyTorch syntax, e.g. "expandable_segments:True,max_split_size_mb:128"; sets the keys it names',
    schema: optionSchema((v) => {
      if (typeof v !== 'string') return badValue(`expected text, got ${String(v)}`);
      try {
        parseAllocConf(v);
        return v;
      } catch (e) {
        return badValue(e instanceof AllocConfError ? e.message : String(e));
      }
    }),
  } satisfies OptionSpec<string>,
  max_split_size_mb: {
    kind: 'integer',
    default: null,
    description: 'blocks of this many MiB or more are never split (none: unlimited); at least 20',
    schema: optionSchema((v) =>
      isNone(numberOrText(v, true)) ? null : viaParser('max_split_size_mb', (p) => (p.maxSplitSizeBytes as number) / MB)(v),
    ),
  } satisfies OptionSpec<number | null>,
  max_non_split_rounding_mb: {
    kind: 'integer',
    default: 20,
    description: 'an oversize request takes a cached block less than this many MiB larger than itself; at least 20',
    schema: optionSchema((v) => viaParser('max_non_split_rounding_mb', (p) => (p.maxNonSplitRoundingBytes as number) / MB)(numberOrText(v))),
  } satisfies OptionSpec<number>,
  roundup_power2_divisions: {
    kind: 'string',
    default: '',
    description: 'round requests up to power-of-two divisions: one value (e.g. 4) or per MiB interval ([256:1,512:2,>:8]); empty or off: off',
    schema: optionSchema((v) => {
      const t = numberOrText(v);
      return t === '' || t === 'off' ? '' : viaParser('roundup_power2_divisions', (p) => formatRoundup(p.roundupPower2Divisions as number[]))(v);
    }),
  } satisfies OptionSpec<string>,
  garbage_collection_threshold: {
    kind: 'number',
    default: 0,
    description: 'with a memory fraction, collect cached blocks above this share of the allowed memory (0: off)',
    schema: optionSchema((v) =>
      numberOrText(v) === 0 || v === '0' ? 0 : viaParser('garbage_collection_threshold', (p) => p.garbageCollectionThreshold as number)(v),
    ),
  } satisfies OptionSpec<number>,
  expandable_segments: {
    kind: 'boolean',
    default: false,
    description: 'one growing segment per stream and pool, pages mapped on demand',
    schema: optionSchema((v) => {
      if (typeof v === 'boolean') return v;
      if (typeof v !== 'string') return badValue(`Expected a single True/False argument for expandable_segments, got ${String(v)}`);
      const t = v.trim().toLowerCase();
      if (t === 'true' || t === '1' || t === 'yes' || t === 'on') return true;
      if (t === 'false' || t === '0' || t === 'no' || t === 'off') return false;
      return badValue(`Expected a single True/False argument for expandable_segments, got "${v}"`);
    }),
  } satisfies OptionSpec<boolean>,
  per_process_memory_fraction: {
    kind: 'number',
    default: null,
    description: 'the allocator may hold at most this fraction of --capacity (none: no fraction in force)',
    schema: optionSchema((v) =>
      numberOrText(v, true) === null || v === 'none' ? null : viaParser('per_process_memory_fraction', (p) => p.perProcessMemoryFraction as number)(v),
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
