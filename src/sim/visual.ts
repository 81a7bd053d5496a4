import { allocatorConfiguration, listAllocators } from '../allocators/index.js';
import { parseConfiguration } from '../util/configuration.js';
import { OP_ALLOC, type Trace } from '../trace/model.js';
import { VERSION } from '../version.js';
import type { OnOom, OomRecord } from './replay.js';
import { type RealRunOom, realRunOoms, type ReplaySummary, type TraceInfo, traceInfo } from './report.js';
import { replay, type RunOptions, type RunResult } from './run.js';
import type { StartMode } from './start.js';
import type { GroupBy, MomentHolders } from '../attribution/index.js';
import { TimelineSampler } from './timeline.js';
import { compactState, type CompactState, NameTable } from './visual-state.js';
import { holdersOfStates, type VisualAttribution, type VisualHolders } from './visual-holders.js';

/** Why a state is in the report. */
export type MomentReason = 'peak-reserved' | 'peak-live' | 'oom' | 'real-oom' | 'sample';

/** An allocator's state at one moment, as the HTML report draws it. */
export interface VisualState extends CompactState {
  /** The state after this event (for an OOM: when the request at this event failed). */
  event: number;
  step: number;
  reason: MomentReason;
  /** For an OOM: its index in the run's `ooms`. */
  oom: number | null;
  /**
   * The state when the real run's OOM (a simulation of a recorded history) came, whatever the
   * reason: its index in the run's `realRunOoms`; absent for other states.
   */
  realOom?: number;
  /** Who held the memory then, and each piece's group (null when not computed). */
  holders: VisualHolders | null;
}

/** Columns of a downsampled curve. */
export interface VisualTimeline {
  event: number[];
  live: number[];
  allocated: number[];
  reserved: number[];
}

/** Per-step peaks; consecutive steps are merged `groupSize` at a time when there are too many. */
export interface VisualSteps {
  step: number[];
  live: number[];
  allocated: number[];
  reserved: number[];
  groupSize: number;
}

/** One allocator's replay as the HTML report shows it. */
export interface VisualRun {
  name: string;
  kind: 'allocator' | 'recorded';
  options: Record<string, unknown>;
  completed: boolean;
  summary: ReplaySummary;
  ooms: OomRecord[];
  stats: Record<string, unknown>;
  notes: string[];
  timeline: VisualTimeline;
  steps: VisualSteps;
  /** Ordered by event; several reasons at one event keep the first of peak-reserved, peak-live, real-oom, sample. */
  states: VisualState[];
  /** How the states' holders are grouped (null when not computed). */
  attribution: VisualAttribution | null;
  /** For a simulation of a recorded history: the real run's OOMs, whether it fails there too, and who held the memory. */
  realRunOoms?: VisualRealOom[];
}

/** A real run's OOM with who held the memory when it failed (null without attribution). */
export interface VisualRealOom extends RealRunOom {
  holders: MomentHolders | null;
}

/** {@link realRunOoms} with who held the memory at each. */
function realRunOomsOf(report: RunResult['report']): VisualRealOom[] {
  return realRunOoms(report).map((o, k) => ({
    beforeEvent: o.beforeEvent,
    entry: o.entry,
    sizeBytes: o.sizeBytes,
    limitBytes: o.limitBytes,
    reproduced: o.reproduced,
    ...(o.message !== undefined ? { message: o.message } : {}),
    holders: report.attribution?.realRunOoms?.[k] ?? null,
  }));
}

/** How much the page carries. */
export interface VisualSettings {
  /** Timeline points per allocator (default 4000). */
  timelinePoints: number;
  /** Evenly spaced states per allocator, for picking on the timeline (default 32). */
  sampleStates: number;
  /** OOM states per allocator (default 16). */
  oomStates: number;
  /** Pieces at most in a peak or OOM state (default 4000) and in a sampled one (default 1000). */
  detailPieces: number;
  samplePieces: number;
  /** Bars of the per-step chart at most (default 2000). */
  stepBars: number;
  /** Step boundaries kept for the step axis (default 5000). */
  stepMarks: number;
}

