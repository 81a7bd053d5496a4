import { Command, Option } from 'commander';
import { formatCount } from '../../report/format.js';
import { renderJson } from '../../report/json.js';
import { traceInfo } from '../../sim/report.js';
import { checkTraceFile } from '../../trace/check.js';
import { formatBytes } from '../../util/bytes.js';
import { flag, flagSchema, parseOptions } from '../flags.js';
import { writeOutput } from '../io.js';
import { addTraceInputOptions, readOptions, traceInputFlags } from '../trace-flags.js';

// `validate` checks a trace without keeping it (memory follows the live allocations, not the
// length: it streams files larger than memory) and, as `replay`, starts without zod.
const schema = flagSchema({
  ...traceInputFlags,
  format: flag.oneOf(['text', 'json'], 'text'),
});

export function validateCommand(): Command {
  return addTraceInputOptions(
    new Command('validate')
      .description('check a trace (syntax and semantics) and print a one-line summary, or every problem (exit 2)')
      .argument('<trace>', 'trace file; - for stdin')
      .addOption(new Option('-f, --format <format>', 'summary format').choices(['text', 'json']).default('text'))
      .addHelpText(
        'after',
        `
Examples:
  $ memsim validate traces/training.json
  $ memsim validate big.csv --lenient
  $ memsim validate trace.jsonl --format json`,
      )
      .action(async (path: string, raw: Record<string, unknown>) => {
        const o = parseOptions(schema, raw);
        const trace = await checkTraceFile(path, readOptions(o));
        const info = traceInfo(trace);
        const notes = trace.notes ?? [];
        if (o.format === 'json') {
          writeOutput(renderJson({ schema: 'memsim.validate/1', valid: true, trace: info, ...(notes.length > 0 ? { notes } : {}) }), undefined);
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
            // One line still: the importer's notes (what it ignored, how it read the file) in the JSON.
            (notes.length > 0 ? `; ${notes.length} note${notes.length === 1 ? '' : 's'} from the importer (--format json lists them)` : '') +
            '\n',
          undefined,
        );
      }),
  );
}
