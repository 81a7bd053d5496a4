import { extname } from 'node:path';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import type { Trace } from '../../trace/model.js';
import { convertAsRead, convertsAsRead } from '../../trace/convert-stream.js';
import { openTrace, readOpenedTrace } from '../../trace/open.js';
import { loadReader } from '../../trace/readers.js';
import { writeBinaryTrace } from '../../trace/binary/write.js';
import { writeTrace, type WriteFormat } from '../../trace/write.js';
import { writeErr } from '../io.js';
import { parseOptions } from '../options.js';
import { addTraceInputOptions, readOptions, traceInputFields } from '../trace-input.js';

const schema = z.object({
  format: z.enum(['json', 'jsonl', 'csv', 'mst']).optional(),
  ...traceInputFields,
});

const BY_EXTENSION: Record<string, WriteFormat | 'mst'> = { '.json': 'json', '.jsonl': 'jsonl', '.ndjson': 'jsonl', '.csv': 'csv', '.mst': 'mst' };

/** What a trace holds besides its events, which the text formats do not keep (the binary one does). */
function lostInText(trace: Trace): string[] {
  const lost: string[] = [];
  if (trace.recorded) lost.push("the real allocator's recorded history and settings");
  if (trace.stacks) lost.push('the call stacks');
  if (trace.initialEvents > 0) lost.push('which events rebuild the state when the window opened');
  return lost;
}

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
      .action(async (input: string, output: string, raw: Record<string, unknown>) => {
        const o = parseOptions(schema, raw);
        const format = o.format ?? BY_EXTENSION[extname(output).toLowerCase()];
        if (!format) throw new UsageError(`cannot tell the output format of "${output}"; use --format json|jsonl|csv|mst`);
        const options = readOptions(o);
        const opened = openTrace(input, options);
        await loadReader(opened.reader);
        // A CSV or JSON Lines trace is converted as it is read, in memory that does not grow with it.
        if (format !== 'mst' && convertsAsRead(opened, format, output) && convertAsRead(opened, output, format, options)) return;
        const trace = readOpenedTrace(opened, options);
        if (format === 'mst') writeBinaryTrace(trace, output);
        else {
          writeTrace(trace, output, format);
          const lost = lostInText(trace);
          if (lost.length > 0) {
            const what = lost.length === 1 ? lost[0] : `${lost.slice(0, -1).join(', ')} or ${lost.at(-1)}`;
            const to = output === '-' ? 'the output' : output;
            writeErr(`memsim: note: ${to} holds the events of ${input} only, not ${what}: replays of it differ from replays of ${input} (.mst keeps them all)\n`);
          }
        }
      }),
  );
}