export const DEFAULT_VISUAL_SETTINGS: VisualSettings = {
  timelinePoints: 4000,
  sampleStates: 32,
  oomStates: 16,
  detailPieces: 4000,
  samplePieces: 1000,
  stepBars: 2000,
  stepMarks: 5000,
};

/** `memsim.visual/1`: everything the HTML report shows, assembled once, rendered by a pure function. */
export interface VisualReport<C extends ComparedRows = ComparedRows> {
  schema: 'memsim.visual/1';
  tool: { name: 'memsim'; version: string };
  /** The command that made it: `replay`, `compare`, `report`. */
  command: string;
  trace: TraceInfo;
  capacityBytes: number | null;
  onOom: OnOom;
  /** Live bytes of the trace itself (what every allocator is asked for), downsampled. */
  demand: { event: number[]; live: number[] };
  /** Events where the step changes (first event of each run of one step id), for the step axis. */
  stepMarks: { event: number[]; step: number[]; isComplete: boolean };
  runs: VisualRun[];
  /** The comparison (tables, gates, baseline), when the report comes from one. */
  compare: C | null;
  tags: string[];
  kinds: string[];
  settings: VisualSettings;
  notes: string[];
}

/** Names shared by the runs of one report (tags and segment kinds are interned once). */
export interface VisualContext {
  trace: Trace;
  settings: VisualSettings;
  tags: NameTable;
  kinds: NameTable;
}

/** A context for collecting the runs of one report. */
export function visualContext(trace: Trace, settings: Partial<VisualSettings> = {}): VisualContext {
  return { trace, settings: { ...DEFAULT_VISUAL_SETTINGS, ...settings }, tags: new NameTable(), kinds: new NameTable() };
}

/** `n` events spread evenly over [0, last], ending at `last`. */
export function sampleEvents(last: number, n: number): number[] {
  if (last < 0 || n <= 0) return [];
  const out: number[] = [];
  for (let k = 1; k <= n; k++) {
    const e = Math.round((k * (last + 1)) / n) - 1;
    if (e >= 0 && e !== out[out.length - 1]) out.push(e);
  }
  return out;
}

function groupSteps(run: RunResult, maxBars: number): VisualSteps {
  const steps = run.outcome.steps;
  const groupSize = Math.max(1, Math.ceil(steps.length / Math.max(1, maxBars)));
  const out: VisualSteps = { step: [], live: [], allocated: [], reserved: [], groupSize };
  for (let k = 0; k < steps.length; k += groupSize) {
    let live = 0;
    let allocated = 0;
    let reserved = 0;
    for (const s of steps.slice(k, k + groupSize)) {
      live = Math.max(live, s.peakLiveBytes);
      allocated = Math.max(allocated, s.peakAllocatedBytes);
      reserved = Math.max(reserved, s.peakReservedBytes);
    }
    out.step.push(steps[k]?.step ?? 0);
    out.live.push(live);
    out.allocated.push(allocated);
    out.reserved.push(reserved);
  }
  return out;
}

function columns(points: readonly (readonly number[])[]): VisualTimeline {
  return {
    event: points.map((p) => p[0] as number),
    live: points.map((p) => p[1] as number),
    allocated: points.map((p) => p[2] as number),
    reserved: points.map((p) => p[3] as number),
  };
}

/**
 * Replays one allocator for the HTML report. The first pass is the ordinary replay (with a denser
 * timeline and the states at OOMs); once it has found the peaks, a second pass of the same,
 * deterministic replay captures the states at the peaks and at evenly spaced events, so that any
 * point picked on the timeline has a state near it. Hooks in `run` (placements, progress) see the
 * first pass only.
 * @returns the first pass's result (the `memsim.replay/1` report) and the run for the page.
 */
