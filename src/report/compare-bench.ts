import type { CompareReport } from '../sweep/compare.js';

/** One entry of github-action-benchmark's `customSmallerIsBetter` format. */
export interface BenchEntry {
  name: string;
  unit: 'bytes';
  value: number;
  /** Shown in the benchmark's tooltip. */
  extra?: string;
}

/**
 * The byte figures of a comparison as `[{ name, unit: "bytes", value }]`, smaller is better, for
 * tools that track benchmarks over time: the lower bound, then per row (by name, so that the list
 * keeps its order from run to run) its peak reserved and its minimum capacity when searched.
 */
export function compareBenchEntries(r: CompareReport): BenchEntry[] {
  const out: BenchEntry[] = [{ name: 'lower bound (peak live)', unit: 'bytes', value: r.lowerBound.peakLiveBytes }];
  const rows = [...r.allocators].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of rows) {
    const at = r.capacityBytes === null ? 'unlimited capacity' : `${r.capacityBytes} bytes`;
    const real = e.realOomsReproduced ?? 0;
    const oom = e.summary.oomCount > 0 ? { extra: `${e.summary.oomCount} OOM(s) at ${at}` } : real > 0 ? { extra: `fails at ${real} of the real run's OOM(s) at ${at}` } : {};
    out.push({ name: `${e.name} peak reserved`, unit: 'bytes', value: e.summary.peakReservedBytes, ...oom });
    if (e.minCapacityBytes !== null) out.push({ name: `${e.name} min capacity`, unit: 'bytes', value: e.minCapacityBytes });
  }
  return out;
}

/** The bench-json output: the entries as a JSON array. */
export function renderCompareBench(r: CompareReport): string {
  return JSON.stringify(compareBenchEntries(r), null, 2) + '\n';
}
