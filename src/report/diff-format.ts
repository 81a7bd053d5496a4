import type { DiffEntry, DiffFigure, FigureDelta, HolderChange, HoldersDiff } from '../diff/index.js';
import { oomChange } from '../diff/gates.js';
import { formatBytes, formatCount } from './format.js';

/** A signed byte change: `+12.00 MiB`, `-512 B`, `0 B`. */
export function signedBytes(b: number): string {
  return b > 0 ? `+${formatBytes(b)}` : b < 0 ? `-${formatBytes(-b)}` : formatBytes(0);
}

/** A figure's change in one cell: `+12.00 MiB (+5.2%)`. */
export function changeText(d: FigureDelta | null): string {
  if (!d) return '–';
  const pct = d.ratio === null ? '' : ` (${d.ratio > 0 ? '+' : ''}${(d.ratio * 100).toFixed(1)}%)`;
  return `${signedBytes(d.bytes)}${pct}`;
}

const LABELS: [DiffFigure, string][] = [
  ['peakLiveBytes', 'peak live'],
  ['peakReservedBytes', 'peak reserved'],
  ['minCapacityBytes', 'minimum capacity'],
];

/** Rows of the figures table: allocator, figure, before, after, change. */
export function figureRows(entries: readonly DiffEntry[], withMinCapacity: boolean): string[][] {
  const rows: string[][] = [];
  for (const e of entries) {
    LABELS.forEach(([f, label], k) => {
      if (f === 'minCapacityBytes' && !withMinCapacity) return;
      const v = (x: number | null): string => (x === null ? 'none fits' : formatBytes(x));
      rows.push([k === 0 ? e.name : '', label, v(e.before[f]), v(e.after[f]), changeText(e.change[f])]);
    });
    if (e.before.oomCount + e.after.oomCount > 0) rows.push(['', 'OOMs', formatCount(e.before.oomCount), formatCount(e.after.oomCount), signedCount(e.after.oomCount - e.before.oomCount)]);
  }
  return rows;
}

function signedCount(n: number): string {
  return n > 0 ? `+${formatCount(n)}` : formatCount(n);
}

/** Rows of a holders diff: change, key, before, after, delta; then the changes not listed. */
export function holderChangeRows(d: HoldersDiff, key: (k: string) => string): string[][] {
  const cell = (c: HolderChange): string[] => [
    c.change,
    key(c.key),
    c.change === 'appeared' ? '–' : `${formatBytes(c.beforeBytes)} (${formatCount(c.beforeCount)})`,
    c.change === 'vanished' ? '–' : `${formatBytes(c.afterBytes)} (${formatCount(c.afterCount)})`,
    signedBytes(c.deltaBytes),
  ];
  const rows = d.changes.map(cell);
  if (d.moreChanges > 0) rows.push(['', `${formatCount(d.moreChanges)} more change${d.moreChanges === 1 ? '' : 's'}`, '', '', signedBytes(d.moreDeltaBytes)]);
  return rows;
}

/** The title of a holders diff: which peak, at which events. */
export function holdersTitle(name: string, which: 'live' | 'reserved', d: HoldersDiff): string {
  const ev = (e: number | null): string => (e === null ? 'none' : formatCount(e));
  return `${name}: held at the peak of ${which} bytes (before: event ${ev(d.beforeEvent)}, ${formatBytes(d.beforeLiveBytes)} live; after: event ${ev(d.afterEvent)}, ${formatBytes(d.afterLiveBytes)} live)`;
}

/** What changed in a diff, in one word: an after trace that runs out of memory as often as the before one or more is `ooms`. */
export type DiffWord = 'ooms' | 'grew' | 'shrank' | 'unchanged';

/**
 * The one line that says what changed: for each allocator its peaks before and after, or, where a
 * side runs out of memory, that (the figures of a run cut at an OOM are those of its part before it,
 * which do not compare). `grew`: the change is for the worse.
 */
export function diffStatus(entries: readonly DiffEntry[]): { grew: boolean; word: DiffWord; text: string } {
  const pct = (d: FigureDelta): string => (d.ratio === null ? signedBytes(d.bytes) : `${d.ratio > 0 ? '+' : ''}${(d.ratio * 100).toFixed(1)}%`);
  const ooms = (n: number): string => `${formatCount(n)} OOM${n === 1 ? '' : 's'}`;
  const worse = (e: DiffEntry): boolean => oomChange(e) === 'worse';
  const better = (e: DiffEntry): boolean => oomChange(e) === 'better';
  const parts = entries.map((e) => {
    const { oomCount: after } = e.after;
    const { oomCount: before } = e.before;
    if (worse(e)) return `${e.name}: runs out of memory after (${ooms(after)}; before: ${before === 0 ? 'none' : ooms(before)})`;
    if (better(e)) {
      return after === 0
        ? `${e.name}: no longer runs out of memory (before: ${ooms(before)}), peak reserved ${formatBytes(e.after.peakReservedBytes)} after`
        : `${e.name}: runs out of memory less often (${ooms(before)} before, ${ooms(after)} after)`;
    }
    const r = e.change.peakReservedBytes;
    const l = e.change.peakLiveBytes;
    return `${e.name}: peak reserved ${formatBytes(e.before.peakReservedBytes)} → ${formatBytes(e.after.peakReservedBytes)} (${pct(r)}), peak live ${formatBytes(e.before.peakLiveBytes)} → ${formatBytes(e.after.peakLiveBytes)} (${pct(l)})`;
  });
  const compared = entries.filter((e) => !worse(e) && !better(e));
  const ooming = entries.some(worse);
  const grew = ooming || compared.some((e) => e.change.peakReservedBytes.bytes > 0 || e.change.peakLiveBytes.bytes > 0);
  const shrank =
    compared.every((e) => e.change.peakReservedBytes.bytes <= 0 && e.change.peakLiveBytes.bytes <= 0) &&
    (entries.some(better) || compared.some((e) => e.change.peakReservedBytes.bytes < 0 || e.change.peakLiveBytes.bytes < 0));
  const word: DiffWord = ooming ? 'ooms' : grew ? 'grew' : shrank ? 'shrank' : 'unchanged';
  const head = ooming ? 'runs out of memory' : word;
  return { grew, word, text: `${head}: ${parts.join('; ')}` };
}
