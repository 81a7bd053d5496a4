import type { PlanReport, PlanResult } from '../planners/run.js';
import { formatBytes, formatCount, painter, type RenderOptions } from './format.js';
import { newTable } from './replay-text.js';

/** What the note column says about a result. */
function note(r: PlanResult): string {
  if (r.status === 'skipped') return `skipped: ${r.reason}`;
  if (r.strategy !== 'best' || !r.search) return '';
  const s = r.search;
  const from = r.from === 'exact search' ? 'exact search' : `from ${r.from}`;
  switch (s.status) {
    case 'lower-bound':
      return `optimal: reaches the lower bound (${from})`;
    case 'optimal':
      return `optimal: search exhausted, ${formatCount(s.nodes)} nodes (${from})`;
    case 'timeout':
      return `not proven: time limit reached after ${formatCount(s.nodes)} nodes (${from})`;
    case 'too-large':
      return `not proven: too large for the exact search (${from})`;
    case 'disabled':
      return `not proven: exact search disabled by --time-limit 0 (${from})`;
  }
}

/**
 * `memsim plan` as a terminal table: the lower bounds, then every strategy's total, best first, with
 * its ratio to the lower bound of its kind.
 */
export function renderPlanText(report: PlanReport, options: RenderOptions = {}): string {
  const c = painter(options.color);
  const b = report.lowerBounds;
  const lines: string[] = [];
  lines.push(
    `${c.bold('memsim plan')}: ${report.input.path} (${report.input.format}, ${formatCount(report.input.records)} records)` +
      (report.alignmentBytes > 1 ? `, offsets aligned to ${formatCount(report.alignmentBytes)} B` : ''),
  );
  lines.push(
    `lower bounds: offsets ${formatCount(b.offsetsBytes)} B (${formatBytes(b.offsetsBytes)}, peak of live bytes), ` +
      `objects ${formatCount(b.objectsBytes)} B (${formatBytes(b.objectsBytes)}, sum of positional maxima)`,
  );
  const t = newTable(['#', 'strategy', 'kind', 'total bytes', 'total', '× its bound', 'note'], ['right', 'left', 'left', 'right', 'right', 'right', 'left']);
  let rank = 0;
  for (const r of report.results) {
    if (r.status === 'skipped') {
      t.push(['', r.strategy, r.kind, '–', '–', '–', note(r)]);
      continue;
    }
    t.push([
      String(++rank),
      r.strategy,
      r.kind,
      formatCount(r.totalBytes),
      formatBytes(r.totalBytes),
      r.ratioToLowerBound === null ? '–' : r.ratioToLowerBound.toFixed(3),
      note(r),
    ]);
  }
  lines.push(t.toString());
  for (const n of report.notes) lines.push(`note: ${n}`);
  return lines.join('\n') + '\n';
}
