import { Command, Option } from 'commander';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { renderCompareBench, renderCompareMarkdown, renderCompareText, renderJson } from '../../report/index.js';
import { baselineMismatch, compareWithBaseline, parseBaseline } from '../../sweep/compare-baseline.js';
import { evaluateGates, type GateSpec, parseGate, parseRatio } from '../../sweep/compare-gates.js';
import { compareTrace, type CompareReport } from '../../sweep/compare.js';
import { loadAllAllocators } from '../../allocators/registry.js';
import { knownContenders } from '../../sweep/contender.js';
import { traceInfo } from '../../sim/report.js';
import { effectiveCapacity } from '../../sim/run.js';
import { canonicalConfiguration, splitConfigurations } from '../../util/configuration.js';
import { GateFailure } from '../errors.js';
import { htmlDestination, Progress, type ProgressMode, reportWidth, useColor, writeOutput, writeErr } from '../io.js';
import { bytesArg, collect, intArg, parseOptionPairs, parseOptions, WIDTH_HELP, widthArg } from '../options.js';
import { addTraceInputOptions, readOptions, traceInputFields } from '../trace-input.js';
import { addAttributionOptions, attributionFields, attributionOptions } from '../attribution-input.js';
import { readJsonFile } from '../json-file.js';
import { earlyWorkers, readWholeTrace } from '../early-workers.js';

const schema = z.object({
  allocators: z.string().default('all'),
  option: z.array(z.string()).default([]),
  capacity: bytesArg.optional(),
  minCapacity: z.boolean().default(false),
  capacityStep: bytesArg.default(1024 * 1024),
  capacitySearch: z.enum(['bisect', 'scan']).default('bisect'),
  format: z.enum(['text', 'json', 'markdown', 'bench-json', 'html']).default('text'),
  output: z.string().optional(),
  jsonOutput: z.string().optional(),
  baseline: z.string().optional(),
  baselineAny: z.boolean().default(false),
  maxRegression: z.string().optional(),
  failOn: z.array(z.string()).default([]),
  onOom: z.enum(['stop', 'continue']).default('stop'),
  start: z.enum(['recorded', 'fresh']).optional(),
  ...attributionFields,
  jobs: intArg.refine((n) => n >= 1, 'must be at least 1').optional(),
  ...traceInputFields,
  progress: z.enum(['auto', 'always', 'never']).default('auto'),
  color: z.boolean().default(true),
  width: widthArg.optional(),
});

/** `--option alloc.key=value` flags, grouped by row name. */
export function optionsByRow(flags: readonly string[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [key, value] of Object.entries(parseOptionPairs(flags))) {
    // A variant's name may hold dots of its own (`caching[garbage_collection_threshold=0.6].key`).
    const dot = key.indexOf('.', key.lastIndexOf(']') + 1);
    if (dot <= 0 || dot === key.length - 1) {
      throw new UsageError(`--option in compare names the allocator: allocator.key=value (e.g. naive.page=4KiB), got "${key}=${value}"`);
    }
    (out[canonicalConfiguration(key.slice(0, dot))] ??= {})[key.slice(dot + 1)] = value;
  }
  return out;
}

/** Renders a comparison in the asked format. */
export function renderCompare(r: CompareReport, format: 'text' | 'json' | 'markdown' | 'bench-json', color: boolean, width?: number): string {
  if (format === 'json') return renderJson(r);
  if (format === 'markdown') return renderCompareMarkdown(r);
  if (format === 'bench-json') return renderCompareBench(r);
  return renderCompareText(r, { color, ...(width !== undefined ? { width } : {}) });
}

function readBaseline(path: string): unknown {
  return readJsonFile(path, 'baseline');
}

/**
 * The command, with every allocator of the registry loaded first (its help lists them). Loaded here,
 * not by importing allocators/index.ts, whose top-level await the quick bundle (CommonJS) cannot hold.
 */
