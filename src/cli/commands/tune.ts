import { Command, Option } from 'commander';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { renderJson } from '../../report/index.js';
import { renderTuneHtml } from '../../report/tune-html.js';
import { renderTuneMarkdown } from '../../report/tune-markdown.js';
import { renderTuneText } from '../../report/tune-text.js';
import { shortfallText } from '../../report/tune-answer.js';
import { runTune } from '../../sweep/tune.js';
import { assembleTuneReport, mergeTuneParts, parseTunePart } from '../../sweep/tune-report.js';
import type { TunePart, TuneReport } from '../../sweep/tune-types.js';
import { readTrace } from '../../trace/read.js';
import { splitConfigurations } from '../../util/configuration.js';
import { GateFailure } from '../errors.js';
import { htmlDestination, Progress, type ProgressMode, reportWidth, useColor, writeOutput, writeErr } from '../io.js';
import { bytesArg, collect, intArg, parseOptions, WIDTH_HELP, widthArg } from '../options.js';
import { addTraceInputOptions, readOptions, traceInputFields } from '../trace-input.js';
import { readJsonFile } from '../json-file.js';
import { earlyWorkers } from '../early-workers.js';

const schema = z.object({
  allocators: z.string().optional(),
  capacity: bytesArg.optional(),
  capacityStep: bytesArg.default(1024 * 1024),
  space: z.array(z.string()).default([]),
  current: z.array(z.string()).default([]),
  exhaustive: z.boolean().default(false),
  top: intArg.refine((n) => n >= 1, 'must be at least 1').default(10),
  format: z.enum(['text', 'json', 'markdown', 'html']).default('text'),
  output: z.string().optional(),
  jsonOutput: z.string().optional(),
  jobs: intArg.refine((n) => n >= 1, 'must be at least 1').optional(),
  shard: z
    .string()
    .regex(/^\s*\d+\s*\/\s*\d+\s*$/, 'expected i/n, e.g. 2/4')
    .transform((v) => {
      const [i, n] = v.split('/').map((x) => Number(x.trim()));
      return { index: i as number, count: n as number };
    })
    .optional(),
  merge: z.array(z.string()).optional(),
  start: z.enum(['recorded', 'fresh']).optional(),
  ...traceInputFields,
  progress: z.enum(['auto', 'always', 'never']).default('auto'),
  color: z.boolean().default(true),
  width: widthArg.optional(),
});

function readPart(path: string): TunePart {
  return parseTunePart(readJsonFile(path, 'tune part'), path);
}

/** Renders the report in the asked format. */
export function renderTune(r: TuneReport, format: 'text' | 'json' | 'markdown' | 'html', o: { color: boolean; top: number; width?: number }): string {
  if (format === 'json') return renderJson(r);
  if (format === 'markdown') return renderTuneMarkdown(r, { top: o.top });
  if (format === 'html') return renderTuneHtml(r, { top: o.top });
  return renderTuneText(r, { color: o.color, top: o.top, ...(o.width !== undefined ? { width: o.width } : {}) });
}

