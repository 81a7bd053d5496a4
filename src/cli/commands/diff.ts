import { Command, Option } from 'commander';
import { z } from 'zod';
import { defaultDiffAllocators, type DiffReport, diffTraces, parseGrowthGate } from '../../diff/index.js';
import { UsageError } from '../../errors.js';
import { renderJson } from '../../report/index.js';
import { renderDiffMarkdown } from '../../report/diff-markdown.js';
import { renderDiffText } from '../../report/diff-text.js';
import { readTrace } from '../../trace/read.js';
import { canonicalConfiguration, splitConfigurations } from '../../util/configuration.js';
import { GateFailure } from '../errors.js';
import { reportWidth, useColor, writeOutput, writeErr } from '../io.js';
import { bytesArg, collect, intArg, parseOptionPairs, parseOptions, WIDTH_HELP, widthArg } from '../options.js';
import { addTraceInputOptions, readOptions, traceInputFields } from '../trace-input.js';
import { addAttributionOptions, attributionFields } from '../attribution-input.js';

const schema = z.object({
  allocators: z.string().optional(),
  option: z.array(z.string()).default([]),
  capacity: bytesArg.optional(),
  minCapacity: z.boolean().default(false),
  capacityStep: bytesArg.default(1024 * 1024),
  capacitySearch: z.enum(['bisect', 'scan']).default('bisect'),
  format: z.enum(['text', 'json', 'markdown']).default('text'),
  output: z.string().optional(),
  failOn: z.array(z.string()).default([]),
  onOom: z.enum(['stop', 'continue']).default('stop'),
  start: z.enum(['recorded', 'fresh']).optional(),
  ...attributionFields,
  jobs: intArg.refine((n) => n >= 1, 'must be at least 1').optional(),
  ...traceInputFields,
  color: z.boolean().default(true),
  width: widthArg.optional(),
});

/**
 * `--option` flags of diff: `allocator.key=value`, or `key=value` when one allocator runs. Keys are
 * grouped by row name.
 */
function optionsOf(flags: readonly string[], allocators: readonly string[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [key, value] of Object.entries(parseOptionPairs(flags))) {
    const dot = key.indexOf('.', key.lastIndexOf(']') + 1);
    if (dot > 0 && dot < key.length - 1) {
      (out[canonicalConfiguration(key.slice(0, dot))] ??= {})[key.slice(dot + 1)] = value;
    } else if (allocators.length === 1) {
      (out[canonicalConfiguration(allocators[0] as string)] ??= {})[key] = value;
    } else {
      throw new UsageError(`--option names the allocator when the diff runs more than one (${allocators.join(', ')}): allocator.key=value (e.g. caching.expandable_segments=true), got "${key}=${value}"`);
    }
  }
  return out;
}

/** Renders a diff in the asked format. */
export function renderDiff(r: DiffReport, format: 'text' | 'json' | 'markdown', color: boolean, width?: number): string {
  if (format === 'json') return renderJson(r);
  if (format === 'markdown') return renderDiffMarkdown(r);
  return renderDiffText(r, { color, ...(width !== undefined ? { width } : {}) });
}

