/**
 * The worker threads of a sweep (`compare`, `tune`) started before its trace is read, so that they
 * load their modules while the trace is parsed (see startWorkersEarly in src/sweep/pool.ts).
 */
import { statSync } from 'node:fs';
import { startWorkersEarly, type WorkerPool } from '../sweep/pool.js';

/**
 * Below this size a trace has too few events for a sweep to use workers by default (50,000 events
 * take at least about 1 MB in every format): its workers are not started early.
 */
export const EARLY_WORKERS_MIN_BYTES = 1 << 20;

/** The workers for a sweep of the trace at `path` with `jobs` threads, started now; undefined when it would not use them. */
export function earlyWorkers(path: string, jobs: number | undefined): WorkerPool | undefined {
  if (jobs === 1 || path === '-') return undefined;
  let bytes: number;
  try {
    bytes = statSync(path).size;
  } catch {
    return undefined; // the reading says what is wrong with the path
  }
  return bytes >= EARLY_WORKERS_MIN_BYTES ? startWorkersEarly(jobs !== undefined ? { jobs } : {}) : undefined;
}
