/**
 * Bin arithmetic of DeepRec's lifetime policies (memory_planner.h: `Index`, `LifetimePolicy`).
 *
 * A policy with bin interval `a` rounds a tracked size up to a multiple of `a`; bin `i` holds chunks
 * of `32 KiB + (i+1)·a` bytes. Regular bins cover (32 KiB, 32 MiB]; larger sizes fall into "large"
 * bins that the policy creates on demand with the same formula.
 */

/** Where the bins start: DeepRec's `_32KB` (also its small-request threshold). */
export const BIN_START_BYTES = 32 * 1024;
/** The last regular bin ends here: DeepRec's `_32MB`. */
export const REGULAR_LIMIT_BYTES = 32 * 1024 * 1024;
/** The three candidate bin intervals, in the order DeepRec's `InitPolicy` creates them. */
export const POLICY_INTERVALS = [4096, 8192, 16384] as const;

/**
 * Bin index of a tracked size (header included) under interval `interval`, as DeepRec's `Index`;
 * -1 when the size is at most 32 KiB (DeepRec's `SmallAlloc`), which no bin holds.
 */
export function binIndex(totalBytes: number, interval: number): number {
  if (totalBytes <= BIN_START_BYTES) return -1;
  const aligned = interval * Math.ceil(totalBytes / interval);
  return (aligned - BIN_START_BYTES) / interval - 1;
}

/** Chunk size of bin `index` under `interval` (DeepRec: `start_ + interval_ * (index + 1)`). */
export function chunkBytes(index: number, interval: number): number {
  return BIN_START_BYTES + (index + 1) * interval;
}

/**
 * Number of regular bins of a policy: DeepRec's `large_bin_index_ = Index(32MB) + 1`
 * (8184, 4092 and 2046 for 4, 8 and 16 KiB). Indices from here on are large bins.
 */
export function regularBinCount(interval: number): number {
  return binIndex(REGULAR_LIMIT_BYTES, interval) + 1;
}

/**
 * DeepRec's `AllocStats::IsOverlap` on closed intervals: lifetimes that share an endpoint overlap
 * (the real code compares microsecond timestamps and treats equal ones as simultaneous).
 */
export function lifetimesOverlap(begin1: number, end1: number, begin2: number, end2: number): boolean {
  return begin1 <= end2 && begin2 <= end1;
}
