import type { GroupBy } from '../attribution/index.js';
import type { TraceInfo } from '../sim/report.js';
import type { CapacitySearchMode } from '../sweep/capacity-search.js';
import type { OnOom } from '../sim/replay.js';
import type { DiffGateResult } from './gates.js';
import type { HoldersDiff } from './holders-diff.js';

/** The figures `diff` compares. */
export type DiffFigure = 'peakLiveBytes' | 'peakReservedBytes' | 'minCapacityBytes';

/** One allocator's figures on one trace. */
export interface DiffSide {
  completed: boolean;
  oomCount: number;
  peakLiveBytes: number;
  peakReservedBytes: number;
  /** With `--min-capacity`; null otherwise, or when nothing fits. */
  minCapacityBytes: number | null;
}

/** A figure's change: after - before, and that over before (null when before is 0 or unknown). */
export interface FigureDelta {
  bytes: number;
  ratio: number | null;
}

/** One allocator, before and after. */
export interface DiffEntry {
  name: string;
  options: Record<string, unknown>;
  before: DiffSide;
  after: DiffSide;
  change: { peakLiveBytes: FigureDelta; peakReservedBytes: FigureDelta; minCapacityBytes: FigureDelta | null };
  /** Who held the memory at the peaks, side by side. */
  holders: { peakLive: HoldersDiff; peakReserved: HoldersDiff };
  notes: string[];
}

/** `memsim.diff/1`: two traces of one workload through the same allocators. */
export interface DiffReport {
  schema: 'memsim.diff/1';
  tool: { name: 'memsim'; version: string };
  before: TraceInfo;
  after: TraceInfo;
  /** The capacity both sides ran at (null: each its own, or unlimited). */
  capacityBytes: number | null;
  onOom: OnOom;
  minCapacity: { stepBytes: number; mode: CapacitySearchMode } | null;
  groupBy: GroupBy;
  stackDepth: number | null;
  /** Changes of holders listed per peak (the rest are summed). */
  top: number;
  allocators: DiffEntry[];
  gates: DiffGateResult[];
  notes: string[];
}
