import { Command, Option } from 'commander';
import { allocatorNames } from '../../allocators/registry.js';
import { dropEarlyReading } from '../../trace/pipeline/early-slot.js';
import { TraceFeed } from '../../trace/pipeline/feed.js';
import { addAttributionOptions, attributionFlags } from '../attribution-flags.js';
import { collect, flag, flagSchema, parseOptions } from '../flags.js';
import { htmlDestination } from '../io.js';
import { addTraceInputOptions, readOptions, traceInputFlags } from '../trace-flags.js';

// `replay` is on the start-up path: its flags are checked without zod; the code that replays loads
// once the flags are checked (and a large file has started reading on another thread, which boots
// meanwhile), its allocator and importer by name, the HTML report's code only for --format html.
const schema = flagSchema({
  allocator: flag.name('an allocator name'),
  capacity: flag.bytes(),
  option: flag.list(),
  format: flag.oneOf(['text', 'json', 'markdown', 'html'], 'text'),
  output: flag.string(),
  placements: flag.string(),
  onOom: flag.oneOf(['stop', 'continue'], 'stop'),
  allowOom: flag.boolean(false),
  start: flag.maybeOneOf(['recorded', 'fresh']),
  ...attributionFlags,
  ...traceInputFlags,
  progress: flag.oneOf(['auto', 'always', 'never'], 'auto'),
  color: flag.boolean(true),
  oomDump: flag.oneOf(['compact', 'full', 'none'], 'compact'),
  width: flag.between(40, 1000),
});

/** The parsed flags of `replay`. */
export type ReplayFlags = ReturnType<typeof parseReplayFlags>;

function parseReplayFlags(raw: Record<string, unknown>) {
  return parseOptions(schema, raw);
}

export function replayCommand(): Command {
  return addAttributionOptions(addTraceInputOptions(
    new Command('replay')
      .description('replay a trace through an allocator and report peak usage, fragmentation and OOMs')
      .argument('<trace>', 'trace file (memsim JSON/JSONL/CSV, or an importable format); - for stdin')
      .option('-a, --allocator <name>', `allocator: ${allocatorNames().join(', ')}; or NAME[key=value,…] with options (default: caching for a PyTorch snapshot, bfc for a TensorFlow log, else naive)`)
      .option('-c, --capacity <bytes>', 'device capacity, e.g. 80GiB, 1.5GiB, 2GB (default: the trace meta capacityBytes, else unlimited)')
      .option('-o, --option <key=value>', 'allocator option (repeatable; key=value,key2=value2 also works)', collect, [])
      .addOption(new Option('-f, --format <format>', 'report format').choices(['text', 'json', 'markdown', 'html']).default('text'))
      .option('--output <file>', 'write the report to a file instead of stdout (html: the page, self-contained)')
      .option('--placements <file>', 'write CSV event,id,address,sizeBytes,allocatedBytes for every served allocation')
      .addOption(new Option('--on-oom <mode>', 'stop at the first OOM, or record it, drop the allocation and go on').choices(['stop', 'continue']).default('stop'))
      .option('--allow-oom', 'exit 0 even when the replay hits an OOM')
      .addOption(new Option('--start <mode>', 'replays of a recorded history (snapshot, log): start from the recorded layout, or fresh with the live blocks allocated first (default: recorded when the options equal the recording\'s settings)').choices(['recorded', 'fresh']))
      .option('--oom-dump <mode>', 'native OOM text in the text report: compact, full or none', 'compact')
      .addOption(new Option('--progress <mode>', 'progress on stderr').choices(['auto', 'always', 'never']).default('auto'))
      .option('--no-color', 'no colours in the text report')
      .option('--width <columns>', 'columns the text report keeps to, tables wrapping or leaving out columns to fit (default: the terminal\'s width, else 100)')
      .addHelpText(
        'after',
        `
Examples:
  $ memsim replay traces/training.json --allocator naive
  $ memsim replay traces/training.json --allocator naive --capacity 12GiB --format json --output report.json
  $ memsim replay traces/fragmentation.csv --allocator bfc --capacity 600MiB --on-oom continue --allow-oom --format html --output oom.html
  $ memsim replay traces/inference.jsonl --placements placements.csv --format markdown >> "$GITHUB_STEP_SUMMARY"
  $ memsim replay tf.log --allocator bfc --allocator-name GPU_0_bfc
  $ memsim replay snap.pickle --allocator caching --option expandable_segments=true --start fresh`,
      )
      .action(async (tracePath: string, raw: Record<string, unknown>) => {
        const o = parseReplayFlags(raw);
        if (o.format === 'html') htmlDestination(o.output);
        // A large CSV or JSONL file is read on another thread while it is replayed (text, JSON and
        // Markdown reports: the HTML one draws states of the whole trace); the thread starts now.
        const feed = o.format !== 'html' && TraceFeed.suits(tracePath, readOptions(o)) ? TraceFeed.open(tracePath, readOptions(o)) : null;
        // A thread started before the CLI loaded (bin/memsim.js) that this run does not read with stops.
        if (!feed) dropEarlyReading();
        feed?.catch(() => undefined); // its failure is thrown where it is awaited
        try {
          const { runReplay } = await import('./replay-run.js');
          await runReplay(tracePath, o, feed);
        } finally {
          // The reading thread stops with the command, whatever happens (it would keep the process up).
          await feed?.then((f) => f?.close(), () => undefined);
        }
      }),
  ));
}
