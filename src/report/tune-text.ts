import type { TuneReport } from '../sweep/tune-types.js';
import { formatBytes, formatCount, painter, type RenderOptions } from './format.js';
import { type Column, DEFAULT_WIDTH, tableLines, wrapHanging } from './layout.js';
import { changesText, ROW_ALIGN, ROW_HEAD, rowCells, shownRows, spaceLines, tuneCapacityText, verdictText } from './tune-answer.js';

/** The text report of `tune`: the setting to type first, what it changes, then the ranked rows. */
export function renderTuneText(r: TuneReport, options: RenderOptions & { top?: number } = {}): string {
  const c = painter(options.color);
  const WIDTH = options.width ?? DEFAULT_WIDTH;
  const wrapWords = wrapHanging;
  const out: string[] = [];
  const rec = r.recommendation;
  if (r.shortfall) {
    out.push(...wrapWords(`${c.red('✘')} ${verdictText(r)}`, WIDTH, '  '));
    if (rec) out.push(`  the closest: ${c.bold(rec.setting)}`);
  } else if (rec) {
    out.push(c.bold(rec.setting), ...wrapWords(`${c.green('✔')} ${verdictText(r)}`, WIDTH, '  '));
    if (rec.changes.length > 0) out.push(...wrapWords(`  changes: ${changesText(rec.changes)}`, WIDTH, '    '));
  } else {
    out.push(verdictText(r));
  }
  const t = r.trace;
  const tried = r.rows.length;
  out.push(
    '',
    c.bold(`memsim tune · ${r.spaces.map((s) => s.allocator).join(', ')} · ${tuneCapacityText(r)} · ${formatCount(tried)} configuration${tried === 1 ? '' : 's'}, ${formatCount(r.replays)} replays`),
    ...wrapWords(
      `trace ${t.path} (${t.format}${t.name ? `, "${t.name}"` : ''}): ${formatCount(t.events)} events, ${formatCount(t.steps)} step${t.steps === 1 ? '' : 's'}; ` +
        `lower bound (peak live) ${formatBytes(r.lowerBound.peakLiveBytes)}; needs: the smallest capacity, in steps of ${formatBytes(r.capacityStepBytes)}, at which it fits`,
      WIDTH,
      '  ',
    ),
    '',
  );
  const { rows, hidden } = shownRows(r, options.top ?? 10);
  const columns: Column[] = ROW_HEAD.map((head, k) => ({
    head,
    align: ROW_ALIGN[k] ?? 'left',
    ...(head === 'configuration' ? { wrap: 'commas' as const, breakEarly: true } : head === 'device calls' ? { drop: 1 } : {}),
  }));
  out.push(...tableLines(columns, rows.map((row) => rowCells(r, row)), { width: WIDTH, style: 'plain' }));
  if (hidden > 0) out.push(`… ${formatCount(hidden)} more configuration${hidden === 1 ? '' : 's'} (--top ${tried} shows all; --format json lists every one)`);
  out.push('', 'spaces:', ...spaceLines(r).flatMap((l) => wrapWords(`  ${l}`, WIDTH, '    ')));
  const notes = [...r.rows.flatMap((row) => (row.notes ?? []).map((n) => `note (${row.name}): ${n}`)), ...r.notes.map((n) => `note: ${n}`)];
  if (notes.length > 0) out.push('', ...notes.flatMap((n) => wrapWords(n, WIDTH, '  ')));
  return out.join('\n') + '\n';
}
