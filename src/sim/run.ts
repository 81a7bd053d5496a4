import { UsageError } from '../errors.js';
import { allocatorConfiguration, resolveOptions } from '../allocators/registry.js';
import type { AllocatorDefinition, OnlineAllocator } from '../allocators/types.js';
import { originFormat, type Trace } from '../trace/model.js';
import { kindMismatchNote, PlacementComparison } from './fidelity.js';
import { emptyTrace, type TraceFeed } from '../trace/pipeline/feed.js';
import { replayInSteps, type ReplayOptions, type ReplayOutcome } from './replay.js';
import { buildReplayReport, type ReplayReport } from './report.js';
import { chooseStart, type StartMode, startNote } from './start.js';
import { type AttributionOptions, checkGroupBy } from '../attribution/index.js';
import { attributeReplay, explainOoms } from './holders.js';
import { WARM_UP_MIN_EVENTS, warmUp } from './warm-up.js';

/** A replay request: which allocator, its options, the capacity, and the engine's options. */
export interface RunOptions extends ReplayOptions {
  /**
   * Registered allocator name, or a configuration `NAME[key=value,…]` (default: the input's own,
   * `caching` for a PyTorch snapshot and `bfc` for a TensorFlow log, else `naive`).
   */
  allocator?: string;
  /** Allocator options, typed or as `--option` text; validated against the registry. */
  options?: Record<string, unknown>;
  /** Device capacity in bytes; default the trace's `meta.capacityBytes`, else unlimited. */
  capacityBytes?: number;
  /** How a replay of a recorded history starts (see src/sim/start.ts); default: decided from the options. */
  start?: StartMode;
  /** Who holds the memory at the peaks and OOMs: how to group (default on; false: not computed). */
  attribution?: AttributionOptions | false;
}

/** The report of a replay plus the live objects, for callers that look further (plots, tests). */
export interface RunResult {
  report: ReplayReport;
  outcome: ReplayOutcome;
  allocator: OnlineAllocator;
}

/** The capacity a run uses: the explicit one, else the trace's own, else unlimited. */
export function effectiveCapacity(trace: Trace, capacityBytes?: number): number {
  if (capacityBytes !== undefined) return capacityBytes;
  const fromTrace = trace.meta.capacityBytes;
  return typeof fromTrace === 'number' ? fromTrace : Infinity;
}

/** The allocator a trace is replayed by when none is named: the input's own, else `naive`. */
export function defaultAllocator(trace: Pick<Trace, 'format' | 'sourceFormat'>): { name: string; chosenBy: 'input' | 'default' } {
  const format = originFormat(trace);
  if (format === 'pytorch-snapshot') return { name: 'caching', chosenBy: 'input' };
  if (format === 'tflog') return { name: 'bfc', chosenBy: 'input' };
  return { name: 'naive', chosenBy: 'default' };
}

/** The options of a run whose value is not the allocator's default. */
function changedOptions(def: AllocatorDefinition, values: Record<string, unknown>): string[] {
  return Object.keys(values).filter((k) => JSON.stringify(values[k]) !== JSON.stringify(def.options[k]?.default));
}

/** A replay set up: the allocator created, the engine ready to step through the trace. */
interface StartedRun {
  allocator: OnlineAllocator;
  /** True when the replay may run ahead of a trace still being read (see `replayFeed`). */
  streams: boolean;
  steps: Generator<number, ReplayOutcome, number>;
  /** The run's report, from the engine's outcome (once the trace is complete). */
  result(outcome: ReplayOutcome): RunResult;
}

/**
 * The warm-up of a {@link replayFeed} run made ahead, while the reading thread starts and the trace's
 * first events are not there yet (the replaying thread would only wait then): with the allocator and
 * options of `run`, and a trace with no events standing in for the one being read. Returns whether
 * it ran (then `replayFeed` is told so and skips its own); a problem with the options is left for
 * the run to report, in its place.
 */
export function warmUpAhead(run: RunOptions, path: string): boolean {
  if (run.allocator === undefined) return false;
  try {
    const stand = emptyTrace(path);
    const { def, options } = allocatorConfiguration(run.allocator, run.options ?? {});
    return warmUp(def, resolveOptions(def, options, stand).values, stand);
  } catch {
    return false;
  }
}

/**
 * `long`: the trace is long enough for the allocator's code to be optimized (see warm-up.ts);
 * `growing`: the trace is still being read (a feed's), else it is complete.
 */
