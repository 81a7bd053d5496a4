/** What a synthetic log holds, for checking a reader against it. */
export interface GeneratedTfLog {
  bytes: number;
  lines: number;
  steps: number;
  /** Allocations and deallocations of GPU_0_bfc (deferred ones counted once). */
  allocs: number;
  frees: number;
  peakLiveBytes: number;
}

/**
 * Writes a synthetic TensorFlow memory log of about `targetBytes` (or `steps` steps, whichever comes
 * first); `noise` other lines per allocation.
 */
export function writeTfLog(path: string, targetBytes: number, options?: { noise?: number; steps?: number }): GeneratedTfLog;
