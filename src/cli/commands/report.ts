import { Command, Option } from 'commander';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { compareTrace } from '../../sweep/compare.js';
import { knownContenders } from '../../sweep/contenders.js';
import { readTrace } from '../../trace/read.js';
import { splitConfigurations } from '../../util/configuration.js';
import { comparisonPage } from '../html.js';
import { htmlDestination, Progress, type ProgressMode, writeOutput } from '../io.js';
import { bytesArg, collect, intArg, parseOptions } from '../options.js';
import { optionsByRow } from './compare.js';
import { addTraceInputOptions, readOptions, traceInputFields } from '../trace-input.js';
import { addAttributionOptions, attributionFields, attributionOptions } from '../attribution-input.js';

const schema = z.object({
  allocators: z.string().default('all'),
  option: z.array(z.string()).default([]),
  capacity: bytesArg.optional(),
  output: z.string().optional(),
  onOom: z.enum(['stop', 'continue']).default('stop'),
  start: z.enum(['recorded', 'fresh']).optional(),
  ...attributionFields,
  states: intArg.refine((n) => n <= 1000, 'at most 1000').default(32),
  timelinePoints: intArg.refine((n) => n >= 100 && n <= 100_000, 'between 100 and 100000').default(4000),
  jobs: intArg.refine((n) => n >= 1, 'must be at least 1').optional(),
  ...traceInputFields,
  progress: z.enum(['auto', 'always', 'never']).default('auto'),
});

export function reportCommand(): Command {
  return addAttributionOptions(addTraceInputOptions(
    new Command('report')
      .description('write a self-contained HTML report: memory over time, allocator states drawn to scale, per-step peaks, tables, OOMs')
      .argument('<trace>', 'trace file (memsim JSON/JSONL/CSV, or an importable format); - for stdin')
      .option('-a, --allocators <list>', `comma-separated names or variants NAME[key=value,…], or all (known: ${knownContenders().join(', ')})`, 'all')
      .option('-o, --option <alloc.key=value>', 'an option of one allocator, e.g. naive.page=4KiB (repeatable)', collect, [])
      .option('-c, --capacity <bytes>', 'device capacity of every replay (default: the trace meta capacityBytes, else unlimited)')
      .option('--output <file>', 'the HTML file to write (default: stdout, when it is not a terminal)')
      .addOption(new Option('--on-oom <mode>', 'stop at the first OOM, or record it, drop the allocation and go on').choices(['stop', 'continue']).default('stop'))
      .addOption(new Option('--start <mode>', 'replays of a recorded history (snapshot, log): start from the recorded layout, or fresh with the live blocks allocated first (default: recorded when the options equal the recording\'s settings)').choices(['recorded', 'fresh']))
      .option('--states <n>', 'allocator states captured at evenly spaced events, for picking on the timeline (besides the peaks and OOMs)', '32')
      .option('--timeline-points <n>', 'points per allocator on the timeline', '4000')
      .option('-j, --jobs <n>', 'threads for the comparison table (this one and n-1 workers; at most 4 a core)')
      .addOption(new Option('--progress <mode>', 'progress on stderr').choices(['auto', 'always', 'never']).default('auto'))
      .addHelpText(
        'after',
        `
  The page needs no network: open it from disk in any browser. Drag on the timeline to zoom, click a
  point or an OOM marker to see the allocator's segments and blocks at that moment.

Examples:
  $ memsim report traces/training.json --output report.html
  $ memsim report traces/training.json --allocators naive,lifetime-pool --capacity 12GiB --output report.html
  $ memsim report traces/fragmentation.csv --capacity 560MiB --on-oom continue --output oom.html
  $ memsim report trace.csv --option naive.page=64KiB --states 64 --output report.html`,
      )
      .action(async (tracePath: string, raw: Record<string, unknown>) => {
        const o = parseOptions(schema, raw);
        htmlDestination(o.output);
        const allocators = o.allocators.trim() === 'all' ? 'all' : splitConfigurations(o.allocators);
        if (allocators !== 'all' && allocators.length === 0) throw new UsageError('--allocators: no allocator named');
        const trace = readTrace(tracePath, readOptions(o));
        const given = optionsByRow(o.option);
        const progress = new Progress(o.progress as ProgressMode, 'compare');
        let result;
        try {
          result = await compareTrace(trace, {
            allocators,
            options: given,
            ...(o.capacity !== undefined ? { capacityBytes: o.capacity } : {}),
            onOom: o.onOom,
            ...(o.start ? { start: o.start } : {}),
            attribution: attributionOptions(o),
            ...(o.jobs !== undefined ? { jobs: o.jobs } : {}),
            onProgress: (done, total) => progress.update(done, total, 'allocators'),
          });
        } finally {
          progress.done();
        }
        const settings = { sampleStates: o.states, timelinePoints: o.timelinePoints };
        writeOutput(comparisonPage(trace, result.report, given, { command: 'report', progress: o.progress as ProgressMode, settings }), o.output);
      }),
  ));
}