function startRun(trace: Trace, run: RunOptions, long: boolean, growing: boolean | ((i: number) => number)): StartedRun {
  const chosen = run.allocator === undefined ? defaultAllocator(trace) : { name: run.allocator, chosenBy: 'request' as const };
  const { def, options } = allocatorConfiguration(chosen.name, run.options ?? {});
  const resolved = resolveOptions(def, options, trace);
  if (def.needsRecordedHistory && !trace.recorded) {
    throw new UsageError(`allocator "${def.name}" needs a trace with a recorded history`);
  }
  // A grouping the trace cannot give is a usage error before any work.
  if (run.attribution) checkGroupBy(trace, run.attribution.groupBy);
  const capacity = effectiveCapacity(trace, run.capacityBytes);
  const start = chooseStart(def, resolved.values, trace, run.start);
  if (long && !start) warmUp(def, resolved.values, trace);
  const allocator = def.create(resolved.values as never, { capacityBytes: capacity, trace, ...(start ? { start: start.mode } : {}) });
  // A simulation of a recorded history is compared with it (an allocator that replays the history
  // itself has nothing to compare).
  const comparison = !def.needsRecordedHistory && PlacementComparison.applies(trace) ? new PlacementComparison(trace) : undefined;
  const steps = replayInSteps(
    trace,
    allocator,
    capacity,
    comparison
      ? { ...run, onPlacement: comparison.chain(run.onPlacement), onRecordedOom: (k, _e, live) => comparison.recordedOom(k, live, allocator, capacity) }
      : run,
    growing,
  );
  const streams = !trace.recorded && !comparison && !start && (def.streams?.(resolved.values as never, capacity) ?? false);
  const result = (outcome: ReplayOutcome): RunResult => {
    const said = def.needsRecordedHistory ? undefined : startNote(start, trace, def.name);
    const notes = [...resolved.notes, ...(said ? [said] : []), ...(trace.recorded?.notes ?? []), ...(allocator.notes?.() ?? [])];
    const report = buildReplayReport(
      trace,
      { name: def.name, options: resolved.values, stats: allocator.stats(), chosenBy: chosen.chosenBy, changedOptions: changedOptions(def, resolved.values) },
      capacity,
      outcome,
      notes,
    );
    if (start) report.start = start;
    if (run.attribution !== false) report.attribution = attributeReplay(trace, outcome, def.name, run.attribution);
    else explainOoms(outcome, def.name);
    for (const [key, value] of Object.entries(allocator.reportSections?.() ?? {})) {
      if (!(key in report)) report[key] = value;
    }
    if (comparison && !('fidelity' in report)) {
      const fidelity = comparison.result(allocator.reservedBytes);
      const mismatch = def.recordedAs ? kindMismatchNote(def.name, def.recordedAs, trace) : undefined;
      if (def.recordedAs) fidelity.simulatesRecordedKind = mismatch === undefined;
      report['fidelity'] = fidelity;
      if (fidelity.withAllocatedBytes + fidelity.withAddress > 0) report.notes.push(comparison.note());
      if (mismatch) report.notes.push(mismatch);
    }
    return { report, outcome, allocator };
  };
  return { allocator, streams, steps, result };
}

/** Replays a trace through a registered allocator and builds the `memsim.replay/1` report. */
export function replay(trace: Trace, run: RunOptions = {}): RunResult {
  const r = startRun(trace, run, trace.length >= WARM_UP_MIN_EVENTS, false);
  let step = r.steps.next();
  while (!step.done) step = r.steps.next(trace.length);
  return r.result(step.value);
}

/**
 * How long the replay waits for the reading thread's next events without returning to the event loop
 * (see `TraceFeed.poll`): longer than the thread takes to read them, unless it is held up.
 */
const FEED_WAIT_MS = 100;

/**
 * {@link replay} of a trace still being read on another thread: the replay runs as the events arrive,
 * when the allocator allows it (its definition's `streams`), else once the trace is complete. The
 * report is the one `replay` gives for the complete trace, byte for byte; reading problems are thrown
 * as reading it would. `warmedUp`: {@link warmUpAhead} ran for `run`.
 */
export async function replayFeed(feed: TraceFeed, run: RunOptions = {}, warmedUp = false): Promise<RunResult> {
  const trace = feed.trace;
  // Only large files are read on another thread: warmed up here unless {@link warmUpAhead} did it.
  const r = startRun(trace, run, !warmedUp, (i) => feed.poll(i, FEED_WAIT_MS));
  if (!r.streams) await feed.finish();
  let step = r.steps.next();
  for (;;) {
    if (step.done) break;
    if (step.value < trace.length) step = r.steps.next(trace.length);
    else if (!(await feed.more())) step = r.steps.next(trace.length);
  }
  // A replay stopped at an OOM still reports the whole trace (and its problems, if it has any).
  await feed.finish();
  return r.result(step.value);
}
