import { Command, Option } from 'commander';
import { allocatorNames, loadAllocator } from '../../allocators/registry.js';
import { renderJson } from '../../report/json.js';
import { renderReplayMarkdown } from '../../report/replay-markdown.js';
import { renderReplayText } from '../../report/replay-text.js';
import { effectiveCapacity, replay, replayFeed, type RunOptions } from '../../sim/run.js';
import type { ReplayReport } from '../../sim/report.js';
import { readTraceFile } from '../../trace/open.js';
import { TraceFeed } from '../../trace/pipeline/feed.js';
import { formatBytes } from '../../util/bytes.js';
import { parseConfiguration } from '../../util/configuration.js';
import { GateFailure } from '../errors.js';
import { collect, flag, flagSchema, parseOptionPairs, parseOptions } from '../flags.js';
import { htmlDestination, LineFile, Progress, type ProgressMode, useColor, writeOutput } from '../io.js';
import { PlacementsCsv } from '../placements.js';
import { addTraceInputOptions, readOptions, traceInputFlags } from '../trace-flags.js';
import { addAttributionOptions, attributionFlags, attributionOptions } from '../attribution-flags.js';

// `replay` is on the start-up path: its flags are checked without zod, its allocator and importer
// are loaded by name, and the HTML report's code only for --format html.
const schema = flagSchema({
  allocator: flag.required(),
  capacity: flag.bytes(),
  option: flag.list(),
  format: flag.oneOf(['text', 'json', 'markdown', 'html'], 'text'),
  output: flag.string(),
  placements: flag.string(),
  onOom: flag.oneOf(['stop', 'continue'], 'stop'),
  allowOom: flag.boolean(false),
  start: flag.maybeOneOf(['recorded', 'fresh']),
  ...attributionFlags,
  ...traceInputFlags,
  progress: flag.oneOf(['auto', 'always', 'never'], 'auto'),
  color: flag.boolean(true),
  oomDump: flag.oneOf(['compact', 'full', 'none'], 'compact'),
});

/** Renders a replay report in the asked format. */
export function renderReplay(report: ReplayReport, format: 'text' | 'json' | 'markdown', color: boolean, oomDump: 'compact' | 'full' | 'none'): string {
  if (format === 'json') return renderJson(report);
  if (format === 'markdown') return renderReplayMarkdown(report);
  return renderReplayText(report, { color, oomDump });
}

/** The gate of `replay`: an OOM fails it unless `--allow-oom`. */
export function oomGate(report: ReplayReport): string | undefined {
  const first = report.ooms[0];
  if (report.summary.oomCount === 0 || !first) return undefined;
  return (
    `gate failed: replay with ${report.allocator.name} hit ${report.summary.oomCount} OOM(s); the first ${first.recorded ? 'before' : 'at'} event ${first.event}` +
    `${first.entry !== undefined ? ` (${first.entry})` : first.line !== null ? ` (line ${first.line})` : ''}${first.recorded ? ", the real run's own" : ''}: ` +
    `${formatBytes(first.sizeBytes)} requested with ${formatBytes(first.liveBytes)} live, ` +
    `${formatBytes(first.reservedBytes)} reserved, capacity ${first.capacityBytes === null ? 'unlimited' : formatBytes(first.capacityBytes)} (${first.kind}); --allow-oom accepts it`
  );
}

export function replayCommand(): Command {
  return addAttributionOptions(addTraceInputOptions(
    new Command('replay')
      .description('replay a trace through an allocator and report peak usage, fragmentation and OOMs')
      .argument('<trace>', 'trace file (memsim JSON/JSONL/CSV, or an importable format); - for stdin')
      .option('-a, --allocator <name>', `allocator: ${allocatorNames().join(', ')}; or NAME[key=value,…] with options`, 'naive')
      .option('-c, --capacity <bytes>', 'device capacity, e.g. 80GiB, 1.5GiB, 2GB (default: the trace meta capacityBytes, else unlimited)')
      .option('-o, --option <key=value>', 'allocator option (repeatable; key=value,key2=value2 also works)', collect, [])
      .addOption(new Option('-f, --format <format>', 'report format').choices(['text', 'json', 'markdown', 'html']).default('text'))
      .option('--output <file>', 'write the report to a file instead of stdout (html: the page, self-contained)')
      .option('--placements <file>', 'write CSV event,id,address,sizeBytes,allocatedBytes for every served allocation')
      .addOption(new Option('--on-oom <mode>', 'stop at the first OOM, or record it, drop the allocation and go on').choices(['stop', 'continue']).default('stop'))
      .option('--allow-oom', 'exit 0 even when the replay hits an OOM')
      .addOption(new Option('--start <mode>', 'replays of a recorded history (snapshot, log): start from the recorded layout, or fresh with the live blocks allocated first (default: recorded when the options equal the recording\'s settings)').choices(['recorded', 'fresh']))
      .option('--oom-dump <mode>', 'native OOM text in the text report: compact, full or none', 'compact')
      .addOption(new Option('--progress <mode>', 'progress on stderr').choices(['auto', 'always', 'never']).default('auto'))
      .option('--no-color', 'no colours in the text report')
      .addHelpText(
        'after',
        `
Examples:
  $ memsim replay traces/training.json --allocator naive
  $ memsim replay traces/training.json --allocator naive --capacity 12GiB --format json --output report.json
  $ memsim replay traces/fragmentation.csv --capacity 1GiB --on-oom continue --allow-oom --format html --output oom.html
  $ memsim replay traces/inference.jsonl --placements placements.csv --format markdown >> "$GITHUB_STEP_SUMMARY"
  $ memsim replay tf.log --allocator bfc --allocator-name GPU_0_bfc
  $ memsim replay snap.pickle --allocator caching --option expandable_segments=true --start fresh`,
      )
      .action(async (tracePath: string, raw: Record<string, unknown>) => {
        const o = parseOptions(schema, raw);
        if (o.format === 'html') htmlDestination(o.output);
        await loadAllocator(parseConfiguration(o.allocator).name);
        const html = o.format === 'html' ? await import('./replay-html.js') : undefined;
        // A large CSV or JSONL file is read on another thread while it is replayed (text, JSON and
        // Markdown reports: the HTML one draws states of the whole trace).
        const feed = !html && TraceFeed.suits(tracePath, readOptions(o)) ? await TraceFeed.open(tracePath, readOptions(o)) : null;
        const reading = new Progress(o.progress as ProgressMode, 'read');
        const trace =
          feed?.trace ??
          (await readTraceFile(tracePath, readOptions(o, {
            onProgress: (done, total) => reading.update(done, total, 'bytes'),
          })));
        reading.done();
        const progress = new Progress(o.progress as ProgressMode, 'replay');
        const placementsFile = o.placements ? new LineFile(o.placements) : undefined;
        const placements = placementsFile ? new PlacementsCsv(placementsFile, () => trace.ids) : undefined;
        let result;
        let page: string | undefined;
        try {
          const run: RunOptions & { allocator: string } = {
            allocator: o.allocator,
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
            result = await replayFeed(feed, run);
          } else {
            result = replay(trace, run);
          }
        } finally {
          progress.done();
          placements?.close();
          placementsFile?.close();
          feed?.close();
        }
        const color = o.format === 'text' && useColor(!o.color, o.output !== undefined);
        writeOutput(page ?? renderReplay(result.report, o.format as 'text' | 'json' | 'markdown', color, o.oomDump), o.output);
        const gate = oomGate(result.report);
        if (gate && !o.allowOom) throw new GateFailure(gate);
      }),
  ));
}
