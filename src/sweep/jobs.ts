import type { Trace } from '../trace/model.js';
import { searchMinCapacity, type CapacitySearchMode, type CapacitySearchResult } from './capacity-search.js';
import { type Contender, type ContenderRun, type ContenderSettings, probeContender, runFits } from './contender.js';
import type { OnOom } from '../sim/replay.js';
import type { StartMode } from '../sim/start.js';
import type { AttributionOptions } from '../attribution/index.js';

/** Names a row and its options: what a worker needs to rebuild the contender. */
export interface ContenderRef {
  name: string;
  /** The user's options for it (typed values or `--option` text), as given. */
  given: Record<string, unknown>;
  /** `--start`, when given (see src/sim/start.ts). */
  start?: StartMode;
  /** How to attribute the memory (`--group-by`, `--top`, `--stack-depth`); false: not computed. */
  attribution?: AttributionOptions | false;
}

/** The shared run settings a reference carries. */
export function settingsOf(ref: ContenderRef): ContenderSettings {
  return { ...(ref.start ? { start: ref.start } : {}), ...(ref.attribution !== undefined ? { attribution: ref.attribution } : {}) };
}

/**
 * The unit of work of `compare`: one row, replayed at the compared capacity and, when asked, its
 * minimum-capacity search. The two run in one job because the search starts from the replay's peak
 * and because a contender built once serves both (a planner plans once).
 */
export interface CompareJob {
  contender: ContenderRef;
  capacityBytes: number;
  onOom: OnOom;
  search: { stepBytes: number; mode: CapacitySearchMode } | null;
}

/** What a job returns; plain data, so that it crosses threads by structured clone. */
export interface CompareJobResult {
  run: ContenderRun;
  search: CapacitySearchResult | null;
}

/** The search of a recording whose run failed: none ran, and nothing fits. */
function recordedFailure(trace: Trace, s: NonNullable<CompareJob['search']>): CapacitySearchResult {
  const lowerBoundBytes = Math.ceil(trace.summary.peakLiveBytes / s.stepBytes) * s.stepBytes;
  return { minCapacityBytes: null, stepBytes: s.stepBytes, lowerBoundBytes, hintBytes: null, mode: s.mode, guarantee: 'recorded-failure', replays: 0, tried: [] };
}

/**
 * Runs one job on a trace. The same function runs in worker threads and in the main thread, so
 * that results cannot depend on where they were computed.
 */
export function runJob(trace: Trace, job: CompareJob, build: (ref: ContenderRef) => Contender): CompareJobResult {
  const c = build(job.contender);
  const run = c.run(trace, job.capacityBytes, job.onOom);
  if (!job.search || run.skipped !== undefined) return { run, search: null };
  // A recording whose run failed fails at every capacity: its OOMs are facts, not replays.
  if (c.kind === 'recorded' && (trace.recorded?.ooms?.length ?? 0) > 0) return { run, search: recordedFailure(trace, job.search) };
  // A run at unlimited capacity that fitted is the search's first guess; otherwise the search
  // replays at unlimited capacity itself (one more replay, counted).
  let hint: number | null = null;
  let extraReplays = 0;
  if (job.capacityBytes === Infinity && runFits(run)) {
    hint = run.summary.peakReservedBytes;
  } else {
    const unlimited = probeContender(c, trace, Infinity);
    extraReplays = 1;
    hint = unlimited.fits ? unlimited.peakReservedBytes : null;
  }
  const search = searchMinCapacity((capacityBytes) => probeContender(c, trace, capacityBytes).fits, {
    peakLiveBytes: trace.summary.peakLiveBytes,
    stepBytes: job.search.stepBytes,
    hintBytes: hint,
    mode: job.search.mode,
    extraReplays,
    knownFitBytes: job.capacityBytes !== Infinity && runFits(run) ? job.capacityBytes : null,
  });
  return { run, search };
}
