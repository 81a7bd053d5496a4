import type { GroupBy, MomentHolders } from '../attribution/index.js';
import type { AttributionSection } from '../sim/holders.js';
import { formatBytes, formatCount, formatPercent } from './format.js';
import { type Column, cutToWidth, textWidth } from './layout.js';

/** The widest key a text table shows (the JSON report has every key whole). */
const KEY_WIDTH = 48;

/**
 * A key cut to `width` characters: a frame, file or tag keeps its end (the file name, line and
 * function), a stack its innermost and outermost frames.
 */
export function fitKey(key: string, groupBy: GroupBy, width = KEY_WIDTH): string {
  if (textWidth(key) <= width) return key;
  if (groupBy === 'stack') {
    const head = Math.ceil((width - 1) / 2);
    return `${cutToWidth(key, head)}…${cutToWidth(key, width - 1 - head, true)}`;
  }
  return `…${cutToWidth(key, width - 1, true)}`;
}

/** Rows of a holders table: the top groups, then "everything else" when anything is left. */
export function holderRows(m: MomentHolders, key: (k: string) => string): string[][] {
  const rows = m.top.map((h) => [key(h.key), formatBytes(h.bytes), formatPercent(h.share), formatCount(h.count), formatBytes(h.largestBytes)]);
  const rest = m.groups - m.top.length;
  if (rest > 0) {
    rows.push([`everything else (${formatCount(rest)} group${rest === 1 ? '' : 's'})`, formatBytes(m.otherBytes), formatPercent(m.otherShare), formatCount(m.otherCount), formatBytes(m.otherLargestBytes)]);
  }
  return rows;
}

/** Alignment of the columns of a holders table. */
export const HOLDER_ALIGN: ('left' | 'right')[] = ['left', 'right', 'right', 'right', 'right'];
/** The head of a holders table. */
export const holderHead = (groupBy: GroupBy): string[] => [groupBy, 'bytes', 'share of live', 'count', 'largest'];

/**
 * The columns of a holders table: the key cut to the room left (keeping its ends), the bytes, and
 * then, when space runs out, without the largest block, the count, the share.
 */
export function holderColumns(groupBy: GroupBy): Column[] {
  const [key, bytes, share, count, largest] = holderHead(groupBy) as [string, string, string, string, string];
  return [
    { head: key, wrap: (k, w) => fitKey(k, groupBy, w), minWidth: 28, maxWidth: KEY_WIDTH },
    { head: bytes, align: 'right' },
    { head: share, align: 'right', drop: 1 },
    { head: count, align: 'right', drop: 2 },
    { head: largest, align: 'right', drop: 3 },
  ];
}

/**
 * `event N`, and ` (window opened)` when N is `openedAt`: the last of the events that rebuild the
 * state when a recorded window opened (a trace's `initialEvents - 1`; see sim/replay.ts). `inParens`:
 * for text already in parentheses (`, when the window opened`).
 */
export function eventAt(event: number, openedAt: number, inParens = false): string {
  const text = `event ${formatCount(event)}`;
  if (event !== openedAt) return text;
  return inParens ? `${text}, when the window opened` : `${text} (window opened)`;
}

/** The peak moments to show: one when both peaks are the same event, else both. `openedAt`: see {@link eventAt}. */
export function peakMoments(a: AttributionSection, openedAt: number): { title: string; moment: MomentHolders }[] {
  const out: { title: string; moment: MomentHolders }[] = [];
  const { peakLive, peakReserved } = a;
  if (peakLive && peakReserved && peakLive.event === peakReserved.event) {
    out.push({ title: `held at the peak (${eventAt(peakLive.event, openedAt, true)}: peak live and peak reserved)`, moment: peakLive });
    return out;
  }
  if (peakLive) out.push({ title: `held at the peak of live bytes (${eventAt(peakLive.event, openedAt, true)})`, moment: peakLive });
  if (peakReserved) out.push({ title: `held at the peak of reserved bytes (${eventAt(peakReserved.event, openedAt, true)})`, moment: peakReserved });
  return out;
}

/** How the groups are keyed, in words, for titles. */
export function groupedBy(a: AttributionSection): string {
  return a.groupBy === 'stack' ? `by stack (${a.stackDepth ?? 4} frames)` : `by ${a.groupBy}`;
}

/** A row of a comparison, as far as its holders go. */
export interface HoldersRow {
  name: string;
  attribution: AttributionSection | null;
}

/** One block of a comparison's holders section: a title and the moment it shows. */
export interface HoldersBlock {
  title: string;
  groupBy: GroupBy;
  moment: MomentHolders;
}

/**
 * The holders a comparison shows: the peak of live bytes once when every row saw the same holders
 * there (the trace's own peak, unless OOMs cut a replay short), else per row; then each row's peak
 * of reserved bytes, unless it is the moment already shown for that row.
 */
export function comparisonHolders(rows: readonly HoldersRow[]): { heading: string | null; blocks: HoldersBlock[] } {
  const withHolders = rows.filter((r): r is HoldersRow & { attribution: AttributionSection } => r.attribution !== null);
  const first = withHolders[0]?.attribution;
  if (!first) return { heading: null, blocks: [] };
  const blocks: HoldersBlock[] = [];
  const same = withHolders.every((r) => JSON.stringify(r.attribution.peakLive) === JSON.stringify(first.peakLive));
  if (same && first.peakLive) {
    const who = withHolders.length === 1 ? (withHolders[0] as HoldersRow).name : 'every allocator';
    blocks.push({ title: `${who}: held at the peak of live bytes (event ${formatCount(first.peakLive.event)})`, groupBy: first.groupBy, moment: first.peakLive });
  }
  for (const r of withHolders) {
    const a = r.attribution;
    if (!same && a.peakLive) blocks.push({ title: `${r.name}: held at the peak of live bytes (event ${formatCount(a.peakLive.event)})`, groupBy: a.groupBy, moment: a.peakLive });
    if (!a.peakReserved) continue;
    if (a.peakLive && a.peakReserved.event === a.peakLive.event) {
      blocks.push({ title: `${r.name}: peak reserved at event ${formatCount(a.peakReserved.event)}, the peak of live bytes: the same holders`, groupBy: a.groupBy, moment: { ...a.peakReserved, top: [], groups: 0 } });
      continue;
    }
    blocks.push({ title: `${r.name}: held at the peak of reserved bytes (event ${formatCount(a.peakReserved.event)})`, groupBy: a.groupBy, moment: a.peakReserved });
  }
  return { heading: `who holds the memory, ${groupedBy(first)}`, blocks };
}
