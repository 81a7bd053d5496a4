/**
 * The words and cells every `memsim tune` format shares: the answer (the setting to use and what it
 * changes), the shortfall when nothing fits, and the rows of the table.
 */
import type { OptionChange, TuneReport, TuneRow } from '../sweep/tune-types.js';
import { formatGridBytes } from './compare-table.js';
import { formatBytes, formatCount } from './format.js';

/** An option value as users write it: `none` for null, `off` for an empty text. */
export function valueText(v: unknown): string {
  if (v === null || v === undefined) return 'none';
  if (v === '') return 'off';
  return String(v);
}

/** `expandable_segments false → true, max_split_size_mb none → 256`. */
export function changesText(changes: readonly OptionChange[]): string {
  return changes.map((c) => `${c.key} ${valueText(c.from)} → ${valueText(c.to)}`).join(', ');
}

/** Signed bytes: `-3.10 GiB`, `+512.00 MiB`, `0 B`. */
export function signedBytes(n: number): string {
  return n === 0 ? formatBytes(0) : `${n < 0 ? '-' : '+'}${formatBytes(Math.abs(n))}`;
}

/** A minimum capacity on the report's grid, or why there is none. */
export function needsText(r: TuneReport, bytes: number | null): string {
  return bytes === null ? 'no capacity found' : formatGridBytes(bytes, r.capacityStepBytes);
}

/** The capacity of the run in words. */
export function tuneCapacityText(r: TuneReport): string {
  return r.capacityBytes === null ? 'unlimited capacity' : `capacity ${formatBytes(r.capacityBytes)}`;
}

/**
 * When nothing that can be tuned fits: that, and the smallest capacity any configuration needs
 * (`nothing fits at 536.00 MiB: the smallest capacity any configuration needs is 572 MiB (caching)`).
 */
export function shortfallText(r: TuneReport, sf: NonNullable<TuneReport['shortfall']>): string {
  const smallest = sf.smallestMinCapacityBytes === null ? 'none was found' : `${needsText(r, sf.smallestMinCapacityBytes)} (${sf.smallestBy})`;
  const cap = formatBytes(r.capacityBytes ?? 0);
  // A reference row that fits is no setting to recommend (naive: a cudaMalloc per tensor).
  const refs = r.rows.filter((x) => x.reference && x.fits).map((x) => x.name);
  if (refs.length === 0 || refs.length === r.rows.length) return `nothing fits at ${cap}: the smallest capacity any configuration needs is ${smallest}`;
  return `no configuration that can be tuned fits at ${cap} (the reference ${refs.join(', ')} does): the smallest capacity one of them needs is ${smallest}`;
}

/** The headline: what to set (or that nothing fits), in one line without the setting itself. */
export function verdictText(r: TuneReport): string {
  const rec = r.recommendation;
  const sf = r.shortfall;
  if (sf) {
    const cap = formatBytes(r.capacityBytes ?? 0);
    const why =
      sf.kind === 'capacity'
        ? `the OOMs are capacity: the trace's live bytes alone peak at ${formatBytes(r.lowerBound.peakLiveBytes)}, more than ${cap}, so no setting can help`
        : `the OOMs are fragmentation: the live bytes peak at ${formatBytes(r.lowerBound.peakLiveBytes)}, within ${cap}, so an allocator or setting that wastes less could fit`;
    return `${shortfallText(r, sf)}; ${why}`;
  }
  if (!rec) return 'no allocator here has settings to tune (the rows are for reference)';
  const tried = r.rows.filter((x) => x.allocator === rec.allocator).length;
  const needs = needsText(r, rec.minCapacityBytes);
  const at = r.capacityBytes === null ? '' : ` (fits at ${formatBytes(r.capacityBytes)})`;
  if (rec.isCurrent) return `the current setting is already the best of the ${formatCount(tried)} ${rec.allocator} configurations tried: it needs ${needs}${at}`;
  const head = r.capacityBytes === null ? `needs ${needs}` : `fits at ${formatBytes(r.capacityBytes)} (needs ${needs})`;
  const cur = rec.current;
  const curText = cur.minCapacityBytes === null ? 'the current setting fits at no capacity tried' : `the current setting needs ${needsText(r, cur.minCapacityBytes)}`;
  const pct = cur.peakReservedBytes > 0 ? ` (${signedPercent(-rec.savingBytes / cur.peakReservedBytes)})` : '';
  if (rec.savingBytes === 0) return `${rec.name} ${head} where ${curText}; the same peak reserved`;
  return `${rec.name} ${head} where ${curText}; peak reserved ${signedBytes(-rec.savingBytes)}${pct}`;
}

/** A signed whole percentage, or one decimal below 10%: `-8%`, `-0.7%`, `+12%`. */
export function signedPercent(x: number): string {
  const p = x * 100;
  const rounded = Math.abs(p) >= 10 ? Math.round(p) : Math.round(p * 10) / 10;
  if (rounded === 0) return '0%';
  return `${rounded > 0 ? '+' : ''}${rounded}%`;
}

/** The row's label: its name, and whether it is the current configuration or a reference. */
export function rowLabel(row: TuneRow): string {
  return row.current ? `${row.name} (current)` : row.reference ? `${row.name} (reference)` : row.name;
}

/** The OOM cell: `-`, `fragmentation`, `capacity`, or `the real run's` (it fails where the real run failed). */
export function oomText(row: TuneRow): string {
  if (row.oomCount === 0) return (row.realOomsReproduced ?? 0) > 0 ? "the real run's" : '-';
  return row.oomKind ?? 'OOM';
}

/** Column heads of the rows, and their cells (label last: it is the one that may be long). */
export const ROW_HEAD = ['#', 'fits', 'needs', 'peak reserved', 'OOM', 'device calls', 'configuration'];
export const ROW_ALIGN: ('left' | 'right')[] = ['right', 'left', 'right', 'right', 'left', 'right', 'left'];

export function rowCells(r: TuneReport, row: TuneRow): string[] {
  return [
    formatCount(row.rank),
    row.fits ? 'yes' : 'no',
    needsText(r, row.minCapacityBytes),
    formatBytes(row.peakReservedBytes),
    oomText(row),
    `${formatCount(row.deviceAllocCalls)} / ${formatCount(row.deviceFreeCalls)}`,
    rowLabel(row),
  ];
}

/** The rows shown: the best `top`, then any current row or the recommendation below them. */
export function shownRows(r: TuneReport, top: number): { rows: TuneRow[]; hidden: number } {
  const rows = r.rows.filter((row, k) => k < top || row.current || row.name === r.recommendation?.name);
  return { rows, hidden: r.rows.length - rows.length };
}

/** One line per allocator: how its space was covered. */
export function spaceLines(r: TuneReport): string[] {
  return r.spaces.map((s) => {
    if (s.reference) return `${s.allocator}: nothing to tune (a reference row)`;
    const keys = s.keys.map((k) => `${k.key} {${k.values.join(', ')}}`).join(' × ');
    const how =
      s.method === 'all'
        ? `all ${formatCount(s.tried)} configurations`
        : `searched: ${formatCount(s.tried)} of ${formatCount(s.points)} configurations (each key alone, then the best pairs, then one key at a time around the best)`;
    return `${s.allocator}: ${keys || 'no keys'} — ${how}, ${formatCount(s.replays)} replays`;
  });
}