export async function compareCommand(): Promise<Command> {
  await loadAllAllocators();
  return addAttributionOptions(addTraceInputOptions(
    new Command('compare')
      .description('replay a trace through several allocators side by side: peak usage, fragmentation, OOMs, minimum capacity, CI gates')
      .argument('<trace>', 'trace file (memsim JSON/JSONL/CSV, or an importable format); - for stdin')
      .option('-a, --allocators <list>', `comma-separated names or variants NAME[key=value,…], or all (every online allocator; plan:* only when named, as an offline bound) (known: ${knownContenders().join(', ')})`, 'all')
      .option('-o, --option <alloc.key=value>', 'an option of one allocator, e.g. naive.page=4KiB (repeatable)', collect, [])
      .option('-c, --capacity <bytes>', 'device capacity of every replay (default: the trace meta capacityBytes, else unlimited)')
      .option('--min-capacity', 'search each allocator\'s smallest capacity at which the whole trace replays without OOM')
      .option('--capacity-step <bytes>', 'grid of the minimum-capacity search', '1MiB')
      .addOption(new Option('--capacity-search <mode>', 'bisect, then verify the step below; or scan every step below too (exact for any allocator, slower)').choices(['bisect', 'scan']).default('bisect'))
      .addOption(new Option('-f, --format <format>', 'report format (bench-json: [{name, unit, value}] for benchmark trackers; html: a self-contained page with plots)').choices(['text', 'json', 'markdown', 'bench-json', 'html']).default('text'))
      .option('--output <file>', 'write the report to a file instead of stdout')
      .option('--json-output <file>', 'also write the memsim.compare/1 JSON report to a file (the next run\'s --baseline)')
      .option('--baseline <file>', 'a memsim.compare/1 JSON report to compare with (peak reserved, minimum capacity, OOMs)')
      .option('--baseline-any', 'compare with a baseline of another trace or capacity (refused otherwise: its figures are not a regression of this run)')
      .option('--max-regression <ratio>', 'allowed worsening against the baseline, e.g. 5% or 0.05; fails the run beyond it (default 0%)')
      .option('--fail-on <condition>', 'exit 1 when: oom | regression | fragmentation>0.3 | internal-fragmentation>X | external-fragmentation>X | overhead>X (repeatable)', collect, [])
      .addOption(new Option('--on-oom <mode>', 'stop at the first OOM, or record it, drop the allocation and go on').choices(['stop', 'continue']).default('stop'))
      .addOption(new Option('--start <mode>', 'replays of a recorded history (snapshot, log): start from the recorded layout, or fresh with the live blocks allocated first (default: recorded when the options equal the recording\'s settings)').choices(['recorded', 'fresh']))
      .option('-j, --jobs <n>', 'threads: this one and n-1 workers (default: the number of cores, or 1 for traces under 50,000 events; at most 4 a core; 1 runs in this thread)')
      .addOption(new Option('--progress <mode>', 'progress on stderr').choices(['auto', 'always', 'never']).default('auto'))
      .option('--no-color', 'no colours in the text report')
      .option('--width <columns>', WIDTH_HELP)
      .addHelpText(
        'after',
        `
Examples:
  $ memsim compare traces/training.json
  $ memsim compare traces/training.json --allocators naive,bfc --capacity 16GiB --min-capacity
  $ memsim compare traces/training.json --option naive.page=64KiB --fail-on oom --fail-on 'fragmentation>0.3'
  $ memsim compare trace.json --min-capacity --format html --output compare.html --json-output compare.json
  $ memsim compare trace.json --min-capacity --baseline main/compare.json --max-regression 2% --format markdown --json-output compare.json >> "$GITHUB_STEP_SUMMARY"`,
      )
      .action(async (tracePath: string, raw: Record<string, unknown>) => {
        const o = parseOptions(schema, raw);
        if (o.format === 'html') htmlDestination(o.output);
        const gates: GateSpec[] = o.failOn.flatMap((f) => f.split(',')).filter((f) => f.trim() !== '').map(parseGate);
        let maxRegression = 0;
        if (o.maxRegression !== undefined) {
          const r = parseRatio(o.maxRegression);
          if (r === null) throw new UsageError(`--max-regression: "${o.maxRegression}" is not a ratio (examples: 5%, 0.05)`);
          maxRegression = r;
          if (!gates.some((g) => g.type === 'regression')) gates.push({ type: 'regression', text: 'regression' });
        }
        if (gates.some((g) => g.type === 'regression') && o.baseline === undefined) {
          throw new UsageError(`${o.maxRegression !== undefined ? '--max-regression' : '--fail-on regression'} needs --baseline FILE (a memsim.compare/1 JSON report)`);
        }
        const baseline = o.baseline !== undefined ? parseBaseline(readBaseline(o.baseline), o.baseline) : undefined;
        const allocators = o.allocators.trim() === 'all' ? 'all' : splitConfigurations(o.allocators);
        if (allocators !== 'all' && allocators.length === 0) throw new UsageError('--allocators: no allocator named');

        const early = earlyWorkers(tracePath, o.jobs);
        const trace = await readWholeTrace(tracePath, readOptions(o));
        // A baseline of another trace or capacity is refused before any replay.
        const capacity = effectiveCapacity(trace, o.capacity);
        const differs = baseline ? baselineMismatch({ trace: traceInfo(trace), capacityBytes: Number.isFinite(capacity) ? capacity : null }, baseline) : [];
        if (differs.length > 0 && !o.baselineAny) {
          throw new UsageError(
            `--baseline ${o.baseline ?? ''} is from another experiment: ${differs.join('; ')}. ` +
              'Its figures would read as regressions or improvements that no change made: compare with a baseline of the same trace and capacity, or pass --baseline-any to compare anyway',
          );
        }
        const progress = new Progress(o.progress as ProgressMode, 'compare');
        let result;
        try {
          result = await compareTrace(trace, {
            allocators,
            options: optionsByRow(o.option),
            ...(o.capacity !== undefined ? { capacityBytes: o.capacity } : {}),
            onOom: o.onOom,
            ...(o.start ? { start: o.start } : {}),
            attribution: attributionOptions(o),
            minCapacity: o.minCapacity,
            capacityStepBytes: o.capacityStep,
            capacitySearch: o.capacitySearch,
            ...(o.jobs !== undefined ? { jobs: o.jobs } : {}),
            ...(early ? { early } : {}),
            onProgress: (done, total) => progress.update(done, total, 'allocators'),
          });
        } finally {
          progress.done();
        }
        const { report, execution } = result;
        if (o.jobs !== undefined && o.jobs > 1 && execution.reason) writeErr(`memsim: note: ran in one thread: ${execution.reason}\n`);
        if (baseline && o.baseline !== undefined) {
          report.baseline = compareWithBaseline(report, baseline, o.baseline, maxRegression);
          for (const d of differs) report.baseline.notes.push(`compared anyway (--baseline-any): ${d}`);
        }
        report.gates = evaluateGates(report, gates);
        if (o.format === 'html') {
          // The page's code loads only for it (the quick bundle hands --format html to the whole CLI).
          const { comparisonPage } = await import('../html.js');
          writeOutput(comparisonPage(trace, report, optionsByRow(o.option), { command: 'compare', progress: o.progress as ProgressMode }), o.output);
        } else {
          const color = o.format === 'text' && useColor(!o.color, o.output !== undefined);
          writeOutput(renderCompare(report, o.format as Exclude<typeof o.format, 'html'>, color, reportWidth(o.width, o.output !== undefined)), o.output);
        }
        if (o.jsonOutput !== undefined) writeOutput(renderJson(report), o.jsonOutput);
        const failures = report.gates.flatMap((g) => g.failures);
        for (const f of failures.slice(0, -1)) writeErr(`memsim: ${f.message}\n`);
        const last = failures[failures.length - 1];
        if (last) throw new GateFailure(last.message);
      }),
  ));
}
