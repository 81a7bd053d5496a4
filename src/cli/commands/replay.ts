import { Command, Option } from 'commander';
import { z } from 'zod';
import { listAllocators } from '../../allocators/index.js';
import { renderJson, renderReplayMarkdown, renderReplayText } from '../../report/index.js';
import { renderHtmlReport, loadHtmlAssets } from '../../report/html/index.js';
import { effectiveCapacity, replay, type RunOptions } from '../../sim/run.js';
import { buildVisualReport, collectVisualRun, visualContext } from '../../sim/visual.js';
import type { ReplayReport } from '../../sim/report.js';
import type { CompareReport } from '../../sweep/compare.js';
import { readTrace } from '../../trace/read.js';
import { formatBytes, formatHex } from '../../util/bytes.js';
import { GateFailure } from '../errors.js';
import { htmlDestination, LineFile, Progress, type ProgressMode, useColor, writeOutput } from '../io.js';
import { bytesArg, collect, parseOptionPairs, parseOptions } from '../options.js';
import { addTraceInputOptions, readOptions, traceInputFields } from '../trace-input.js';
import { addAttributionOptions, attributionFields, attributionOptions } from '../attribution-flags.js';

const schema = z.object({
  allocator: z.string(),
  capacity: bytesArg.optional(),
  option: z.array(z.string()).default([]),
  format: z.enum(['text', 'json', 'markdown', 'html']).default('text'),
  output: z.string().optional(),
  placements: z.string().optional(),
  onOom: z.enum(['stop', 'continue']).default('stop'),
  allowOom: z.boolean().default(false),
  start: z.enum(['recorded', 'fresh']).optional(),
  ...attributionFields,
  ...traceInputFields,
  progress: z.enum(['auto', 'always', 'never']).default('auto'),
  color: z.boolean().default(true),
  oomDump: z.enum(['compact', 'full', 'none']).default('compact'),
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
    `gate failed: replay with ${report.allocator.name} hit ${report.summary.oomCount} OOM(s); the first at event ${first.event}` +
    `${first.line !== null ? ` (line ${first.line})` : ''}: ${formatBytes(first.sizeBytes)} requested with ${formatBytes(first.liveBytes)} live, ` +
    `${formatBytes(first.reservedBytes)} reserved, capacity ${first.capacityBytes === null ? 'unlimited' : formatBytes(first.capacityBytes)} (${first.kind}); --allow-oom accepts it`
  );
}

export function replayCommand(): Command {
  return addAttributionOptions(addTraceInputOptions(
    new Command('replay')
      .description('replay a trace through an allocator and report peak usage, fragmentation and OOMs')
      .argument('<trace>', 'trace file (memsim JSON/JSONL/CSV, or an importable format); - for stdin')
      .option('-a, --allocator <name>', `allocator: ${listAllocators().map((a) => a.name).join(', ')}; or NAME[key=value,…] with options`, 'naive')
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
      .action((tracePath: string, raw: Record<string, unknown>) => {
        const o = parseOptions(schema, raw);
        if (o.format === 'html') htmlDestination(o.output);
        const reading = new Progress(o.progress as ProgressMode, 'read');
        const trace = readTrace(tracePath, readOptions(o, {
          onProgress: (done, total) => reading.update(done, total, 'bytes'),
        }));
        reading.done();
        const progress = new Progress(o.progress as ProgressMode, 'replay');
        const placements = o.placements ? new LineFile(o.placements) : undefined;
        placements?.line('event,id,address,sizeBytes,allocatedBytes');
        const csvId = (id: string): string => (/[",\n\r]/.test(id) ? `"${id.replace(/"/g, '""')}"` : id);
        const visual = o.format === 'html' ? visualContext(trace) : undefined;
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
                    placements.line(`${event},${csvId(trace.ids.get(a))},${formatHex(address)},${size},${allocated}`),
                }
              : {}),
          };
          if (visual) {
            const collected = collectVisualRun(visual, run);
            result = collected.result;
            const data = buildVisualReport<CompareReport>(visual, [collected.visual], { command: 'replay', capacityBytes: effectiveCapacity(trace, o.capacity), onOom: o.onOom });
            page = renderHtmlReport(data, loadHtmlAssets());
          } else {
            result = replay(trace, run);
          }
        } finally {
          progress.done();
          placements?.close();
        }
        const color = o.format === 'text' && useColor(!o.color, o.output !== undefined);
        writeOutput(page ?? renderReplay(result.report, o.format as 'text' | 'json' | 'markdown', color, o.oomDump), o.output);
        const gate = oomGate(result.report);
        if (gate && !o.allowOom) throw new GateFailure(gate);
      }),
  ));
}
