import { UsageError } from '../errors.js';
import type { Trace } from '../trace/model.js';
import { canonicalConfiguration } from '../util/configuration.js';
import { VERSION } from '../version.js';
import type { BaselineComparison } from './compare-baseline.js';
import type { GateResult } from './compare-gates.js';
import type { CapacitySearchMode, CapacitySearchResult } from './capacity-search.js';
import type { CompareJobResult, ContenderRef } from './jobs.js';
import { openRunner, type WorkerPool } from './pool.js';
import { loadAllAllocators } from '../allocators/registry.js';
// The families of rows without contenders.ts, whose allocators load at top level (an await that the
// quick bundle, CommonJS, cannot hold): compareTrace loads every allocator of the registry itself.
import './contender-families.js';
import { type Contender, type ContenderKind, createContender, listContenders } from './contender.js';
import { OFFLINE_BOUND_NOTE } from './contender-planner.js';
import { runFits } from './contender.js';
import type { OnOom, OomRecord } from '../sim/replay.js';
import { type ReplaySummary, type TraceInfo, traceInfo } from '../sim/report.js';
import type { StartChoice, StartMode } from '../sim/start.js';
import { type AttributionOptions, checkGroupBy } from '../attribution/index.js';
import type { AttributionSection } from '../sim/holders.js';
import { settingsOf } from './jobs.js';

/** One row of a comparison. */
export interface CompareEntry {
  /** 1 = best: rows that fit first (see {@link entryFails}), then lowest peak reserved, then name. */
  rank: number;
  name: string;
  kind: ContenderKind;
  /** Every option with its effective value. */
  options: Record<string, unknown>;
  completed: boolean;
  /** The `summary` of `memsim.replay/1` at the compared capacity. */
  summary: ReplaySummary;
  /** The first failed request (kind, event, sizes), or null. */
  firstOom: OomRecord | null;
  /** Smallest capacity on the step grid that fits (see `search.guarantee`), or null. */
  minCapacityBytes: number | null;
  /** Replays run for this row: the compared capacity's, plus the search's. */
  replays: number;
  search: CapacitySearchResult | null;
  notes: string[];
  /** How the row's replay of a recorded history started, and why; null for other traces and for plans. */
  start: StartChoice | null;
  /** Who held the memory at the row's peaks and first OOM; null for plans. */
  attribution: AttributionSection | null;
  /**
   * On a recorded history whose run failed: how many of the real run's OOMs (requests that failed
   * on the device, no events of the trace) this row fails at too; absent when none. A row that does
   * is no fit, though it counts no OOM of its own.
   */
  realOomsReproduced?: number;
}

/** A row fails: it ran out of memory, or failed where the real run failed (see {@link runFits}). */
export function entryFails(e: CompareEntry | Omit<CompareEntry, 'rank'>): boolean {
  return !runFits(e);
}

/** `memsim.compare/1`: the JSON report of `compare`, a stable contract for CI. */
export interface CompareReport {
  schema: 'memsim.compare/1';
  tool: { name: 'memsim'; version: string };
  trace: TraceInfo;
  /** The capacity every row ran at (null: unlimited). */
  capacityBytes: number | null;
  onOom: OnOom;
  /** The peak of live bytes: what no allocator can do with less. */
  lowerBound: { peakLiveBytes: number; peakLiveEvent: number; minCapacityBytes: number | null };
  /** The search settings when `--min-capacity` was asked, else null. */
  minCapacity: { stepBytes: number; mode: CapacitySearchMode } | null;
  /** The rows, best first. */
  allocators: CompareEntry[];
  /** Rows `all` stood for that cannot run on this trace, and why. */
  skipped: { name: string; reason: string }[];
  baseline: BaselineComparison | null;
  gates: GateResult[];
  notes: string[];
}