export function diffCommand(): Command {
  return addAttributionOptions(
    addTraceInputOptions(
      new Command('diff')
        .description('two traces of the same workload (before and after a change): peak live, peak reserved, minimum capacity, and who grew or shrank at the peaks')
        .argument('<before>', 'the trace before the change (any readable format)')
        .argument('<after>', 'the trace after the change')
        .option('-a, --allocators <list>', 'comma-separated names or variants NAME[key=value,…] (default: the allocator the traces were recorded with, e.g. caching for PyTorch snapshots; else caching)')
        .option('-o, --option <key=value>', 'an allocator option: allocator.key=value, or key=value with one allocator (repeatable)', collect, [])
        .option('-c, --capacity <bytes>', 'device capacity of every replay (default: each trace\'s meta capacityBytes, else unlimited)')
        .option('--min-capacity', 'also search each allocator\'s smallest capacity on both traces')
        .option('--capacity-step <bytes>', 'grid of the minimum-capacity search', '1MiB')
        .addOption(new Option('--capacity-search <mode>', 'bisect, or scan every step below too').choices(['bisect', 'scan']).default('bisect'))
        .addOption(new Option('-f, --format <format>', 'report format (json: memsim.diff/1)').choices(['text', 'json', 'markdown']).default('text'))
        .option('--output <file>', 'write the report to a file instead of stdout')
        .option('--fail-on <condition>', 'exit 1 when: growth>5% (peak reserved or peak live) | peak-reserved-growth>X | peak-live-growth>X | min-capacity-growth>X | oom (the after trace runs out of memory); a growth gate also fails where the after trace runs out of memory as often as the before one or more (repeatable)', collect, [])
        .addOption(new Option('--on-oom <mode>', 'stop at the first OOM, or record it, drop the allocation and go on').choices(['stop', 'continue']).default('stop'))
        .addOption(new Option('--start <mode>', 'replays of recorded histories: from the recorded layout, or fresh (default: recorded when the options equal the recording\'s settings)').choices(['recorded', 'fresh']))
        .option('-j, --jobs <n>', 'threads: this one and n-1 workers (default: the number of cores, or 1 for traces under 50,000 events; at most 4 a core)')
        .option('--no-color', 'no colours in the text report')
        .option('--width <columns>', WIDTH_HELP)
        .addHelpText(
          'after',
          `
Examples:
  $ memsim diff before.pickle after.pickle
  $ memsim diff before.pickle after.pickle --group-by stack --stack-depth 3 --top 20
  $ memsim diff main.json pr.json --allocators naive,caching --min-capacity --format markdown >> "$GITHUB_STEP_SUMMARY"
  $ memsim diff main.json pr.json --fail-on 'growth>5%' --format json --output diff.json
  $ memsim diff before.pickle after.pickle --option expandable_segments=true --start fresh`,
        ),
    ),
  ).action(async (beforePath: string, afterPath: string, raw: Record<string, unknown>) => {
    const o = parseOptions(schema, raw);
    const gates = o.failOn.flatMap((f) => f.split(',')).filter((f) => f.trim() !== '').map(parseGrowthGate);
    const named = o.allocators !== undefined ? splitConfigurations(o.allocators) : undefined;
    if (named && named.length === 0) throw new UsageError('--allocators: no allocator named');
    const before = readTrace(beforePath, readOptions(o));
    const after = readTrace(afterPath, readOptions(o));
    const allocators = named ?? defaultDiffAllocators(before, after);
    const options = optionsOf(o.option, allocators);
    const report = await diffTraces(before, after, {
      allocators,
      options,
      ...(o.capacity !== undefined ? { capacityBytes: o.capacity } : {}),
      onOom: o.onOom,
      minCapacity: o.minCapacity,
      capacityStepBytes: o.capacityStep,
      capacitySearch: o.capacitySearch,
      ...(o.start ? { start: o.start } : {}),
      ...(o.groupBy !== undefined ? { groupBy: o.groupBy as 'frame' | 'stack' | 'file' | 'tag' } : {}),
      ...(o.top !== undefined ? { top: o.top } : {}),
      ...(o.stackDepth !== undefined ? { stackDepth: o.stackDepth } : {}),
      ...(o.jobs !== undefined ? { jobs: o.jobs } : {}),
      gates,
    });
    const color = o.format === 'text' && useColor(!o.color, o.output !== undefined);
    writeOutput(renderDiff(report, o.format, color, reportWidth(o.width, o.output !== undefined)), o.output);
    const failures = report.gates.flatMap((g) => g.failures);
    for (const f of failures.slice(0, -1)) writeErr(`memsim: ${f.message}\n`);
    const last = failures[failures.length - 1];
    if (last) throw new GateFailure(last.message);
  });
}
