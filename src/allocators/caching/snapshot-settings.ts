/**
 * A snapshot's `allocator_settings` (what torch.cuda.memory._snapshot() reports of
 * CUDAAllocatorConfig) as option defaults for the replay.
 */
import type { Trace } from '../../trace/model.js';
import { AllocConfError, formatRoundup, parseAllocConf } from './config.js';
import { type CachingOptionValues, defaultOptionValues } from './options.js';
import { kRoundUpPowerOfTwoIntervals } from './sizes.js';

const MB = 1048576;

/** roundup_power2_divisions as snapshots hold it: `{'1': d, '2': d, …, '32768': d}`, a list, or one number. */
function divisionsOf(v: unknown): number[] | undefined {
  const out = new Array<number>(kRoundUpPowerOfTwoIntervals).fill(0);
  if (typeof v === 'number') return out.fill(v);
  if (Array.isArray(v)) {
    v.slice(0, out.length).forEach((d, k) => (out[k] = Number(d) || 0));
    return out;
  }
  if (v && typeof v === 'object') {
    for (const [mb, d] of Object.entries(v as Record<string, unknown>)) {
      const k = Math.log2(Number(mb));
      if (Number.isInteger(k) && k >= 0 && k < out.length) out[k] = Number(d) || 0;
    }
    return out;
  }
  return undefined;
}

/** The option values a snapshot's allocator_settings stand for, and a note on what was taken. */
export function optionsFromSnapshotSettings(settings: Record<string, unknown>): { values: Partial<CachingOptionValues>; note: string } {
  const values: Partial<CachingOptionValues> = {};
  const split = settings['max_split_size'];
  if (typeof split === 'number' && split > 0 && split < 2 ** 62) values.max_split_size_mb = Math.floor(split / MB);
  const gc = settings['garbage_collection_threshold'];
  if (typeof gc === 'number' && gc > 0 && gc < 1) values.garbage_collection_threshold = gc;
  if (typeof settings['expandable_segments'] === 'boolean') values.expandable_segments = settings['expandable_segments'];
  const divs = divisionsOf(settings['roundup_power2_divisions']);
  if (divs) values.roundup_power2_divisions = formatRoundup(divs);
  const rounding = settings['max_non_split_rounding_size'];
  if (typeof rounding === 'number' && rounding > 0) values.max_non_split_rounding_mb = Math.floor(rounding / MB);
  // Keys the structured fields do not carry come from the configuration string itself.
  const conf = settings['PYTORCH_CUDA_ALLOC_CONF'];
  if (typeof conf === 'string' && conf !== '') {
    try {
      const p = parseAllocConf(conf);
      if (p.maxNonSplitRoundingBytes !== undefined && values.max_non_split_rounding_mb === undefined) values.max_non_split_rounding_mb = p.maxNonSplitRoundingBytes / MB;
      if (p.perProcessMemoryFraction !== undefined) values.per_process_memory_fraction = p.perProcessMemoryFraction;
    } catch (e) {
      if (!(e instanceof AllocConfError)) throw e;
    }
  }
  const defaults = defaultOptionValues();
  const changed = (Object.keys(values) as (keyof CachingOptionValues)[])
    .filter((k) => values[k] !== defaults[k])
    .map((k) => `${k}=${String(values[k])}`);
  const what = changed.length > 0 ? changed.join(', ') : "all at PyTorch's defaults";
  return { values, note: `allocator options default to the snapshot's own allocator_settings (${what}); options given on the command line override them` };
}

/** `defaultsFromTrace` of the caching allocator. */
export function defaultsFromTrace(trace: Trace): { values: Partial<CachingOptionValues>; note: string } | undefined {
  const rec = trace.recorded;
  if (!rec || rec.allocator !== 'pytorch-caching') return undefined;
  if (!rec.settings) {
    return { values: {}, note: "the snapshot has no allocator_settings (recorded by an older PyTorch): PyTorch's default settings assumed" };
  }
  return optionsFromSnapshotSettings(rec.settings);
}
