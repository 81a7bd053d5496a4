/**
 * The data of `memsim tune`: a part (what one run or one shard computed) and the report assembled
 * from one or more parts. Both are plain JSON, so that parts cross machines and merge exactly.
 */
import type { TraceInfo } from '../sim/report.js';
import type { OomRecord } from '../sim/replay.js';

/** One option a configuration changes against the current configuration. */
export interface OptionChange {
  key: string;
  /** Effective value in the current configuration. */
  from: unknown;
  /** Effective value in this one. */
  to: unknown;
}

/** One configuration tried: its figures at the capacity and its minimum capacity. */
export interface TuneRow {
  /** 1 = best: fits at the capacity, then lowest minimum capacity, lowest peak reserved, fewest device calls. */
  rank: number;
  /** The configuration as users write it: `caching[expandable_segments=true]`. */
  name: string;
  allocator: string;
  /** The options the configuration's name sets, with their effective values (none for an allocator's defaults). */
  options: Record<string, unknown>;
  /** The configuration in force now: the recording's settings, else the allocator's defaults. */
  current: boolean;
  /** An allocator with nothing to tune (`naive`, `recorded`), shown for reference, never recommended. */
  reference: boolean;
  /** Runs the whole trace without OOM at the capacity. */
  fits: boolean;
  /** Smallest capacity on the grid at which it fits (verified: see the compare command's search). */
  minCapacityBytes: number | null;
  /** Peak reserved bytes of the run at the capacity (up to its OOM when it did not fit). */
  peakReservedBytes: number;
  /** OOMs of the run at the capacity (it stops at the first, as a real program would). */
  oomCount: number;
  /** The first OOM's kind: capacity (no setting can help) or fragmentation (a setting could). */
  oomKind: OomRecord['kind'] | null;
  /**
   * On a recorded history: the real run's OOMs (requests that failed on the device, no events of the
   * trace) at which this configuration fails too at the capacity (present when there are any).
   */
  realOomsReproduced?: number;
  deviceAllocCalls: number;
  deviceFreeCalls: number;
  /** The setting as the user types it (null for reference rows). */
  setting: string | null;
  /** What it changes against the current configuration of its allocator. */
  changes: OptionChange[];
  /** Replays it took: the run at the capacity, the unlimited one, the search's. */
  replays: number;
  /**
   * How its replays of a recorded history started: `recorded` (the recorded layout) or `fresh`
   * (the window's live blocks through the allocator first); null for traces without one.
   */
  start: 'recorded' | 'fresh' | null;
  /** Remarks of the current and reference rows (option resolution, the allocator's own notes). */
  notes?: string[];
}

/** One allocator's space as the run saw it. */
export interface TuneSpace {
  allocator: string;
  reference: boolean;
  /** The current configuration's name: the allocator's, with the options `--current` stated. */
  current: string;
  /** The current configuration's setting, as the user types it (null for reference rows). */
  currentSetting: string | null;
  keys: { key: string; values: string[] }[];
  /** Points of the full grid. */
  points: number;
  /** `all`: every point replayed; `search`: searched (over 64 points); `reference`: one row. */
  method: 'all' | 'search' | 'reference';
}

/** What every part of one tuning must agree on. */
export interface TuneSettings {
  allocators: string[];
  capacityBytes: number | null;
  capacityStepBytes: number;
  exhaustive: boolean;
  /** `--start`, when given; null: decided per row (the current configuration recorded, others fresh). */
  start: 'recorded' | 'fresh' | null;
  spaces: TuneSpace[];
  /** Units of work the space was cut into (an enumerated point, a whole search, a reference row). */
  units: number;
}

/** `memsim.tune-part/1`: what one run (or one shard of it) computed, unranked. */
export interface TunePart {
  schema: 'memsim.tune-part/1';
  tool: { name: 'memsim'; version: string };
  /** Which slice this is (1-based), of how many; 1/1 for a whole run. */
  shard: { index: number; count: number };
  trace: TraceInfo;
  lowerBound: { peakLiveBytes: number; peakLiveEvent: number };
  settings: TuneSettings;
  rows: TuneRow[];
  notes: string[];
}

/** The answer: the configuration to use and what it changes. */
export interface TuneRecommendation {
  allocator: string;
  /** The configuration as `NAME[key=value,…]`. */
  name: string;
  options: Record<string, unknown>;
  /** The line to paste (`PYTORCH_CUDA_ALLOC_CONF=…`, `TF_FORCE_GPU_ALLOW_GROWTH=true`, DeepRec's variables). */
  setting: string;
  fits: boolean;
  minCapacityBytes: number | null;
  peakReservedBytes: number;
  /** Peak reserved of the current configuration minus this one's (negative: it reserves more). */
  savingBytes: number;
  /** Minimum capacity of the current configuration minus this one's (null when either has none). */
  minCapacitySavingBytes: number | null;
  changes: OptionChange[];
  /** True when the current configuration is itself the best. */
  isCurrent: boolean;
  /** The current configuration of the same allocator, for the comparison. */
  current: { name: string; setting: string; fits: boolean; minCapacityBytes: number | null; peakReservedBytes: number };
}

/** When no configuration fits at the capacity: how close the best came and why. */
export interface TuneShortfall {
  /** The smallest minimum capacity of any configuration, and which. */
  smallestMinCapacityBytes: number | null;
  smallestBy: string | null;
  /**
   * `capacity`: the trace's live bytes alone exceed the capacity, no setting can help;
   * `fragmentation`: they fit, so the OOMs are the allocators' (rounding, caching, splitting).
   */
  kind: 'capacity' | 'fragmentation';
}

/** `memsim.tune/1`: the report of `tune`, a stable contract for CI. */
export interface TuneReport {
  schema: 'memsim.tune/1';
  tool: { name: 'memsim'; version: string };
  /** The best configuration of an allocator that can be tuned (null when there is none). */
  recommendation: TuneRecommendation | null;
  /** Set when nothing fits at the capacity. */
  shortfall: TuneShortfall | null;
  trace: TraceInfo;
  capacityBytes: number | null;
  capacityStepBytes: number;
  lowerBound: { peakLiveBytes: number; peakLiveEvent: number; minCapacityBytes: number };
  spaces: (TuneSpace & { tried: number; replays: number })[];
  /** Every configuration tried, best first. */
  rows: TuneRow[];
  /** Replays of the whole tuning. */
  replays: number;
  notes: string[];
}
