import { checkGroupBy, DEFAULT_STACK_DEPTH, DEFAULT_TOP, type GroupBy } from '../attribution/index.js';
import { listAllocators } from '../allocators/index.js';
import { UsageError } from '../errors.js';
import type { OnOom } from '../sim/replay.js';
import { traceInfo } from '../sim/report.js';
import type { StartMode } from '../sim/start.js';
import type { CapacitySearchMode } from '../sweep/capacity-search.js';
import { compareTrace, type CompareEntry } from '../sweep/compare.js';
import type { Trace } from '../trace/model.js';
import { formatBytes } from '../util/bytes.js';
import { canonicalConfiguration } from '../util/configuration.js';
import { VERSION } from '../version.js';
import { evaluateGrowthGates, type GrowthGate } from './gates.js';
import { diffHolders } from './holders-diff.js';
import type { DiffEntry, DiffReport, DiffSide, FigureDelta } from './types.js';

/** How to diff. */
export interface DiffOptions {
  /** Allocator names or configurations; default {@link defaultDiffAllocators}. */
  allocators?: readonly string[];
  /** Options per allocator name. */
  options?: Record<string, Record<string, unknown>>;
  /** Capacity of every replay (default: each trace's meta capacity, else unlimited). */
  capacityBytes?: number;
  onOom?: OnOom;
  minCapacity?: boolean;
  capacityStepBytes?: number;
  capacitySearch?: CapacitySearchMode;
  start?: StartMode;
  /** Default: `frame` when both traces have stacks, else `tag`. */
  groupBy?: GroupBy;
  /** Changes of holders listed per peak (default 10). */
  top?: number;
  stackDepth?: number;
  jobs?: number;
  gates?: readonly GrowthGate[];
}

/** Every group of a moment is kept for a diff (a group in one side's "everything else" is no change). */
const ALL_GROUPS = 1_000_000_000;

/**
 * The allocator a diff runs by default: the one that simulates the allocator the traces were
 * recorded with (`caching` for PyTorch snapshots, `bfc` for TensorFlow logs), else `caching`.
 */
export function defaultDiffAllocators(before: Trace, after: Trace): string[] {
  const of = (t: Trace): string => {
    const rec = t.recorded?.allocator;
    return (rec !== undefined ? listAllocators().find((d) => d.recordedAs?.includes(rec))?.name : undefined) ?? 'caching';
  };
  return [...new Set([of(before), of(after)])];
}

function side(e: CompareEntry): DiffSide {
  return {
    completed: e.completed,
    oomCount: e.summary.oomCount,
    peakLiveBytes: e.summary.peakLiveBytes,
    peakReservedBytes: e.summary.peakReservedBytes,
    minCapacityBytes: e.minCapacityBytes,
  };
}

function delta(before: number, after: number): FigureDelta {
  return { bytes: after - before, ratio: before > 0 ? Math.round(((after - before) / before) * 1e6) / 1e6 : null };
}

/**
 * Replays two traces of the same workload (e.g. snapshots before and after a code change) through
 * the same allocators and says what changed: peak live, peak reserved, minimum capacity, and which
 * groups of allocations grew, shrank, appeared or vanished at the peaks. Each side runs on the sweep
 * engine of `compare` (worker threads, capacity search); the report does not depend on threads.
 */
export async function diffTraces(before: Trace, after: Trace, o: DiffOptions = {}): Promise<DiffReport> {
  const allocators = o.allocators ?? defaultDiffAllocators(before, after);
  if (allocators.length === 0) throw new UsageError('--allocators: no allocator named');
  const groupBy = o.groupBy ?? (before.stacks && after.stacks ? 'frame' : 'tag');
  checkGroupBy(before, groupBy);
  checkGroupBy(after, groupBy);
  const stackDepth = o.stackDepth ?? DEFAULT_STACK_DEPTH;
  const top = o.top ?? DEFAULT_TOP;
  const run = (t: Trace) =>
    compareTrace(t, {
      allocators,
      ...(o.options ? { options: o.options } : {}),
      ...(o.capacityBytes !== undefined ? { capacityBytes: o.capacityBytes } : {}),
      onOom: o.onOom ?? 'stop',
      minCapacity: o.minCapacity ?? false,
      ...(o.capacityStepBytes !== undefined ? { capacityStepBytes: o.capacityStepBytes } : {}),
      ...(o.capacitySearch ? { capacitySearch: o.capacitySearch } : {}),
      ...(o.start ? { start: o.start } : {}),
      ...(o.jobs !== undefined ? { jobs: o.jobs } : {}),
      attribution: { groupBy, top: ALL_GROUPS, stackDepth },
    });
  const order = allocators.map(canonicalConfiguration);
  const b = (await run(before)).report;
  const a = (await run(after)).report;
  const entries: DiffEntry[] = b.allocators
    .map((eb) => [eb, a.allocators.find((x) => x.name === eb.name)] as const)
    .filter((p): p is readonly [CompareEntry, CompareEntry] => p[1] !== undefined)
    .sort((x, y) => order.indexOf(x[0].name) - order.indexOf(y[0].name))
    .map(([eb, ea]) => {
      const sb = side(eb);
      const sa = side(ea);
      return {
        name: eb.name,
        options: ea.options,
        before: sb,
        after: sa,
        change: {
          peakLiveBytes: delta(sb.peakLiveBytes, sa.peakLiveBytes),
          peakReservedBytes: delta(sb.peakReservedBytes, sa.peakReservedBytes),
          minCapacityBytes: sb.minCapacityBytes !== null && sa.minCapacityBytes !== null ? delta(sb.minCapacityBytes, sa.minCapacityBytes) : null,
        },
        holders: {
          peakLive: diffHolders(eb.attribution?.peakLive ?? null, ea.attribution?.peakLive ?? null, top),
          peakReserved: diffHolders(eb.attribution?.peakReserved ?? null, ea.attribution?.peakReserved ?? null, top),
        },
        notes: [...eb.notes.map((n) => `before: ${n}`), ...ea.notes.map((n) => `after: ${n}`)],
      };
    });
  const capacity = o.capacityBytes;
  const notes = [...b.skipped.map((s) => `before: skipped ${s.name}: ${s.reason}`), ...a.skipped.map((s) => `after: skipped ${s.name}: ${s.reason}`)];
  const own = (t: Trace): number => (typeof t.meta.capacityBytes === 'number' ? t.meta.capacityBytes : Infinity);
  if (capacity === undefined && own(before) !== own(after)) {
    const text = (x: number): string => (Number.isFinite(x) ? formatBytes(x) : 'unlimited');
    notes.push(`the traces ran at different capacities, their own (before ${text(own(before))}, after ${text(own(after))}): --capacity runs both at one`);
  }
  return {
    schema: 'memsim.diff/1',
    tool: { name: 'memsim', version: VERSION },
    before: traceInfo(before),
    after: traceInfo(after),
    capacityBytes: capacity !== undefined && Number.isFinite(capacity) ? capacity : null,
    onOom: o.onOom ?? 'stop',
    minCapacity: b.minCapacity,
    groupBy,
    stackDepth: groupBy === 'stack' ? stackDepth : null,
    top,
    allocators: entries,
    gates: evaluateGrowthGates(entries, o.gates ?? []),
    notes,
  };
}
