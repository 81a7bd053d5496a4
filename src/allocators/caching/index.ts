/**
 * `caching`: PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp, PyTorch 2.x),
 * configured as PYTORCH_CUDA_ALLOC_CONF configures it.
 */
import { defineAllocator } from '../types.js';
import { CachingAllocator } from './allocator.js';
import { cachingOptions, defaultOptionValues, settingsFromOptions } from './options.js';
import { defaultsFromTrace } from './snapshot-settings.js';
import { cachingWhatIf } from './what-if.js';

export { CachingAllocator } from './allocator.js';
export { parseAllocConf, AllocConfError, formatConf, type CachingSettings } from './config.js';
export { formatSize, oomMessage } from './oom.js';
export { roundSize, allocationSize } from './sizes.js';
export { allocConfLine, compactRoundup } from './what-if.js';

export const caching = defineAllocator({
  name: 'caching',
  relativeCost: 2.2,
  summary: "PyTorch's CUDA caching allocator: small/large pools, best fit per stream, splits, expandable segments, GC",
  options: cachingOptions,
  defaultsFromTrace,
  whatIf: cachingWhatIf,
  recordedAs: ['pytorch-caching'],
  unstatedInRecording: ['per_process_memory_fraction'],
  // Only a recorded history (never read while replayed) is read beyond the event at hand.
  streams: () => true,
  create(options, ctx) {
    const base = { ...defaultOptionValues(), ...(defaultsFromTrace(ctx.trace)?.values ?? {}) };
    // A fresh start knows nothing of the recorded layout or placements (the trace's settings still
    // set the option defaults above).
    return new CachingAllocator(settingsFromOptions(options, base), ctx.capacityBytes, ctx.start === 'fresh' ? undefined : ctx.trace, ctx.trace);
  },
});
