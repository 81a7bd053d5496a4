import { extname } from 'node:path';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { readTrace } from '../../trace/read.js';
import { writeBinaryTrace } from '../../trace/binary/write.js';
import { writeTrace, type WriteFormat } from '../../trace/write.js';
import { parseOptions } from '../options.js';
import { addTraceInputOptions, readOptions, traceInputFields } from '../trace-input.js';

const schema = z.object({
  format: z.enum(['json', 'jsonl', 'csv', 'mst']).optional(),
  ...traceInputFields,
});

const BY_EXTENSION: Record<string, WriteFormat | 'mst'> = { '.json': 'json', '.jsonl': 'jsonl', '.ndjson': 'jsonl', '.csv': 'csv', '.mst': 'mst' };

export function convertCommand(): Command {
  return addTraceInputOptions(
    new Command('convert')
      .description("write any readable trace in memsim's own formats (JSON, JSONL, CSV, or the binary .mst that every command loads at disk speed)")
      .argument('<input>', 'trace in any readable format')
      .argument('<output>', 'output file; its extension (.json, .jsonl, .csv, .mst) picks the format unless --format is given')
      .addOption(new Option('-f, --format <format>', 'output format (mst: memsim binary trace)').choices(['json', 'jsonl', 'csv', 'mst']))
      .addHelpText(
        'after',
        `
Examples:
  $ memsim convert trace.csv trace.json
  $ memsim convert big.csv big.mst && memsim replay big.mst -a bfc
  $ memsim convert snapshot.pickle snapshot.jsonl
  $ memsim convert trace.json - --format csv | head`,
      )
      .action((input: string, output: string, raw: Record<string, unknown>) => {
        const o = parseOptions(schema, raw);
        const format = o.format ?? BY_EXTENSION[extname(output).toLowerCase()];
        if (!format) throw new UsageError(`cannot tell the output format of "${output}"; use --format json|jsonl|csv|mst`);
        const trace = readTrace(input, readOptions(o));
        if (format === 'mst') writeBinaryTrace(trace, output);
        else writeTrace(trace, output, format);
      }),
  );
}