export function collectVisualRun(ctx: VisualContext, run: RunOptions): { result: RunResult; visual: VisualRun } {
  const { trace, settings } = ctx;
  const result = replay(trace, { ...run, timelinePoints: settings.timelinePoints, captureOomStates: settings.oomStates > 0 });
  const { report, outcome } = result;
  const lastEvent = outcome.completed ? trace.length - 1 : outcome.eventsReplayed - 2;
  const wanted = new Map<number, MomentReason>();
  if (outcome.peakReservedEvent >= 0) wanted.set(outcome.peakReservedEvent, 'peak-reserved');
  if (outcome.peakLiveEvent >= 0 && !wanted.has(outcome.peakLiveEvent)) wanted.set(outcome.peakLiveEvent, 'peak-live');
  // The real run's failed requests are no events: the state after the event before each is the one they met.
  const realAt = new Map<number, number>();
  realRunOoms(report).forEach((o, k) => {
    const e = o.beforeEvent - 1;
    if (e < 0 || e > lastEvent || realAt.has(e)) return;
    realAt.set(e, k);
    if (!wanted.has(e)) wanted.set(e, 'real-oom');
  });
  for (const e of sampleEvents(lastEvent, settings.sampleStates)) if (!wanted.has(e)) wanted.set(e, 'sample');

  const states: VisualState[] = [];
  const stepOf = (e: number): number => (e >= 0 && e < trace.length ? (trace.step[e] as number) : 0);
  const detail = { pieces: settings.detailPieces, segments: Math.max(2, Math.floor(settings.detailPieces / 2)), ids: true };
  const sample = { pieces: settings.samplePieces, segments: Math.max(2, Math.floor(settings.samplePieces / 2)), ids: false };
  if (wanted.size > 0) {
    const { onPlacement: _p, onProgress: _q, ...plain } = run;
    const second = replay(trace, { ...plain, timelinePoints: 16, captureStateAt: [...wanted.keys()], captureOomStates: false, attribution: false });
    if (second.outcome.peakReservedBytes !== outcome.peakReservedBytes || second.outcome.eventsReplayed !== outcome.eventsReplayed) {
      throw new Error(`internal error: allocator "${report.allocator.name}" replayed the same trace differently twice (peak reserved ${outcome.peakReservedBytes} then ${second.outcome.peakReservedBytes})`);
    }
    for (const c of second.outcome.states) {
      const reason = wanted.get(c.event) ?? 'sample';
      const caps = reason === 'sample' ? sample : detail;
      const real = realAt.get(c.event);
      states.push({ event: c.event, step: stepOf(c.event), reason, oom: null, ...(real !== undefined ? { realOom: real } : {}), holders: null, ...compactState(c.state, trace, ctx.tags, ctx.kinds, caps) });
    }
  }
  let k = 0;
  for (const c of outcome.states) {
    if (c.reason !== 'oom') continue;
    if (k < settings.oomStates && k < outcome.ooms.length) {
      states.push({ event: c.event, step: stepOf(c.event), reason: 'oom', oom: k, holders: null, ...compactState(c.state, trace, ctx.tags, ctx.kinds, detail) });
    }
    k++;
  }
  // An OOM's state is the state before its request, so it sorts before a capture after that event.
  states.sort((a, b) => a.event - b.event || (a.reason === 'oom' ? 0 : 1) - (b.reason === 'oom' ? 0 : 1));
  let attribution: VisualAttribution | null = null;
  if (run.attribution !== false) {
    const held = holdersOfStates(trace, states, outcome.droppedAllocations, run.attribution ?? {});
    attribution = held.attribution;
    states.forEach((s, k) => (s.holders = held.holders[k] ?? null));
  }
  const visual: VisualRun = {
    name: report.allocator.name,
    kind: allocatorConfiguration(report.allocator.name).def.needsRecordedHistory ? 'recorded' : 'allocator',
    options: report.allocator.options,
    completed: report.completed,
    summary: report.summary,
    ooms: report.ooms,
    stats: report.allocator.stats,
    notes: report.notes,
    timeline: columns(outcome.timeline),
    steps: groupSteps(result, settings.stepBars),
    states,
    attribution,
  };
  const real = realRunOomsOf(report);
  if (real.length > 0) visual.realRunOoms = real;
  return { result, visual };
}

