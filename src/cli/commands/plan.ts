import { Command, Option } from 'commander';
import { z } from 'zod';
import { readPlanInputFile, RECORD_FORMATS } from '../../planners/input.js';
import { listPlanners, resultOffsets, runPlan, selectStrategies, strategyNames } from '../../planners/index.js';
// The report's modules one by one: its index brings compare's tables, and with them every allocator.
import { renderJson } from '../../report/json.js';
import { csvPlanOf, planCsvBytes } from '../../report/plan-csv.js';
import { feasibilityOf, renderPlanText } from '../../report/plan-text.js';
import { UsageError } from '../../errors.js';
import { parseDuration } from '../../util/duration.js';
import { GateFailure } from '../errors.js';
import { reportWidth, useColor, writeOutput } from '../io.js';
import { bytesArg, intArg, parseOptions, WIDTH_HELP, widthArg } from '../options.js';
import { addTraceInputOptions, readOptions, traceInputFields } from '../trace-input.js';

const durationArg = z.string().transform((v, ctx) => {
  const d = parseDuration(v);
  if (!d.ok) {
    ctx.issues.push({ code: 'custom', message: d.message, input: v });
    return z.NEVER;
  }
  if (d.ms <= 0) {
    ctx.issues.push({ code: 'custom', message: `must be positive, got "${v}" (--node-budget 0 turns the exact search off)`, input: v });
    return z.NEVER;
  }
  return d.ms;
});

const schema = z.object({
  strategy: z.string().default('all'),
  alignment: bytesArg.default(1),
  timeLimit: durationArg.default(60_000),
  nodeBudget: intArg.optional(),
  capacity: bytesArg.optional(),
  memoryLimit: bytesArg.optional(),
  format: z.enum(['text', 'json', 'csv']).default('text'),
  output: z.string().optional(),
  ...traceInputFields,
  color: z.boolean().default(true),
  width: widthArg.optional(),
});

function strategyHelp(): string {
  const lines = listPlanners().map((p) => `  ${`${p.name} (${p.kind})`.padEnd(34)} ${p.description}`);
  return [`  ${'best (offsets)'.padEnd(34)} the strategies (but min-cost-flow), then an exact search within --node-budget`, ...lines].join('\n');
}

export function planCommand(): Command {
  return addTraceInputOptions(
    new Command('plan')
      .description('plan a trace or usage records offline (TFLite, XLA, minimalloc strategies) and compare totals with the lower bounds')
      .argument('<input>', 'a memsim trace (any format), a minimalloc CSV (id,lower,upper,size) or a size,first,last CSV; - for stdin')
      .option('-s, --strategy <names>', `all, or a comma-separated list: ${strategyNames().join(', ')} (name:objects or name:offsets picks one kind)`, 'all')
      .option('--alignment <bytes>', 'offsets are multiples of this (TFLite base_addr_align_bytes, XLA alignment)', '1')
      .option('--capacity <bytes>', 'best: find a packing that fits in this many bytes (feasibility, as minimalloc is used) instead of the smallest; exit 1 when none is found')
      .option('--node-budget <nodes>', "work budget of best's exact search, in search nodes: where an unfinished search stops, the same on every run (default: 10^8 over what a node of the input costs, its buffers plus an average buffer's overlaps and twice its sections, overrun by a search that is still improving, up to twice; a budget given is a hard limit; 0 turns the search off)")
      .option('--time-limit <duration>', 'wall-clock cap of the whole run (e.g. 10s, 500ms, 2m); a search cut by it says so, and may differ on a rerun; any other strategy still running then stops with exit 2', '60s')
      .option('--memory-limit <bytes>', "memory the strategies may use (e.g. 8GiB; default: half of the machine's); a strategy that would need more is refused with exit 2 before it starts")
      .addOption(new Option('-f, --format <format>', 'text table, memsim.plan/1 JSON, or the records with an offset column (csv)').choices(['text', 'json', 'csv']).default('text'))
      .option('--output <file>', 'write to a file instead of stdout')
      .option('--no-color', 'no colours in the text table')
      .option('--width <columns>', WIDTH_HELP)
      .addHelpText(
        'after',
        `
  Strategies:
  ${strategyHelp()}

  Records: a trace gives one record per allocation; time advances at each alloc, a record lives from its
  alloc to the last alloc before its free (to the end if never freed). minimalloc lifetimes are
  half-open [lower, upper); size,first,last are closed. The ratio is to the lower bound of the plan's
  kind. csv writes the best-ranked plan (objects laid out back to back). When the exact search spends
  its node budget, best returns the best packing found, marked not proven; the result is the same on
  every run unless the clock (--time-limit) stops it first, which the note says. With --capacity, best
  reports found, proven infeasible, or not known (budget or clock spent); exit 1 unless found.

Examples:
  $ memsim plan ../shared/traces/minimalloc/A.1048576.csv
  $ memsim plan traces/training.json --strategy greedy-by-size,xla-best-fit --alignment 256
  $ memsim plan traces/fragmentation.csv --strategy best --node-budget 5000000 --format csv --output offsets.csv
  $ memsim plan ../shared/traces/minimalloc/B.1048576.csv --strategy best --capacity 1048576
  $ memsim plan traces/inference.jsonl --strategy greedy-by-size:offsets --format json`,
      )
      .action(async (inputPath: string, raw: Record<string, unknown>) => {
        const o = parseOptions(schema, raw);
        if (!Number.isSafeInteger(o.alignment) || o.alignment < 1) throw new UsageError(`--alignment: must be a positive whole number of bytes`);
        selectStrategies(o.strategy); // a usage error before reading the input
        const records = await readPlanInputFile(inputPath, readOptions(o));
        if (o.capacity !== undefined && !selectStrategies(o.strategy).best) {
          throw new UsageError(`--capacity: the feasibility search is best's; add best to --strategy (e.g. --strategy best)`);
        }
        const report = runPlan(records, {
          strategy: o.strategy,
          alignmentBytes: o.alignment,
          timeLimitMs: o.timeLimit,
          ...(o.nodeBudget !== undefined ? { nodeBudget: o.nodeBudget } : {}),
          ...(o.memoryLimit !== undefined ? { memoryBytes: o.memoryLimit } : {}),
          ...(o.capacity !== undefined ? { capacityBytes: o.capacity } : {}),
        });
        if (o.format === 'json') {
          writeOutput(renderJson(report), o.output);
        } else if (o.format === 'csv') {
          const chosen = csvPlanOf(report.results);
          if (!chosen) throw new UsageError(`no plan to write: every selected strategy was skipped (${report.results.map((r) => r.strategy).join(', ')})`);
          writeOutput(planCsvBytes(records, resultOffsets(chosen, o.alignment)), o.output);
        } else {
          const color = useColor(!o.color, o.output !== undefined);
          writeOutput(renderPlanText(report, { color, width: reportWidth(o.width, o.output !== undefined) }), o.output);
        }
        const verdict = feasibilityOf(report);
        if (verdict && verdict.status !== 'found') throw new GateFailure(verdict.line);
      }),
    RECORD_FORMATS,
  );
}
