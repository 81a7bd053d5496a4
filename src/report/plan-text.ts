import type { PlanReport, PlanResult, PlanResultOk } from '../planners/run.js';
import { formatBytes, formatCount, painter, type RenderOptions } from './format.js';
import type { Column } from './layout.js';
import { DEFAULT_WIDTH, tableLines, wrapHanging } from './layout.js';

/** What the note column says about a result. */
function note(r: PlanResult): string {
  if (r.status === 'skipped') return `skipped: ${r.reason}`;
  if (r.strategy !== 'best' || !r.search) return '';
  const s = r.search;
  const from = r.from === 'exact search' ? 'exact search' : `from ${r.from}`;
  const nodes = `${formatCount(s.nodes)} nodes`;
  const cap = s.capacityBytes !== undefined ? formatCount(s.capacityBytes) : '';
  switch (s.status) {
    case 'lower-bound':
      return `optimal: reaches the lower bound (${from})`;
    case 'optimal':
      return `optimal: search exhausted, ${nodes} (${from})`;
    case 'found':
      return `fits under ${cap} B (${from}${s.nodes > 0 ? `, ${nodes}` : ''})`;
    case 'infeasible':
      return `proven: nothing fits under ${cap} B (${nodes})`;
    case 'budget':
      return `not proven: node budget of ${formatCount(s.nodeBudget)} spent${s.extraNodes > 0 ? `, and ${formatCount(s.extraNodes)} more while it still improved` : ''} (${from})`;
    case 'timeout':
      return `not proven: cut by the clock after ${nodes} of ${formatCount(s.nodeBudget)}, a rerun may differ (${from})`;
    case 'too-large':
      return `not proven: too large for the exact search (${from})`;
    case 'disabled':
      return `not proven: exact search disabled (${from})`;
  }
}

/** The answer of `plan --capacity`: `found`, or why not, as one sentence. */
export interface Feasibility {
  status: 'found' | 'infeasible' | 'unknown';
  line: string;
}

/** The feasibility verdict of a report made with a capacity (null without one). */
export function feasibilityOf(report: PlanReport): Feasibility | null {
  const cap = report.capacityBytes;
  if (cap === null) return null;
  const best = report.results.find((r): r is PlanResultOk => r.strategy === 'best' && r.status === 'ok');
  const s = best?.search;
  const head = `capacity ${formatCount(cap)} B`;
  if (!best || !s) return { status: 'unknown', line: `${head}: not known (best did not run)` };
  const total = `${formatCount(best.totalBytes)} B`;
  switch (s.status) {
    case 'found':
    case 'lower-bound':
      return { status: 'found', line: `${head}: found: best packs the records in ${total} (${best.from}${s.nodes > 0 ? `, ${formatCount(s.nodes)} search nodes` : ''})` };
    case 'infeasible':
      return {
        status: 'infeasible',
        line:
          report.lowerBounds.offsetsBytes > cap
            ? `${head}: proven infeasible: the offsets lower bound is ${formatCount(report.lowerBounds.offsetsBytes)} B`
            : `${head}: proven infeasible: the exact search ruled out every packing (${formatCount(s.nodes)} nodes)`,
      };
    case 'timeout':
      return { status: 'unknown', line: `${head}: not known: cut by the clock (--time-limit) after ${formatCount(s.nodes)} of ${formatCount(s.nodeBudget)} nodes, a rerun may differ; smallest packing found ${total}` };
    case 'too-large':
      return { status: 'unknown', line: `${head}: not known: too large for the exact search; smallest packing found ${total}` };
    case 'disabled':
      return { status: 'unknown', line: `${head}: not known: the exact search is off (--node-budget 0); smallest packing found ${total}` };
    default:
      return { status: 'unknown', line: `${head}: not known: budget exhausted (${formatCount(s.nodes)} of ${formatCount(s.nodeBudget)} nodes) before a packing or a proof; smallest packing found ${total}` };
  }
}

/**
 * `memsim plan` as a terminal table: the lower bounds, then every strategy's total, best first, with
 * its ratio to the lower bound of its kind.
 */
export function renderPlanText(report: PlanReport, options: RenderOptions = {}): string {
  const c = painter(options.color);
  const width = options.width ?? DEFAULT_WIDTH;
  const b = report.lowerBounds;
  const lines: string[] = [];
  lines.push(
    ...wrapHanging(
      `${c.bold('memsim plan')}: ${report.input.path} (${report.input.format}, ${formatCount(report.input.records)} records)` +
        (report.alignmentBytes > 1 ? `, offsets aligned to ${formatCount(report.alignmentBytes)} B` : ''),
      width,
      '  ',
    ),
  );
  lines.push(
    ...wrapHanging(
      `lower bounds: offsets ${formatCount(b.offsetsBytes)} B (${formatBytes(b.offsetsBytes)}, peak of live bytes), ` +
        `objects ${formatCount(b.objectsBytes)} B (${formatBytes(b.objectsBytes)}, sum of positional maxima)`,
      width,
      '  ',
    ),
  );
  const verdict = feasibilityOf(report);
  if (verdict) lines.push(...wrapHanging(verdict.line, width, '  ').map((l) => (verdict.status === 'found' ? c.green(l) : c.red(l))));
  const columns: Column[] = [
    { head: '#', align: 'right', drop: 3 },
    { head: 'strategy' },
    { head: 'kind', drop: 1 },
    { head: 'total bytes', align: 'right' },
    { head: 'total', align: 'right', drop: 2 },
    { head: '× its bound', align: 'right' },
    { head: 'note', wrap: 'words', breakEarly: true, minWidth: 30 },
  ];
  const rows: string[][] = [];
  let rank = 0;
  for (const r of report.results) {
    if (r.status === 'skipped') {
      rows.push(['', r.strategy, r.kind, '–', '–', '–', note(r)]);
      continue;
    }
    rows.push([
      formatCount(++rank),
      r.strategy,
      r.kind,
      formatCount(r.totalBytes),
      formatBytes(r.totalBytes),
      r.ratioToLowerBound === null ? '–' : r.ratioToLowerBound.toFixed(3),
      note(r),
    ]);
  }
  lines.push(...tableLines(columns, rows, { width }));
  for (const n of report.notes) lines.push(`note: ${n}`);
  return lines.join('\n') + '\n';
}
