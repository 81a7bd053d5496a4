import { Command, Option } from 'commander';
import { z } from 'zod';
import { readPlanInput, RECORD_FORMATS } from '../../planners/input.js';
import { listPlanners, resultOffsets, runPlan, selectStrategies, strategyNames } from '../../planners/index.js';
import { csvPlanOf, renderJson, renderPlanCsv, renderPlanText } from '../../report/index.js';
import { traceReaders } from '../../trace/readers.js';
import { UsageError } from '../../errors.js';
import { parseDuration } from '../../util/duration.js';
import { useColor, writeOutput } from '../io.js';
import { bytesArg, parseOptions } from '../options.js';

const durationArg = z.string().transform((v, ctx) => {
  const d = parseDuration(v);
  if (!d.ok) {
    ctx.issues.push({ code: 'custom', message: d.message, input: v });
    return z.NEVER;
  }
  return d.ms;
});

const schema = z.object({
  strategy: z.string().default('all'),
  alignment: bytesArg.default(1),
  timeLimit: durationArg.default(10_000),
  format: z.enum(['text', 'json', 'csv']).default('text'),
  output: z.string().optional(),
  lenient: z.boolean().default(false),
  inputFormat: z.string().optional(),
  device: z.string().regex(/^\d+$/, 'expected a device number').transform(Number).optional(),
  color: z.boolean().default(true),
});

function strategyHelp(): string {
  const lines = listPlanners().map((p) => `  ${`${p.name} (${p.kind})`.padEnd(34)} ${p.description}`);
  return [`  ${'best (offsets)'.padEnd(34)} every strategy, then an exact search within --time-limit`, ...lines].join('\n');
}

export function planCommand(): Command {
  return new Command('plan')
    .description('plan a trace or usage records offline (TFLite, XLA, minimalloc strategies) and compare totals with the lower bounds')
    .argument('<input>', 'a memsim trace (any format), a minimalloc CSV (id,lower,upper,size) or a size,first,last CSV; - for stdin')
    .option('-s, --strategy <names>', `all, or a comma-separated list: ${strategyNames().join(', ')} (name:objects or name:offsets picks one kind)`, 'all')
    .option('--alignment <bytes>', 'offsets are multiples of this (TFLite base_addr_align_bytes, XLA alignment)', '1')
    .option('--time-limit <duration>', 'budget of the exact search in best (e.g. 10s, 500ms, 2m; 0 turns it off)', '10s')
    .addOption(new Option('-f, --format <format>', 'text table, memsim.plan/1 JSON, or the records with an offset column (csv)').choices(['text', 'json', 'csv']).default('text'))
    .option('--output <file>', 'write to a file instead of stdout')
    .option('--lenient', 'traces: skip and count frees of non-live ids and allocs of live ids instead of failing')
    .option('--input-format <format>', `force the input format: ${[...RECORD_FORMATS, ...traceReaders.map((r) => r.format)].join(', ')}`)
    .option('--device <n>', 'device to import from multi-device inputs')
    .option('--no-color', 'no colours in the text table')
    .addHelpText(
      'after',
      `
Strategies:
${strategyHelp()}

Records: a trace gives one record per allocation; time advances at each alloc, a record lives from its
alloc to the last alloc before its free (to the end if never freed). minimalloc lifetimes are
half-open [lower, upper); size,first,last are closed. The ratio is to the lower bound of the plan's
kind. csv writes the best-ranked plan (objects laid out back to back). When the exact search runs
out of time, best returns the best packing found so far, marked not proven.

Examples:
  $ memsim plan ../shared/traces/minimalloc/A.1048576.csv
  $ memsim plan traces/training.json --strategy greedy-by-size,xla-best-fit --alignment 256
  $ memsim plan traces/fragmentation.csv --strategy best --time-limit 30s --format csv --output offsets.csv
  $ memsim plan traces/inference.jsonl --strategy greedy-by-size:offsets --format json`,
    )
    .action((inputPath: string, raw: Record<string, unknown>) => {
      const o = parseOptions(schema, raw);
      if (!Number.isSafeInteger(o.alignment) || o.alignment < 1) throw new UsageError(`--alignment: must be a positive whole number of bytes`);
      selectStrategies(o.strategy); // a usage error before reading the input
      const records = readPlanInput(inputPath, {
        lenient: o.lenient,
        ...(o.inputFormat ? { format: o.inputFormat } : {}),
        ...(o.device !== undefined ? { device: o.device } : {}),
      });
      const report = runPlan(records, { strategy: o.strategy, alignmentBytes: o.alignment, timeLimitMs: o.timeLimit });
      if (o.format === 'json') {
        writeOutput(renderJson(report), o.output);
      } else if (o.format === 'csv') {
        const chosen = csvPlanOf(report.results);
        if (!chosen) throw new UsageError(`no plan to write: every selected strategy was skipped (${report.results.map((r) => r.strategy).join(', ')})`);
        writeOutput(renderPlanCsv(records, resultOffsets(chosen, o.alignment)), o.output);
      } else {
        const color = useColor(!o.color, o.output !== undefined);
        writeOutput(renderPlanText(report, { color }), o.output);
      }
    });
}
