/**
 * `memsim tune`: replays one trace under every configuration of each allocator's what-if space (or
 * a deterministic search of it), on worker threads over one shared trace, and answers with the
 * setting that fits. A run can be cut into shards whose parts merge into the same report.
 */
import { UsageError } from '../errors.js';
import type { Trace } from '../trace/model.js';
import { VERSION } from '../version.js';
import { traceInfo } from '../sim/report.js';
import type { StartMode } from '../sim/start.js';
import { createContender } from './contenders.js';
import { runFits } from './contender.js';
import type { CompareJobResult, ContenderRef } from './jobs.js';
import { type JobRunner, openRunner, type RunnerOptions } from './pool.js';
import { searchSpace } from './search.js';
import {
  allAllocators,
  type AllocatorSpace,
  buildSpaces,
  defaultAllocators,
  enumeratePoints,
  isSearched,
  optionValue,
  parseSpaceFlags,
  type Point,
  pointName,
} from './space.js';
import { compareRows } from './tune-rank.js';
import type { TunePart, TuneRow, TuneSettings } from './tune-types.js';

/** How to tune. */
export interface TuneOptions extends RunnerOptions {
  /** Allocator names, or `all`; default: the recording's allocator (and the recording), else all. */
  allocators?: readonly string[] | 'all';
  /** Capacity of every run (default: the trace's meta capacity, else unlimited). */
  capacityBytes?: number;
  /** Grid of the minimum-capacity search (default 1 MiB). */
  capacityStepBytes?: number;
  /** `--space` flags: `key=v1,v2` or `allocator.key=v1,v2`. */
  space?: readonly string[];
  /**
   * The options in force now, where the trace does not say (`bfc[allow_growth=true]`): that
   * allocator's current row, and the base every other row of it changes.
   */
  current?: readonly string[];
  /** Replay every point, however large the space (default: search spaces over 64 points). */
  exhaustive?: boolean;
  /**
   * How replays of a recorded history start (default: the current configuration from the recorded
   * layout, every other one fresh; see src/sim/start.ts).
   */
  start?: StartMode;
  /** Run only this slice of the work (1-based index of `count`). */
  shard?: { index: number; count: number };
  /** Configurations done, out of those known so far. */
  onProgress?: (done: number, total: number) => void;
}

/** How the work ran: never part of the report. */
export interface TuneExecution {
  mode: 'workers' | 'in-thread';
  threads: number;
  reason?: string;
}

/** A piece of work that one shard takes whole. */
type Unit = { space: AllocatorSpace; point: Point } | { space: AllocatorSpace; search: true };

function unitsOf(spaces: readonly AllocatorSpace[], exhaustive: boolean): Unit[] {
  return spaces.flatMap((space): Unit[] => {
    if (space.isReference) return [{ space, point: {} }];
    if (isSearched(space, exhaustive)) return [{ space, search: true }];
    return enumeratePoints(space).map((point) => ({ space, point }));
  });
}

/** The row of one configuration from its job's result. */
function rowOf(space: AllocatorSpace, point: Point, r: CompareJobResult): TuneRow {
  const { def, current } = space;
  const changed: Record<string, unknown> = {};
  for (const [key, text] of Object.entries(point)) changed[key] = optionValue(def, key, text);
  // The options the configuration's name sets: those stated as current, then the point's.
  const options: Record<string, unknown> = {};
  for (const key of Object.keys({ ...space.given, ...point })) options[key] = key in changed ? changed[key] : current[key];
  const effective = { ...current, ...changed };
  const isCurrent = !space.isReference && Object.keys(point).length === 0;
  const { summary, firstOom } = r.run;
  return {
    rank: 0,
    name: pointName(space, point),
    allocator: def.name,
    options,
    current: isCurrent,
    reference: space.isReference,
    fits: runFits(r.run),
    minCapacityBytes: r.search?.minCapacityBytes ?? null,
    peakReservedBytes: summary.peakReservedBytes,
    oomCount: summary.oomCount,
    oomKind: firstOom?.kind ?? null,
    ...((r.run.realOomsReproduced ?? 0) > 0 ? { realOomsReproduced: r.run.realOomsReproduced } : {}),
    deviceAllocCalls: summary.deviceAllocCalls,
    deviceFreeCalls: summary.deviceFreeCalls,
    setting: def.whatIf ? def.whatIf.setting(effective) : null,
    changes: Object.keys(changed).map((key) => ({ key, from: current[key] ?? null, to: changed[key] })),
    replays: 1 + (r.search?.replays ?? 0),
    start: r.run.start?.mode ?? null,
    ...(isCurrent || space.isReference ? { notes: r.run.notes } : {}),
  };
}

function checkShard(shard: { index: number; count: number }): void {
  const { index, count } = shard;
  if (!Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(index) || index < 1 || index > count) {
    throw new UsageError(`--shard: expected i/n with 1 <= i <= n, got ${index}/${count}`);
  }
}

/**
 * Tunes the allocators on `trace`, or the slice `o.shard` of the work, and returns the unranked
 * part (see {@link assembleTuneReport} for the report).
 */
