import type { Trace } from '../trace/model.js';
import { VERSION } from '../version.js';
import type { OomRecord, ReplayOutcome, StepRecord } from './replay.js';
import type { StartChoice } from './start.js';
import type { AttributionSection } from './holders.js';

/** Ratios in reports are rounded to 6 decimals so that they read well and compare exactly. */
export function ratio(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** The figures of one replay (the `summary` of `memsim.replay/1`). */
export interface ReplaySummary {
  peakLiveBytes: number;
  peakLiveEvent: number;
  peakAllocatedBytes: number;
  peakReservedBytes: number;
  peakReservedEvent: number;
  finalLiveBytes: number;
  finalAllocatedBytes: number;
  finalReservedBytes: number;
  utilization: number;
  fragmentation: number;
  internalFragmentation: number;
  externalFragmentation: number;
  overheadVsLowerBound: number;
  deviceAllocCalls: number;
  deviceFreeCalls: number;
  oomCount: number;
  /** Events replayed (fewer than the trace's when the replay stopped at an OOM). */
  eventsReplayed: number;
  /** Frees of allocations dropped after an OOM under `--on-oom continue`. */
  ignoredFrees: number;
}

/** The trace section of reports. */
export interface TraceInfo {
  path: string;
  format: string;
  /** For a binary trace: the format it was converted from. */
  sourceFormat?: string;
  name: string | null;
  events: number;
  allocs: number;
  frees: number;
  steps: number;
  /** Peak of live bytes over the whole trace: the lower bound of every allocator. */
  peakLiveBytes: number;
  finalLiveBytes: number;
  /** Reconstructed events at the start (allocations live when a recorded window opened). */
  initialEvents: number;
  skipped: { unknownFree: number; doubleAlloc: number };
}

/** The allocator section of `memsim.replay/1`. */
export interface ReplayAllocatorInfo {
  name: string;
  /** Every option with its effective value. */
  options: Record<string, unknown>;
  stats: Record<string, unknown>;
  /**
   * Who chose the allocator: the caller (`request`), the input (`input`: a PyTorch snapshot is
   * replayed by `caching`, a TensorFlow log by `bfc`), or memsim's default for other traces.
   */
  chosenBy?: 'request' | 'input' | 'default';
  /** The options whose effective value is not the allocator's default (given, or from the input). */
  changedOptions?: string[];
}

/** `memsim.replay/1`: the JSON report, a stable contract for CI; text and markdown show the same object. */
export interface ReplayReport {
  schema: 'memsim.replay/1';
  tool: { name: 'memsim'; version: string };
  trace: TraceInfo;
  allocator: ReplayAllocatorInfo;
  capacityBytes: number | null;
  completed: boolean;
  summary: ReplaySummary;
  ooms: OomRecord[];
  steps: StepRecord[];
  timeline: { points: [number, number, number, number][] };
  /** Plain-language remarks from the allocator, the importer and the option resolution. */
  notes: string[];
  /** How a replay of a recorded history started, and why (absent for traces without one). */
  start?: StartChoice;
  /** Who held the memory at the peaks and at each OOM (absent when not asked for). */
  attribution?: AttributionSection;
  /** Extra sections added by allocators or importers (e.g. `fidelity`). */
  [section: string]: unknown;
}

/** The trace section shared by every report. */
export function traceInfo(trace: Pick<Trace, 'path' | 'format' | 'sourceFormat' | 'meta' | 'summary' | 'initialEvents' | 'skipped'>): TraceInfo {
  const name = typeof trace.meta.name === 'string' ? trace.meta.name : null;
  return {
    path: trace.path,
    format: trace.format,
    ...(trace.sourceFormat !== undefined ? { sourceFormat: trace.sourceFormat } : {}),
    name,
    events: trace.summary.events,
    allocs: trace.summary.allocs,
    frees: trace.summary.frees,
    steps: trace.summary.steps,
    peakLiveBytes: trace.summary.peakLiveBytes,
    finalLiveBytes: trace.summary.finalLiveBytes,
    initialEvents: trace.initialEvents,
    skipped: { ...trace.skipped },
  };
}

/** Derives the report figures from a replay's outcome (every definition of spec/report.md). */
export function summarize(o: ReplayOutcome): ReplaySummary {
  const utilization = o.peakReservedBytes > 0 ? o.peakLiveBytes / o.peakReservedBytes : 1;
  const p = o.atPeak;
  const internal = p.allocatedBytes > 0 ? (p.allocatedBytes - p.liveBytes) / p.allocatedBytes : 0;
  // 0 when nothing is free: memory held and not allocated but in no free block (a header, a device's
  // rounding) is overhead, not free memory split into pieces.
  const freeInside = p.reservedBytes - p.allocatedBytes;
  const external = freeInside > 0 && p.largestFreeBlockBytes > 0 ? 1 - p.largestFreeBlockBytes / freeInside : 0;
  const overhead = o.peakLiveBytes > 0 ? o.peakReservedBytes / o.peakLiveBytes - 1 : 0;
  return {
    peakLiveBytes: o.peakLiveBytes,
    peakLiveEvent: o.peakLiveEvent,
    peakAllocatedBytes: o.peakAllocatedBytes,
    peakReservedBytes: o.peakReservedBytes,
    peakReservedEvent: o.peakReservedEvent,
    finalLiveBytes: o.finalLiveBytes,
    finalAllocatedBytes: o.finalAllocatedBytes,
    finalReservedBytes: o.finalReservedBytes,
    utilization: ratio(utilization),
    fragmentation: ratio(1 - utilization),
    internalFragmentation: ratio(internal),
    externalFragmentation: ratio(external),
    overheadVsLowerBound: ratio(overhead),
    deviceAllocCalls: o.deviceAllocCalls,
    deviceFreeCalls: o.deviceFreeCalls,
    oomCount: o.oomCount,
    eventsReplayed: o.eventsReplayed,
    ignoredFrees: o.ignoredFrees,
  };
}

/** Assembles `memsim.replay/1`. */
export function buildReplayReport(
  trace: Trace,
  allocator: ReplayAllocatorInfo,
  capacityBytes: number,
  outcome: ReplayOutcome,
  notes: string[],
): ReplayReport {
  return {
    schema: 'memsim.replay/1',
    tool: { name: 'memsim', version: VERSION },
    trace: traceInfo(trace),
    allocator,
    capacityBytes: Number.isFinite(capacityBytes) ? capacityBytes : null,
    completed: outcome.completed,
    summary: summarize(outcome),
    ooms: outcome.ooms,
    steps: outcome.steps,
    timeline: { points: outcome.timeline },
    notes,
  };
}

/** One of the real run's OOMs (a request that failed on the device, no event of the trace) as a simulation met it. */
export interface RealRunOom {
  beforeEvent: number;
  entry: string | null;
  sizeBytes: number;
  /** What the real allocator could hold then (null when not recorded). */
  limitBytes: number | null;
  /** The simulation fails there too (null: it cannot tell). */
  reproduced: boolean | null;
  /** The simulated allocator's message where it fails there too. */
  message?: string;
}

/**
 * The real run's OOMs of a report that simulates a recorded history (its `fidelity.recordedOoms`);
 * none when the allocator replays the history itself (they are its own OOMs then).
 */
export function realRunOoms(report: ReplayReport): RealRunOom[] {
  if (report.ooms.some((o) => o.recorded)) return [];
  return (report['fidelity'] as { recordedOoms?: RealRunOom[] } | undefined)?.recordedOoms ?? [];
}
