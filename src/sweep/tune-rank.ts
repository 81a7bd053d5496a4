/**
 * The order of `memsim tune`'s rows, and the answer read from it: the recommendation, or, when
 * nothing fits, how short the best configuration falls and why.
 */
import type { TuneRecommendation, TuneRow, TuneShortfall } from './tune-types.js';

/** The figures and names the ranking reads. */
export type Rankable = Pick<TuneRow, 'name' | 'allocator' | 'fits' | 'minCapacityBytes' | 'peakReservedBytes' | 'deviceAllocCalls' | 'deviceFreeCalls' | 'current' | 'changes'>;

const byNumber = (a: number, b: number): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Negative when `a` ranks before `b`: fits at the capacity first, then the lowest minimum capacity,
 * the lowest peak reserved, the fewest device calls. Ties go to the current configuration, then to
 * the one that changes fewer options, then by allocator (in the order asked) and name, so that the
 * order never depends on how the work was split or scheduled.
 */
export function compareRows(a: Rankable, b: Rankable, allocators: readonly string[]): number {
  if (a.fits !== b.fits) return a.fits ? -1 : 1;
  const min = byNumber(a.minCapacityBytes ?? Infinity, b.minCapacityBytes ?? Infinity);
  if (min !== 0) return min;
  const peak = byNumber(a.peakReservedBytes, b.peakReservedBytes);
  if (peak !== 0) return peak;
  const calls = byNumber(a.deviceAllocCalls + a.deviceFreeCalls, b.deviceAllocCalls + b.deviceFreeCalls);
  if (calls !== 0) return calls;
  if (a.current !== b.current) return a.current ? -1 : 1;
  const changes = byNumber(a.changes.length, b.changes.length);
  if (changes !== 0) return changes;
  const order = byNumber(allocators.indexOf(a.allocator), allocators.indexOf(b.allocator));
  if (order !== 0) return order;
  return naturalCompare(a.name, b.name);
}

/**
 * Compares texts with their runs of digits as numbers (`max_split_size_mb=64` before `=128`), then
 * code unit by code unit: the same order on every machine, unlike a locale's collation.
 */
export function naturalCompare(a: string, b: string): number {
  const pa = a.match(/\d+|\D+/g) ?? [];
  const pb = b.match(/\d+|\D+/g) ?? [];
  for (let k = 0; k < Math.min(pa.length, pb.length); k++) {
    const x = pa[k] as string;
    const y = pb[k] as string;
    if (x === y) continue;
    const nx = /^\d/.test(x) && /^\d/.test(y);
    if (nx && Number(x) !== Number(y)) return Number(x) < Number(y) ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Rows best first, numbered from 1. */
export function rankRows(rows: readonly TuneRow[], allocators: readonly string[]): TuneRow[] {
  return [...rows].sort((a, b) => compareRows(a, b, allocators)).map((r, k) => ({ ...r, rank: k + 1 }));
}

/** The best row of an allocator that can be tuned, set against that allocator's current row. */
export function recommend(ranked: readonly TuneRow[]): TuneRecommendation | null {
  const best = ranked.find((r) => !r.reference);
  if (!best) return null;
  const current = ranked.find((r) => r.current && r.allocator === best.allocator) ?? best;
  const minSaving = best.minCapacityBytes !== null && current.minCapacityBytes !== null ? current.minCapacityBytes - best.minCapacityBytes : null;
  return {
    allocator: best.allocator,
    name: best.name,
    options: best.options,
    setting: best.setting ?? '',
    fits: best.fits,
    minCapacityBytes: best.minCapacityBytes,
    peakReservedBytes: best.peakReservedBytes,
    savingBytes: current.peakReservedBytes - best.peakReservedBytes,
    minCapacitySavingBytes: minSaving,
    changes: best.changes,
    isCurrent: best.current,
    current: {
      name: current.name,
      setting: current.setting ?? '',
      fits: current.fits,
      minCapacityBytes: current.minCapacityBytes,
      peakReservedBytes: current.peakReservedBytes,
    },
  };
}

/**
 * When no configuration that can be tuned fits at the capacity (a reference row that fits is no
 * setting to recommend; rows are all references only where nothing can be tuned): the smallest
 * capacity any of them needs, and whether the OOMs are the trace's (its live bytes alone exceed the
 * capacity) or the allocators'.
 */
export function shortfall(ranked: readonly TuneRow[], capacityBytes: number | null, peakLiveBytes: number): TuneShortfall | null {
  const tunable = ranked.filter((r) => !r.reference);
  const rows = tunable.length > 0 ? tunable : ranked;
  if (capacityBytes === null || rows.some((r) => r.fits)) return null;
  const smallest = [...rows].filter((r) => r.minCapacityBytes !== null).sort((a, b) => (a.minCapacityBytes as number) - (b.minCapacityBytes as number) || (a.rank - b.rank))[0];
  return {
    smallestMinCapacityBytes: smallest?.minCapacityBytes ?? null,
    smallestBy: smallest?.name ?? null,
    kind: peakLiveBytes > capacityBytes ? 'capacity' : 'fragmentation',
  };
}
