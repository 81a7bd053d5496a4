import { naive } from '../naive.js';
import { opt } from '../options.js';
import { defineAllocator } from '../types.js';
import { LifetimePoolAllocator } from './allocator.js';
import { lifetimePoolWhatIf } from './what-if.js';

export { LifetimePoolAllocator, type LifetimePoolOptions, type Phase } from './allocator.js';
export { countRuns, deeprecSetting } from './what-if.js';
export { binIndex, chunkBytes, regularBinCount, lifetimesOverlap, POLICY_INTERVALS } from './bins.js';

/**
 * DeepRec's TensorPoolAllocator + MemoryPlanner ("PRMalloc"): learn a few training steps'
 * lifetimes, pack them into per-size bins under three bin intervals, keep the cheapest, and serve
 * the following steps from pools allocated once. Defaults are those of DeepRec's CPU planner.
 */
export const lifetimePool = defineAllocator({
  name: 'lifetime-pool',
  relativeCost: 2.5,
  summary: "pooled lifetime bins learned from a few steps (DeepRec's TensorPoolAllocator + MemoryPlanner)",
  options: {
    start_step: opt.integer(100, 'session run (counted from 0, one per change of step id) at which lifetime statistics start (START_STATISTIC_STEP)', { min: 0 }),
    stable_steps: opt.integer(10, 'collection ends after more than this many stable runs in a row (STABLE_STATISTIC_STEP)', { min: 0 }),
    max_steps: opt.integer(100, 'collection ends after more than this many collected runs (MAX_STATISTIC_STEP)', { min: 0 }),
    small_threshold: opt.bytes(32 * 1024, 'requests up to this size go to the device with a max(8, align)-byte header', { min: 0 }),
    header_bytes: opt.bytes(64, 'header of a big request (max(this, align) bytes), counted in its bin size and asked of the device', { min: 0 }),
  },
  whatIf: lifetimePoolWhatIf,
  create(options, ctx) {
    const fallback = {
      alignment: naive.options.alignment.default,
      page: naive.options.page.default,
      large_threshold: naive.options.large_threshold.default,
    };
    return new LifetimePoolAllocator(options, ctx.capacityBytes, fallback, ctx.trace);
  },
});