export function tuneCommand(): Command {
  return addTraceInputOptions(
    new Command('tune')
      .description('search allocator settings and recommend the one that fits: every configuration\'s peak reserved, OOMs, minimum capacity')
      .argument('[trace]', 'trace file (memsim JSON/JSONL/CSV, or an importable format); - for stdin; none with --merge')
      .option('-a, --allocators <list>', 'allocators to tune, comma-separated, or all (default: the allocator that recorded a snapshot or log, and the recording; else all)')
      .option('-c, --capacity <bytes>', 'device capacity every configuration must fit (default: the trace meta capacityBytes, else unlimited)')
      .option('--capacity-step <bytes>', 'grid of the minimum-capacity search', '1MiB')
      .option('--space <key=v1,v2>', 'the values to try for one option, replacing the declared ones (allocator.key=… for one allocator); repeatable', collect, [])
      .option('--current <config>', 'the options in force now where the trace does not record them, e.g. \'bfc[allow_growth=true]\' (repeatable, one per allocator)', collect, [])
      .option('--exhaustive', 'replay every point of spaces over 64 points instead of searching them')
      .option('--top <n>', 'rows shown in text, markdown and html (the current configuration and the answer always are; json has every row)', '10')
      .addOption(new Option('-f, --format <format>', 'report format').choices(['text', 'json', 'markdown', 'html']).default('text'))
      .option('--output <file>', 'write the report to a file instead of stdout')
      .option('--json-output <file>', 'also write the memsim.tune/1 JSON report to a file')
      .option('-j, --jobs <n>', 'threads: this one and n-1 workers (default: the number of cores, or 1 for traces under 50,000 events; at most 4 a core)')
      .addOption(new Option('--start <mode>', 'how replays of a recorded history start (default: the current configuration from the recorded layout, every other one fresh)').choices(['recorded', 'fresh']))
      .option('--shard <i/n>', 'run slice i of n of the configurations and write its part (JSON) for --merge')
      .option('--merge <files...>', 'join the parts written by --shard into the report one run gives')
      .addOption(new Option('--progress <mode>', 'progress on stderr').choices(['auto', 'always', 'never']).default('auto'))
      .option('--no-color', 'no colours in the text report')
      .option('--width <columns>', WIDTH_HELP)
      .addHelpText(
        'after',
        `
  Exit 1 when a capacity is given and no configuration fits it (the last line on stderr says how
  short the best one falls), else 0; 2 for bad usage or input.

Examples:
  $ memsim tune snapshot.pickle --capacity 40GiB
  $ memsim tune traces/training.json --allocators caching --capacity 12GiB --format markdown
  $ memsim tune trace.json --allocators caching --space max_split_size_mb=none,128,256 --space expandable_segments=true
  $ memsim tune trace.json --allocators all --shard 2/4 --output part-2.json
  $ memsim tune --merge part-*.json --format markdown >> "$GITHUB_STEP_SUMMARY"`,
      )
      .action(async (tracePath: string | undefined, raw: Record<string, unknown>) => {
        const o = parseOptions(schema, raw);
        if (o.format === 'html') htmlDestination(o.output);
        let part: TunePart;
        if (o.merge !== undefined) {
          if (tracePath !== undefined) throw new UsageError('--merge joins parts: give the part files after --merge and no trace');
          if (o.shard !== undefined) throw new UsageError('--merge and --shard do not go together');
          part = mergeTuneParts(o.merge.map((path) => ({ path, part: readPart(path) })));
        } else {
          if (tracePath === undefined) throw new UsageError('missing the trace (or --merge part files)');
          if (o.shard !== undefined && o.format !== 'text' && o.format !== 'json') throw new UsageError('--shard writes a part (JSON) for --merge; --format does not apply');
          const allocators = o.allocators === undefined ? undefined : o.allocators.trim() === 'all' ? 'all' : splitConfigurations(o.allocators);
          const early = earlyWorkers(tracePath, o.jobs);
          const trace = readTrace(tracePath, readOptions(o));
          const progress = new Progress(o.progress as ProgressMode, 'tune', true);
          let result;
          try {
            result = await runTune(trace, {
              ...(allocators !== undefined ? { allocators } : {}),
              ...(o.capacity !== undefined ? { capacityBytes: o.capacity } : {}),
              capacityStepBytes: o.capacityStep,
              space: o.space,
              current: o.current,
              exhaustive: o.exhaustive,
              ...(o.start ? { start: o.start } : {}),
              ...(o.shard ? { shard: o.shard } : {}),
              ...(o.jobs !== undefined ? { jobs: o.jobs } : {}),
              ...(early ? { early } : {}),
              onProgress: (done, total) => progress.update(done, total, 'configurations'),
            });
          } finally {
            progress.done();
          }
          if (o.jobs !== undefined && o.jobs > 1 && result.execution.reason) writeErr(`memsim: note: ran in one thread: ${result.execution.reason}\n`);
          part = result.part;
          if (o.shard !== undefined) {
            writeOutput(renderJson(part), o.output);
            return;
          }
        }
        const report = assembleTuneReport(part);
        const color = o.format === 'text' && useColor(!o.color, o.output !== undefined);
        writeOutput(renderTune(report, o.format, { color, top: o.top, width: reportWidth(o.width, o.output !== undefined) }), o.output);
        if (o.jsonOutput !== undefined) writeOutput(renderJson(report), o.jsonOutput);
        const sf = report.shortfall;
        if (sf) {
          throw new GateFailure(`${shortfallText(report, sf)}; the OOMs are ${sf.kind}`);
        }
      }),
  );
}
