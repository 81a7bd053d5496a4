import type { FigureChange } from '../sweep/compare-baseline.js';
import { type CompareEntry, type CompareReport, entryFails } from '../sweep/compare.js';
import { formatBytes, formatCount, formatPercent } from './format.js';
import type { Column } from './layout.js';

/** A signed percentage with two decimals: `+0.06%`, `-12.50%`. */
export function formatSignedPercent(r: number): string {
  return `${r >= 0 ? '+' : ''}${(r * 100).toFixed(2)}%`;
}

const UNITS: [string, number][] = [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]];

/**
 * A capacity found on a grid, shown exactly, since the point of the figure is the value to configure:
 * in the grid's unit when the step is a whole number of KiB/MiB/GiB (`9,645 MiB`), else in bytes
 * (`5,632 B`: rounded, it and the step below would read alike).
 */
export function formatGridBytes(bytes: number, stepBytes: number): string {
  for (const [unit, m] of UNITS) if (stepBytes % m === 0 && bytes % m === 0) return `${formatCount(bytes / m)} ${unit}`;
  return `${formatCount(bytes)} B`;
}

/** The capacity of the comparison in words. */
export function capacityText(r: CompareReport): string {
  return r.capacityBytes === null ? 'unlimited capacity' : `capacity ${formatBytes(r.capacityBytes)}`;
}

/** The row the status line calls best: the first online one (offline plans are bounds, not allocators to run). */
export function bestRow(r: CompareReport): CompareEntry | undefined {
  return r.allocators.find((e) => e.kind !== 'planner') ?? r.allocators[0];
}

/** The OOM cell: `0`, `1 fragmentation`, `37 (first: capacity)`, or `the real run's` for a row that fails only where the real run failed. */
export function oomCell(e: CompareEntry): string {
  const n = e.summary.oomCount;
  if (n === 0) return (e.realOomsReproduced ?? 0) > 0 ? "the real run's" : '0';
  const kind = e.firstOom?.kind ?? '?';
  return n === 1 ? `1 ${kind}` : `${formatCount(n)} (first: ${kind})`;
}

/** The minimum-capacity cell: the value, or why there is none. */
export function minCapacityCell(r: CompareReport, e: CompareEntry): string {
  const step = r.minCapacity?.stepBytes ?? 1;
  if (e.search?.guarantee === 'recorded-failure') return 'the real run failed';
  if (e.minCapacityBytes === null) return 'does not fit';
  return formatGridBytes(e.minCapacityBytes, step);
}

