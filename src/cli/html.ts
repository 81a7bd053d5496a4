import { loadHtmlAssets, renderHtmlReport } from '../report/html/index.js';
import type { CompareReport } from '../sweep/compare.js';
import { buildVisualReport, collectComparedRuns, type VisualSettings, visualContext } from '../sim/visual.js';
import type { Trace } from '../trace/model.js';
import { Progress, type ProgressMode } from './io.js';

/**
 * The HTML page of a comparison: each row that replays event by event is replayed again for its
 * timeline and states (see `collectComparedRuns`), then the page is rendered.
 */
export function comparisonPage(
  trace: Trace,
  report: CompareReport,
  given: Record<string, Record<string, unknown>>,
  o: { command: string; progress: ProgressMode; settings?: Partial<VisualSettings> },
): string {
  const ctx = visualContext(trace, o.settings);
  const progress = new Progress(o.progress, 'plots');
  let runs;
  try {
    runs = collectComparedRuns(ctx, report, given, (done, total) => progress.update(done, total, 'allocators'));
  } finally {
    progress.done();
  }
  const data = buildVisualReport(ctx, runs, { command: o.command, capacityBytes: report.capacityBytes ?? Infinity, onOom: report.onOom, compare: report });
  return renderHtmlReport(data, loadHtmlAssets());
}
