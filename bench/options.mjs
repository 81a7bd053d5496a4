// Allocator options used by the benchmarks (defaults otherwise). Pools, for instance, should be
// built early so that the steady state is what gets measured.
export const benchOptions = {
  'lifetime-pool': { start_step: 2, stable_steps: 2, max_steps: 10 },
};
