import { Command, Option } from 'commander';
import { z } from 'zod';
import { renderJson } from '../../report/index.js';
import { formatCount } from '../../report/format.js';
import { readTrace } from '../../trace/read.js';
import { traceInfo } from '../../sim/report.js';
import { formatBytes } from '../../util/bytes.js';
import { writeOutput } from '../io.js';
import { parseOptions } from '../options.js';

const schema = z.object({
  lenient: z.boolean().default(false),
  format: z.enum(['text', 'json']).default('text'),
  inputFormat: z.string().optional(),
  device: z.string().regex(/^\d+$/, 'expected a device number').transform(Number).optional(),
  allocatorName: z.string().min(1, 'expected an allocator name').optional(),
});

export function validateCommand(): Command {
  return new Command('validate')
    .description('check a trace (syntax and semantics) and print a one-line summary, or every problem (exit 2)')
    .argument('<trace>', 'trace file; - for stdin')
    .option('--lenient', 'count frees of non-live ids and allocs of live ids instead of failing')
    .addOption(new Option('-f, --format <format>', 'summary format').choices(['text', 'json']).default('text'))
    .option('--input-format <format>', 'force the input format instead of detecting it')
    .option('--device <n>', 'device to import from multi-device inputs')
    .option('--allocator-name <name>', 'allocator to import from inputs that log several (TensorFlow logs: e.g. GPU_0_bfc; default the one with the most bytes)')
    .addHelpText(
      'after',
      `
Examples:
  $ memsim validate traces/training.json
  $ memsim validate big.csv --lenient
  $ memsim validate trace.jsonl --format json`,
    )
    .action((path: string, raw: Record<string, unknown>) => {
      const o = parseOptions(schema, raw);
      const trace = readTrace(path, {
        lenient: o.lenient,
        ...(o.inputFormat ? { format: o.inputFormat } : {}),
        ...(o.device !== undefined ? { device: o.device } : {}),
        ...(o.allocatorName !== undefined ? { allocatorName: o.allocatorName } : {}),
      });
      const info = traceInfo(trace);
      if (o.format === 'json') {
        writeOutput(renderJson({ schema: 'memsim.validate/1', valid: true, trace: info }), undefined);
        return;
      }
      const s = trace.summary;
      const skipped = info.skipped.unknownFree + info.skipped.doubleAlloc;
      writeOutput(
        `ok ${path} (${trace.format}): ${formatCount(s.events)} events, ${formatCount(s.allocs)} allocs, ${formatCount(s.frees)} frees, ` +
          `${formatCount(s.steps)} step${s.steps === 1 ? '' : 's'}, peak live ${formatBytes(s.peakLiveBytes)}` +
          (s.peakLiveEvent >= 0 ? ` at event ${formatCount(s.peakLiveEvent)}` : '') +
          (s.finalLiveAllocs > 0 ? `, ${formatCount(s.finalLiveAllocs)} still live at the end (${formatBytes(s.finalLiveBytes)})` : '') +
          (skipped > 0 ? `; skipped ${info.skipped.unknownFree} frees of non-live ids and ${info.skipped.doubleAlloc} allocs of live ids` : '') +
          '\n',
        undefined,
      );
    });
}