/** How to compare. */
export interface CompareOptions {
  /** Registered names (allocators, `plan:*`) or configurations (`caching[expandable_segments=true]`), or `all` (default). */
  allocators?: readonly string[] | 'all';
  /** Contenders built by the caller (tests, experiments); they run in this thread. */
  contenders?: readonly Contender[];
  /** Options per row name: `{ naive: { page: '4KiB' } }`. */
  options?: Record<string, Record<string, unknown>>;
  /** Capacity of every row (default: the trace's meta capacity, else unlimited). */
  capacityBytes?: number;
  onOom?: OnOom;
  /** How replays of a recorded history start (default: decided per row, see src/sim/start.ts). */
  start?: StartMode;
  /** How to attribute the memory at each row's peaks and first OOM (default on; false: not computed). */
  attribution?: AttributionOptions | false;
  /** Search the minimum capacity of each row. */
  minCapacity?: boolean;
  /** Grid of the search (default 1 MiB). */
  capacityStepBytes?: number;
  capacitySearch?: CapacitySearchMode;
  /**
   * Threads (default: the available cores, or 1 for traces under {@link AUTO_WORKERS_MIN_EVENTS}
   * events); 1 runs everything in this thread.
   */
  jobs?: number;
  /** The worker entry; default the built one next to this module; null: in this thread. */
  workerUrl?: URL | null;
  /** Modules each worker imports first (to register extra allocators). */
  workerModules?: readonly string[];
  /** Workers started before the trace was read (see startWorkersEarly in pool.ts). */
  early?: WorkerPool;
  /** Rows done out of the total, after each one. */
  onProgress?: (done: number, total: number) => void;
}

/** How the work ran: never part of the report, which must not depend on it. */
export interface CompareExecution {
  mode: 'workers' | 'in-thread';
  threads: number;
  /** Why it ran in this thread when more threads were asked. */
  reason?: string;
}

export const DEFAULT_CAPACITY_STEP_BYTES = 1024 * 1024;
export { AUTO_WORKERS_MIN_EVENTS } from './pool.js';

/** The rows to run: the names asked for (or all that can run), and those skipped with why. */
function selectRows(trace: Trace, o: CompareOptions): { names: string[]; skipped: { name: string; reason: string }[] } {
  const skipped: { name: string; reason: string }[] = [];
  let names: string[];
  if (o.allocators === undefined || o.allocators === 'all') {
    names = [];
    for (const l of listContenders(trace)) {
      if (l.skipReason) skipped.push({ name: l.name, reason: l.skipReason });
      else names.push(l.name);
    }
  } else {
    // Rows are named by their configuration's canonical text (`caching[expandable_segments=true]`).
    names = o.allocators.map(canonicalConfiguration);
  }
  const all = [...names, ...(o.contenders ?? []).map((c) => c.name)];
  const dup = all.find((n, k) => all.indexOf(n) !== k);
  if (dup !== undefined) throw new UsageError(`"${dup}" is listed twice`);
  for (const key of Object.keys(o.options ?? {})) {
    if (!all.includes(key)) throw new UsageError(`options given for "${key}", which is not compared (compared: ${all.join(', ') || 'none'})`);
  }
  return { names, skipped };
}

