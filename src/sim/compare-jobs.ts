import type { Trace } from '../trace/model.js';
import { searchMinCapacity, type CapacitySearchMode, type CapacitySearchResult } from './capacity-search.js';
import { type Contender, type ContenderRun, probeContender } from './contender.js';
import type { OnOom } from './replay.js';

/** Names a row and its options: what a worker needs to rebuild the contender. */
export interface ContenderRef {
  name: string;
  /** The user's options for it (typed values or `--option` text), as given. */
  given: Record<string, unknown>;
}

/** The table's replay of one row at the compared capacity. */
export interface RunJob {
  type: 'run';
  contender: ContenderRef;
  capacityBytes: number;
  onOom: OnOom;
}

/** The minimum-capacity search of one row. */
export interface SearchJob {
  type: 'search';
  contender: ContenderRef;
  stepBytes: number;
  mode: CapacitySearchMode;
  /**
   * Peak reserved of a run of this row that fitted (the table's run); when null, the search first
   * replays at unlimited capacity to get one.
   */
  hintBytes: number | null;
}

/** A unit of work of `compare`: one (row, question) pair, run on any thread. */
export type CompareJob = RunJob | SearchJob;

/** What a job returns; plain data, so that it crosses threads by structured clone. */
export type CompareJobResult = { type: 'run'; run: ContenderRun } | { type: 'search'; search: CapacitySearchResult };

/**
 * Runs one job on a trace. The same function runs in worker threads and in the main thread, so
 * that results cannot depend on where they were computed.
 */
export function runJob(trace: Trace, job: CompareJob, build: (ref: ContenderRef) => Contender): CompareJobResult {
  const c = build(job.contender);
  if (job.type === 'run') return { type: 'run', run: c.run(trace, job.capacityBytes, job.onOom) };
  let hint = job.hintBytes;
  let extraReplays = 0;
  if (hint === null) {
    const unlimited = probeContender(c, trace, Infinity);
    extraReplays = 1;
    hint = unlimited.fits ? unlimited.peakReservedBytes : null;
  }
  const search = searchMinCapacity((capacityBytes) => probeContender(c, trace, capacityBytes).fits, {
    peakLiveBytes: trace.summary.peakLiveBytes,
    stepBytes: job.stepBytes,
    hintBytes: hint,
    mode: job.mode,
    extraReplays,
  });
  return { type: 'search', search };
}