export async function runTune(trace: Trace, o: TuneOptions = {}): Promise<{ part: TunePart; execution: TuneExecution }> {
  const shard = o.shard ?? { index: 1, count: 1 };
  checkShard(shard);
  const names = o.allocators === undefined ? defaultAllocators(trace) : o.allocators === 'all' ? allAllocators(trace) : [...o.allocators];
  if (names.length === 0) throw new UsageError('--allocators: no allocator named');
  const spaces = buildSpaces(trace, names, parseSpaceFlags(o.space ?? []), o.current ?? []);
  const exhaustive = o.exhaustive ?? false;
  const step = o.capacityStepBytes ?? 1024 * 1024;
  if (!Number.isSafeInteger(step) || step <= 0) throw new UsageError(`the capacity step must be a positive whole number of bytes, got ${step}`);
  const fromMeta = trace.meta.capacityBytes;
  const capacity = o.capacityBytes ?? (typeof fromMeta === 'number' ? fromMeta : Infinity);
  // Every configuration is built once here, so that bad options are usage errors before any work.
  // `--start` concerns the simulations; the recording replays itself from its recorded start.
  const startOf = (s: AllocatorSpace): { start?: StartMode } => (o.start && !s.def.needsRecordedHistory ? { start: o.start } : {});
  for (const s of spaces) for (const p of isSearched(s, exhaustive) ? [{}] : enumeratePoints(s)) createContender(pointName(s, p), {}, trace, startOf(s));

  const units = unitsOf(spaces, exhaustive);
  const mine = units.filter((_, k) => k % shard.count === shard.index - 1);
  const { runner, reason } = openRunner(trace, o, Math.max(1, mine.length * 4), (ref) => createContender(ref.name, ref.given, trace, ref.start ? { start: ref.start } : {}));
  const rows = new Map<string, Promise<TuneRow>>();
  let done = 0;
  let total = 0;
  const evaluate = (space: AllocatorSpace, point: Point): Promise<TuneRow> => {
    const name = pointName(space, point);
    let row = rows.get(name);
    if (!row) {
      total++;
      row = submit(runner, { name, given: {}, ...startOf(space) }, capacity, step).then((r) => {
        o.onProgress?.(++done, total);
        return rowOf(space, point, r);
      });
      rows.set(name, row);
    }
    return row;
  };
  try {
    await Promise.all(
      mine.map((u) =>
        'search' in u
          ? searchSpace(u.space, {
              evaluate: (points) => Promise.all(points.map((p) => evaluate(u.space, p))),
              compare: (a, b) => compareRows(a, b, names),
            })
          : evaluate(u.space, u.point),
      ),
    );
  } finally {
    await runner.close();
  }
  const settings: TuneSettings = {
    allocators: names,
    capacityBytes: Number.isFinite(capacity) ? capacity : null,
    capacityStepBytes: step,
    exhaustive,
    start: o.start ?? null,
    spaces: spaces.map((s) => ({
      allocator: s.def.name,
      reference: s.isReference,
      current: pointName(s, {}),
      currentSetting: s.def.whatIf ? s.def.whatIf.setting(s.current) : null,
      keys: s.keys.map((k) => ({ key: k.key, values: [...k.values] })),
      points: s.points,
      method: s.isReference ? 'reference' : isSearched(s, exhaustive) ? 'search' : 'all',
    })),
    units: units.length,
  };
  const tuned = (await Promise.all(rows.values())).sort((a, b) => names.indexOf(a.allocator) - names.indexOf(b.allocator) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const notes = [...(trace.recorded?.notes ?? [])];
  const rec = trace.recorded;
  for (const sp of spaces) {
    if (rec && sp.def.whatIf && sp.def.recordedAs?.includes(rec.allocator) && !sp.def.defaultsFromTrace?.(trace) && Object.keys(sp.given).length === 0) {
      notes.push(`the recording does not state ${sp.def.name}'s settings: its current row assumes the defaults (${sp.def.whatIf.setting(sp.current)}); --current states others`);
    }
  }
  if (trace.recorded && o.start === undefined && trace.initialEvents + trace.recorded.initialSegments.length > 0) {
    notes.push(
      'the current configuration starts from the recorded layout (what happened); every other one starts fresh, its window\'s live blocks allocated through it first ' +
        '(what a new process with that setting would do); --start fresh starts every row fresh',
    );
  }
  const part: TunePart = {
    schema: 'memsim.tune-part/1',
    tool: { name: 'memsim', version: VERSION },
    shard,
    trace: traceInfo(trace),
    lowerBound: { peakLiveBytes: trace.summary.peakLiveBytes, peakLiveEvent: trace.summary.peakLiveEvent },
    settings,
    // In a fixed order, whatever order the searches reached them in.
    rows: tuned,
    notes,
  };
  return { part, execution: { mode: runner.mode, threads: runner.threads, ...(reason ? { reason } : {}) } };
}

function submit(runner: JobRunner, contender: ContenderRef, capacityBytes: number, stepBytes: number): Promise<CompareJobResult> {
  return runner.submit({ contender, capacityBytes, onOom: 'stop', search: { stepBytes, mode: 'bisect' } });
}
