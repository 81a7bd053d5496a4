import { renderHtmlReport, loadHtmlAssets } from '../../report/html/index.js';
import type { OnOom } from '../../sim/replay.js';
import type { RunOptions, RunResult } from '../../sim/run.js';
import { buildVisualReport, collectVisualRun, visualContext } from '../../sim/visual.js';
import type { CompareReport } from '../../sweep/compare.js';
import type { Trace } from '../../trace/model.js';

/** `replay --format html`: the run, with the states the page draws, and the page (loaded only for it). */
export function replayPage(trace: Trace, run: RunOptions, page: { capacityBytes: number; onOom: OnOom }): { result: RunResult; page: string } {
  const visual = visualContext(trace);
  const collected = collectVisualRun(visual, run);
  const data = buildVisualReport<CompareReport>(visual, [collected.visual], { command: 'replay', capacityBytes: page.capacityBytes, onOom: page.onOom });
  return { result: collected.result, page: renderHtmlReport(data, loadHtmlAssets()) };
}