/** Ranks rows: those that fit first, then by peak reserved, then by name (never by timing). */
function rankEntries(entries: Omit<CompareEntry, 'rank'>[]): CompareEntry[] {
  const sorted = [...entries].sort((a, b) => {
    const oa = entryFails(a) ? 1 : 0;
    const ob = entryFails(b) ? 1 : 0;
    if (oa !== ob) return oa - ob;
    if (a.summary.peakReservedBytes !== b.summary.peakReservedBytes) return a.summary.peakReservedBytes - b.summary.peakReservedBytes;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
  return sorted.map((e, k) => ({ rank: k + 1, ...e }));
}

/**
 * Replays one trace through several allocators (and other contenders), at one capacity and, when
 * asked, searches each one's minimum capacity. Rows run in parallel on worker threads over one
 * shared copy of the trace; the report is the same whatever the threads and their timing.
 */
export async function compareTrace(trace: Trace, given0: CompareOptions = {}): Promise<{ report: CompareReport; execution: CompareExecution }> {
  await loadAllAllocators();
  const o: CompareOptions = given0.options
    ? { ...given0, options: Object.fromEntries(Object.entries(given0.options).map(([k, v]) => [canonicalConfiguration(k), v])) }
    : given0;
  if (o.attribution) checkGroupBy(trace, o.attribution.groupBy);
  const { names, skipped } = selectRows(trace, o);
  const given = (name: string): Record<string, unknown> => o.options?.[name] ?? {};
  const adHoc = new Map((o.contenders ?? []).map((c) => [c.name, c]));
  // Built here first so that bad names and options are usage errors before any work starts.
  const settings = settingsOf({ name: '', given: {}, ...(o.start ? { start: o.start } : {}), ...(o.attribution !== undefined ? { attribution: o.attribution } : {}) });
  const rows: Contender[] = [...names.map((n) => createContender(n, given(n), trace, settings)), ...adHoc.values()];
  if (rows.length === 0) throw new UsageError('nothing to compare: no allocator can run on this trace');
  const step = o.capacityStepBytes ?? DEFAULT_CAPACITY_STEP_BYTES;
  if (!Number.isSafeInteger(step) || step <= 0) throw new UsageError(`the capacity step must be a positive whole number of bytes, got ${step}`);
  const fromMeta = trace.meta.capacityBytes;
  const capacity = o.capacityBytes ?? (typeof fromMeta === 'number' ? fromMeta : Infinity);
  const onOom = o.onOom ?? 'stop';
  const mode = o.capacitySearch ?? 'bisect';
  const build = (ref: ContenderRef): Contender => adHoc.get(ref.name) ?? createContender(ref.name, ref.given, trace, settingsOf(ref));
  const { runner, reason } = openRunner(trace, o, rows.length, build, (o.contenders ?? []).length > 0 ? 'contenders built by the caller run in this thread' : undefined);
  let done = 0;
  const search = o.minCapacity ? { stepBytes: step, mode } : null;
  const results: CompareJobResult[] = new Array(rows.length);
  try {
    // The costliest rows start first, so that the threads finish together; each result keeps its row.
    const order = rows.map((_, k) => k).sort((a, b) => (rows[b]?.relativeCost ?? 1) - (rows[a]?.relativeCost ?? 1) || a - b);
    await Promise.all(
      order.map(async (k) => {
        const c = rows[k] as Contender;
        const contender = { name: c.name, given: adHoc.has(c.name) ? {} : given(c.name), ...settings };
        results[k] = await runner.submit({ contender, capacityBytes: capacity, onOom, search });
        o.onProgress?.(++done, rows.length);
      }),
    );
  } finally {
    await runner.close();
  }

  const ran = rows.flatMap((c, k) => {
    const r = results[k] as CompareJobResult;
    if (r.run.skipped === undefined) return [{ c, ...r }];
    skipped.push({ name: c.name, reason: r.run.skipped });
    return [];
  });
  const entries = ran.map(({ c, run, search }) => ({
    name: c.name,
    kind: c.kind,
    options: c.options,
    completed: run.completed,
    summary: run.summary,
    firstOom: run.firstOom,
    minCapacityBytes: search?.minCapacityBytes ?? null,
    replays: 1 + (search?.replays ?? 0),
    search,
    notes: run.notes,
    start: run.start ?? null,
    attribution: run.attribution ?? null,
    ...((run.realOomsReproduced ?? 0) > 0 ? { realOomsReproduced: run.realOomsReproduced } : {}),
  }));
  const peakLive = trace.summary.peakLiveBytes;
  const report: CompareReport = {
    schema: 'memsim.compare/1',
    tool: { name: 'memsim', version: VERSION },
    trace: traceInfo(trace),
    capacityBytes: Number.isFinite(capacity) ? capacity : null,
    onOom,
    lowerBound: { peakLiveBytes: peakLive, peakLiveEvent: trace.summary.peakLiveEvent, minCapacityBytes: o.minCapacity ? Math.ceil(peakLive / step) * step : null },
    minCapacity: o.minCapacity ? { stepBytes: step, mode } : null,
    allocators: rankEntries(entries),
    skipped,
    baseline: null,
    gates: [],
    notes: [...(trace.recorded?.notes ?? []), ...(entries.some((e) => e.kind === 'planner') ? [OFFLINE_BOUND_NOTE] : [])],
  };
  return { report, execution: { mode: runner.mode, threads: runner.threads, ...(reason ? { reason } : {}) } };
}
