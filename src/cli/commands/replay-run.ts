import { loadAllocator } from '../../allocators/registry.js';
import { renderJson } from '../../report/json.js';
import { renderReplayMarkdown } from '../../report/replay-markdown.js';
import { renderReplayText } from '../../report/replay-text.js';
import { defaultAllocator, effectiveCapacity, replay, replayFeed, type RunOptions, warmUpAhead } from '../../sim/run.js';
import type { ReplayReport } from '../../sim/report.js';
import { readTraceFile } from '../../trace/open.js';
import type { TraceFeed } from '../../trace/pipeline/feed.js';
import { formatBytes, formatCount } from '../../util/bytes.js';
import { parseConfiguration } from '../../util/configuration.js';
import { attributionOptions } from '../attribution-flags.js';
import { GateFailure } from '../errors.js';
import { parseOptionPairs } from '../flags.js';
import { Progress, type ProgressMode, reportWidth, useColor, writeOutput } from '../io.js';
import { PlacementsCsv } from '../placements.js';
import { OutputFile } from '../../output/index.js';
import { readOptions } from '../trace-flags.js';
import type { ReplayFlags } from './replay.js';

/** Renders a replay report in the asked format. */
export function renderReplay(report: ReplayReport, format: 'text' | 'json' | 'markdown', color: boolean, oomDump: 'compact' | 'full' | 'none', width?: number): string {
  if (format === 'json') return renderJson(report);
  if (format === 'markdown') return renderReplayMarkdown(report);
  return renderReplayText(report, { color, oomDump, ...(width !== undefined ? { width } : {}) });
}

/** The gate of `replay`: an OOM fails it unless `--allow-oom`. */
export function oomGate(report: ReplayReport): string | undefined {
  const first = report.ooms[0];
  if (report.summary.oomCount === 0 || !first) return undefined;
  return (
    `gate failed: replay with ${report.allocator.name} hit ${formatCount(report.summary.oomCount)} OOM(s); the first ${first.recorded ? 'before' : 'at'} event ${formatCount(first.event)}` +
    `${first.entry !== undefined ? ` (${first.entry})` : first.line !== null ? ` (line ${first.line})` : ''}${first.recorded ? ", the real run's own" : ''}: ` +
    `${formatBytes(first.sizeBytes)} requested with ${formatBytes(first.liveBytes)} live, ` +
    `${formatBytes(first.reservedBytes)} reserved, capacity ${first.capacityBytes === null ? 'unlimited' : formatBytes(first.capacityBytes)} (${first.kind}); --allow-oom accepts it`
  );
}

/**
 * What `replay` does once its flags are checked: reads the trace (or takes it from the thread that
 * reads it), replays it, writes the report.
 */
export async function runReplay(tracePath: string, o: ReplayFlags, feedOpening: Promise<TraceFeed | null> | null): Promise<void> {
  if (o.allocator !== undefined) await loadAllocator(parseConfiguration(o.allocator).name);
  const html = o.format === 'html' ? await import('./replay-html.js') : undefined;
  // While the reading thread starts (its first events would only be waited for), the allocator's
  // warm-up runs here; a problem with the options is reported by the run, after any reading problem.
  let warmedUp = false;
  if (feedOpening && !html && o.allocator !== undefined) {
    try {
      warmedUp = warmUpAhead({ allocator: o.allocator, options: parseOptionPairs(o.option) }, tracePath);
    } catch {
      // the run says what is wrong
    }
  }
  const feed = feedOpening ? await feedOpening : null;
  const reading = new Progress(o.progress as ProgressMode, 'read');
  const trace =
    feed?.trace ??
    (await readTraceFile(tracePath, readOptions(o, {
      onProgress: (done, total) => reading.update(done, total, 'bytes'),
    })));
  reading.done();
  // Without --allocator the input decides (a snapshot's caching, a log's bfc), once it is read.
  if (o.allocator === undefined) await loadAllocator(defaultAllocator(trace).name);
  const progress = new Progress(o.progress as ProgressMode, 'replay');
  const placementsFile = o.placements ? new OutputFile(o.placements) : undefined;
  const placements = placementsFile ? new PlacementsCsv(placementsFile, () => trace.ids) : undefined;
  let result;
  let page: string | undefined;
  try {
    const run: RunOptions = {
      ...(o.allocator !== undefined ? { allocator: o.allocator } : {}),
      options: parseOptionPairs(o.option),
      ...(o.capacity !== undefined ? { capacityBytes: o.capacity } : {}),
      onOom: o.onOom,
      ...(o.start ? { start: o.start } : {}),
      attribution: attributionOptions(o),
      onProgress: (done, total) => progress.update(done, total),
      ...(placements
        ? {
            onPlacement: (event: number, a: number, address: number, size: number, allocated: number) =>
              placements.place(event, a, address, size, allocated),
          }
        : {}),
    };
    if (html) {
      ({ result, page } = html.replayPage(trace, run, { capacityBytes: effectiveCapacity(trace, o.capacity), onOom: o.onOom }));
    } else if (feed) {
      result = await replayFeed(feed, run, warmedUp);
    } else {
      result = replay(trace, run);
    }
  } catch (e) {
    placementsFile?.abandon();
    throw e;
  } finally {
    progress.done();
    feed?.close();
  }
  placements?.close();
  placementsFile?.close();
  const color = o.format === 'text' && useColor(!o.color, o.output !== undefined);
  writeOutput(page ?? renderReplay(result.report, o.format as 'text' | 'json' | 'markdown', color, o.oomDump, reportWidth(o.width, o.output !== undefined)), o.output);
  const gate = oomGate(result.report);
  if (gate && !o.allowOom) throw new GateFailure(gate);
}
