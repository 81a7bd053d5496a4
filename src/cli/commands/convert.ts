import { extname } from 'node:path';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { readTrace } from '../../trace/read.js';
import { writeTrace, type WriteFormat } from '../../trace/write.js';
import { parseOptions } from '../options.js';

const schema = z.object({
  format: z.enum(['json', 'jsonl', 'csv']).optional(),
  inputFormat: z.string().optional(),
  lenient: z.boolean().default(false),
  device: z.string().regex(/^\d+$/, 'expected a device number').transform(Number).optional(),
  allocatorName: z.string().min(1, 'expected an allocator name').optional(),
});

const BY_EXTENSION: Record<string, WriteFormat> = { '.json': 'json', '.jsonl': 'jsonl', '.ndjson': 'jsonl', '.csv': 'csv' };

export function convertCommand(): Command {
  return new Command('convert')
    .description("write any readable trace in memsim's own formats (JSON, JSONL, CSV)")
    .argument('<input>', 'trace in any readable format')
    .argument('<output>', 'output file; its extension (.json, .jsonl, .csv) picks the format unless --format is given')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['json', 'jsonl', 'csv']))
    .option('--input-format <format>', 'force the input format instead of detecting it')
    .option('--device <n>', 'device to import from multi-device inputs')
    .option('--allocator-name <name>', 'allocator to import from inputs that log several (TensorFlow logs: e.g. GPU_0_bfc; default the one with the most bytes)')
    .option('--lenient', 'skip and count frees of non-live ids and allocs of live ids')
    .addHelpText(
      'after',
      `
Examples:
  $ memsim convert trace.csv trace.json
  $ memsim convert snapshot.pickle snapshot.jsonl
  $ memsim convert trace.json - --format csv | head`,
    )
    .action((input: string, output: string, raw: Record<string, unknown>) => {
      const o = parseOptions(schema, raw);
      const format = o.format ?? BY_EXTENSION[extname(output).toLowerCase()];
      if (!format) throw new UsageError(`cannot tell the output format of "${output}"; use --format json|jsonl|csv`);
      const trace = readTrace(input, {
        lenient: o.lenient,
        ...(o.inputFormat ? { format: o.inputFormat } : {}),
        ...(o.device !== undefined ? { device: o.device } : {}),
        ...(o.allocatorName !== undefined ? { allocatorName: o.allocatorName } : {}),
      });
      writeTrace(trace, output, format);
    });
}
