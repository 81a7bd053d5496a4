/**
 * The worker threads of a sweep (`compare`, `tune`) started before its trace is read, so that they
 * load their modules while the trace is parsed (see startWorkersEarly in src/sweep/pool.ts), and the
 * reading of a sweep's trace.
 */
import { statSync } from 'node:fs';
import { startWorkersEarly, type WorkerPool } from '../sweep/pool.js';
import type { Trace } from '../trace/model.js';
import type { ReadOptions } from '../trace/readers.js';
import { readTraceFile } from '../trace/open.js';
import { dropEarlyReading } from '../trace/pipeline/early-slot.js';
import { PIPELINE_MIN_BYTES, TraceFeed } from '../trace/pipeline/feed.js';

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

/**
 * The whole trace at `path`, as `readTrace` reads it. A large CSV or JSON Lines file is read on a
 * reading thread (trace/pipeline/), and a large binary one by Node's I/O threads, both started by
 * `bin/memsim.js` before the CLI loads (see trace/pipeline/early.ts): the reading then overlaps the
 * CLI's start (some 100 ms) instead of following it. `minBytes`: the least size read on a thread.
 */
export async function readWholeTrace(path: string, options: ReadOptions, minBytes = PIPELINE_MIN_BYTES): Promise<Trace> {
  const feed = TraceFeed.suits(path, options, minBytes) ? await TraceFeed.open(path, options) : null;
  if (!feed) {
    dropEarlyReading();
    return readTraceFile(path, options);
  }
  try {
    return await feed.finish();
  } finally {
    feed.close();
  }
}