/** Column heads and alignment of the comparison table. */
export function tableHead(r: CompareReport): { head: string[]; align: ('left' | 'right')[] } {
  const head = ['#', 'allocator', 'peak reserved', 'vs lower bound', 'utilization', 'internal frag', 'external frag', 'device calls', 'OOMs'];
  const align: ('left' | 'right')[] = ['right', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'];
  if (r.minCapacity) {
    head.push('min capacity');
    align.push('right');
  }
  return { head, align };
}

/**
 * The columns of the comparison table as text reports lay them out: names and the OOM cell may
 * break; when the table is still too wide, the fragmentation columns go first, then the device
 * calls, the utilization (the overhead says as much) and the rank.
 */
export function tableColumns(r: CompareReport): Column[] {
  const { head, align } = tableHead(r);
  const how: Record<string, Pick<Column, 'drop' | 'wrap'>> = {
    '#': { drop: 2 },
    allocator: { wrap: 'commas' },
    'vs lower bound': {},
    utilization: { drop: 3 },
    'internal frag': { drop: 6 },
    'external frag': { drop: 5 },
    'device calls': { drop: 4 },
    OOMs: { wrap: 'words' },
  };
  return head.map((h, k) => ({ head: h, align: align[k] ?? 'left', ...(how[h] ?? {}) }));
}

/** The rows of the comparison table: the lower bound first, then the rows best first. */
export function tableRows(r: CompareReport): string[][] {
  const lb = r.lowerBound;
  const rows: string[][] = [['', 'lower bound (peak live)', formatBytes(lb.peakLiveBytes), '', '', '', '', '', '']];
  if (r.minCapacity) (rows[0] as string[]).push(lb.minCapacityBytes === null ? '' : formatGridBytes(lb.minCapacityBytes, r.minCapacity.stepBytes));
  for (const e of r.allocators) {
    const s = e.summary;
    const row = [
      formatCount(e.rank),
      e.kind === 'planner' ? `${e.name} (offline bound)` : e.name,
      formatBytes(s.peakReservedBytes),
      // A row that failed requests served less than the trace holds: its overhead is not against the bound.
      s.oomCount > 0 ? '–' : formatSignedPercent(s.overheadVsLowerBound),
      formatPercent(s.utilization),
      formatPercent(s.internalFragmentation),
      formatPercent(s.externalFragmentation),
      `${formatCount(s.deviceAllocCalls)} / ${formatCount(s.deviceFreeCalls)}`,
      oomCell(e),
    ];
    if (r.minCapacity) row.push(minCapacityCell(r, e));
    rows.push(row);
  }
  return rows;
}

/** What the search guarantees about a row's minimum capacity, in words. */
export function searchText(e: CompareEntry): string {
  const s = e.search;
  if (!s) return '';
  const step = s.stepBytes;
  const fmt = (b: number): string => formatGridBytes(b, step);
  const replays = `${formatCount(s.replays)} replay${s.replays === 1 ? '' : 's'}`;
  if (s.guarantee === 'recorded-failure') return 'none: the recording holds the real run\'s OOM, which no capacity undoes (the simulations say what would fit)';
  if (s.minCapacityBytes === null) return `does not fit at any capacity tried (${replays})`;
  const found = fmt(s.minCapacityBytes);
  switch (s.guarantee) {
    case 'lower-bound':
      return `${found}, the lower bound itself: nothing smaller can fit (${replays})`;
    case 'scanned':
      return `${found}; every step from ${fmt(s.lowerBoundBytes)} up to ${fmt(s.minCapacityBytes - step)} fails (${replays})`;
    default:
      return `${found}; ${fmt(s.minCapacityBytes - step)} fails (${replays})`;
  }
}

/** Changes against the baseline that are not ties, in row order. */
export function changedFigures(r: CompareReport): FigureChange[] {
  return r.baseline ? r.baseline.changes.filter((c) => c.direction !== 'same') : [];
}

/** Baseline cells: figure, before, now, change, verdict. */
export function changeCells(c: FigureChange): string[] {
  const label = c.figure === 'peakReservedBytes' ? 'peak reserved' : c.figure === 'minCapacityBytes' ? 'min capacity' : 'OOMs';
  const fmt = (n: number): string => (c.figure === 'oomCount' ? formatCount(n) : formatBytes(n));
  const rel = c.relative === null ? 'new' : formatSignedPercent(c.relative);
  const verdict = c.direction === 'better' ? 'better' : c.exceedsThreshold ? 'worse (over the limit)' : c.direction === 'worse' ? 'worse (allowed)' : 'same';
  return [c.allocator, label, fmt(c.baseline), fmt(c.current), rel, verdict];
}

/** What a failing row's first failure was, for status lines: `fragmentation`, `the real run's OOM`. */
export function failureKind(e: CompareEntry): string {
  return e.firstOom?.kind ?? ((e.realOomsReproduced ?? 0) > 0 ? "the real run's OOM" : 'OOM');
}

/** Why a row that counts no OOM of its own is no fit: it fails at the real run's OOMs. */
export function realOomsText(e: CompareEntry): string {
  const n = e.realOomsReproduced ?? 0;
  const which = n === 1 ? "the real run's OOM" : `${formatCount(n)} of the real run's OOMs`;
  return `${which} (a request that failed on the device, no event of the trace): with the memory the real allocator could hold, this simulation cannot serve it either (see the row's notes); \`memsim tune\` names a setting that gets past it.`;
}

/** The status of a comparison: OOM, regressed (beyond the allowed), or fits; with the facts. */
export function status(r: CompareReport): { oom: CompareEntry[]; regressions: FigureChange[]; improvements: FigureChange[] } {
  return {
    oom: r.allocators.filter(entryFails),
    regressions: r.baseline ? r.baseline.changes.filter((c) => c.exceedsThreshold) : [],
    improvements: r.baseline ? r.baseline.changes.filter((c) => c.direction === 'better') : [],
  };
}
