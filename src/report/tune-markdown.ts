import type { TuneReport } from '../sweep/tune-types.js';
import { formatBytes, formatCount } from './format.js';
import { mdCell, mdTable } from './replay-markdown.js';
import { changesText, ROW_ALIGN, ROW_HEAD, rowCells, shownRows, spaceLines, tuneCapacityText, verdictText } from './tune-answer.js';

/**
 * The Markdown report of `tune`, fit for a pull request or `$GITHUB_STEP_SUMMARY`: the setting to
 * type first, what it changes, the ranked rows, and the spaces collapsed.
 */
export function renderTuneMarkdown(r: TuneReport, options: { top?: number } = {}): string {
  const out: string[] = [];
  const rec = r.recommendation;
  if (r.shortfall) {
    out.push(`**❌ ${mdCell(verdictText(r))}**`);
    if (rec) out.push('', `The closest: \`${mdCell(rec.setting)}\``);
  } else if (rec) {
    out.push('```', rec.setting, '```', '', `**✅ ${mdCell(verdictText(r))}**`);
    if (rec.changes.length > 0) out.push('', `Changes: ${mdCell(changesText(rec.changes))}.`);
  } else {
    out.push(mdCell(verdictText(r)));
  }
  const t = r.trace;
  out.push(
    '',
    `Trace \`${mdCell(t.path)}\`${t.name ? ` (${mdCell(t.name)})` : ''}: ${formatCount(t.events)} events, ${formatCount(t.steps)} step${t.steps === 1 ? '' : 's'}; ` +
      `${tuneCapacityText(r)}; lower bound (peak live) ${formatBytes(r.lowerBound.peakLiveBytes)}; ${formatCount(r.rows.length)} configurations, ${formatCount(r.replays)} replays.`,
    '',
  );
  const { rows, hidden } = shownRows(r, options.top ?? 10);
  const label = (row: TuneReport['rows'][number]): string => `\`${row.name}\`${row.current ? ' (current)' : row.reference ? ' (reference)' : ''}`;
  const cells = rows.map((row) => rowCells(r, row).map((v, k) => (k === ROW_HEAD.length - 1 ? label(row) : v)));
  out.push(mdTable(ROW_HEAD, cells, ROW_ALIGN));
  if (hidden > 0) out.push('', `${formatCount(hidden)} more configuration${hidden === 1 ? '' : 's'} in the JSON report.`);
  out.push('', '<details><summary>Spaces searched</summary>', '', ...spaceLines(r).map((l) => `- ${mdCell(l)}`), '', '</details>');
  return out.join('\n') + '\n';
}