/** What {@link collectComparedRuns} reads of a comparison (`memsim.compare/1`, built in `src/sweep/`). */
export interface ComparedRows {
  /** `start`: how the row's replay of a recorded history started (replayed again the same way). */
  /** `attribution`: the row's grouping of who holds the memory (the page groups its states so). */
  allocators: readonly {
    name: string;
    kind: string;
    start?: { mode: StartMode; isAsked: boolean } | null;
    attribution?: { groupBy: GroupBy; top: number; stackDepth: number | null } | null;
  }[];
  capacityBytes: number | null;
  onOom: OnOom;
}

/**
 * The runs of a comparison's rows that replay event by event (registered allocators, including the
 * recorded history), in the comparison's order, with the same options, capacity and OOM policy.
 * Offline plans have no timeline and are left to the tables.
 */
export function collectComparedRuns(
  ctx: VisualContext,
  compare: ComparedRows,
  given: Record<string, Record<string, unknown>>,
  onProgress?: (done: number, total: number) => void,
): VisualRun[] {
  const registered = new Set(listAllocators().map((d) => d.name));
  const rows = compare.allocators.filter((e) => e.kind !== 'planner' && registered.has(parseConfiguration(e.name).name));
  return rows.map((e, k) => {
    const start = e.start?.isAsked ? { start: e.start.mode } : {};
    const a = e.attribution;
    const attribution = a ? { groupBy: a.groupBy, top: a.top, ...(a.stackDepth !== null ? { stackDepth: a.stackDepth } : {}) } : undefined;
    const { visual } = collectVisualRun(ctx, {
      allocator: e.name,
      options: given[e.name] ?? {},
      capacityBytes: compare.capacityBytes ?? Infinity,
      onOom: compare.onOom,
      ...start,
      ...(attribution ? { attribution } : {}),
    });
    onProgress?.(k + 1, rows.length);
    // A variant (`caching[expandable_segments=true]`) keeps its row's name.
    return { ...visual, name: e.name };
  });
}

/** Live bytes of the trace itself, downsampled as the replays' timelines are. */
function demandTimeline(trace: Trace, points: number): VisualReport['demand'] {
  const sampler = new TimelineSampler(points);
  const { op, size } = trace;
  let live = 0;
  for (let i = 0; i < trace.length; i++) {
    live += op[i] === OP_ALLOC ? (size[i] as number) : -(size[i] as number);
    sampler.add(i, live, 0, 0);
  }
  const peak = trace.summary.peakLiveEvent;
  if (peak >= 0) sampler.pin(peak, trace.summary.peakLiveBytes, 0, 0);
  const pts = sampler.points();
  return { event: pts.map((p) => p[0]), live: pts.map((p) => p[1]) };
}

/** The first event of each run of one step id, thinned evenly to at most `max` marks. */
function stepMarks(trace: Trace, max: number): VisualReport['stepMarks'] {
  const ev: number[] = [];
  const st: number[] = [];
  let prev = NaN;
  for (let i = 0; i < trace.length; i++) {
    const s = trace.step[i] as number;
    if (s !== prev) {
      ev.push(i);
      st.push(s);
      prev = s;
    }
  }
  if (ev.length <= max) return { event: ev, step: st, isComplete: true };
  const keep = sampleEvents(ev.length - 1, max);
  return { event: keep.map((k) => ev[k] as number), step: keep.map((k) => st[k] as number), isComplete: false };
}

/** Assembles `memsim.visual/1` from the collected runs. */
export function buildVisualReport<C extends ComparedRows = ComparedRows>(
  ctx: VisualContext,
  runs: VisualRun[],
  o: { command: string; capacityBytes: number; onOom: OnOom; compare?: C | null; notes?: string[] },
): VisualReport<C> {
  const { trace, settings } = ctx;
  return {
    schema: 'memsim.visual/1',
    tool: { name: 'memsim', version: VERSION },
    command: o.command,
    trace: traceInfo(trace),
    capacityBytes: Number.isFinite(o.capacityBytes) ? o.capacityBytes : null,
    onOom: o.onOom,
    demand: demandTimeline(trace, settings.timelinePoints),
    stepMarks: stepMarks(trace, settings.stepMarks),
    runs,
    compare: o.compare ?? null,
    tags: [...ctx.tags.names],
    kinds: [...ctx.kinds.names],
    settings,
    notes: o.notes ?? [],
  };
}
