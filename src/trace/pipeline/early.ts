/**
 * The reading thread of a large trace, started first thing: `bin/memsim.js` calls {@link readEarly}
 * before the CLI's modules load, so that the thread boots (some tens of milliseconds) while they
 * load instead of after. A `replay` of a CSV or JSON Lines file of at least {@link PIPELINE_MIN_BYTES}
 * whose flags leave the reading as it is by default qualifies; {@link TraceFeed.open} then takes the
 * thread over when it is asked for the same file with the same reading, and stops it otherwise (as
 * does a command that reads no trace on another thread). Until then the thread's messages wait here,
 * and it keeps no process alive.
 *
 * This module loads before anything else, for every command: it imports nothing of memsim's but
 * types and constants, and Node's modules only once the command line names a CSV or JSONL file.
 */
import type { Worker } from 'node:worker_threads';
import { type EarlyReading, setEarlyReading } from './early-slot.js';
import { PIPELINE_EVERY, PIPELINE_MIN_BYTES, READER_MODULES, type ReaderInit, type ReaderMessage } from './protocol.js';

/** Flags of `replay` that change how a trace is read, or what reads it (the HTML page reads it whole). */
const READING_FLAGS = ['--input-format', '--lenient', '--device', '--allocator-name', '-h', '--help'];

/** Node's modules that the early reading uses. */
interface Modules {
  statSync: typeof import('node:fs').statSync;
  extname: typeof import('node:path').extname;
}

/** The trace `argv` replays when its reading qualifies (see the module's comment), else undefined. */
function earlyTrace(argv: readonly string[], { statSync, extname }: Modules, minBytes: number): string | undefined {
  let trace: string | undefined;
  for (let k = 3; k < argv.length; k++) {
    const arg = argv[k] as string;
    if (READING_FLAGS.some((f) => arg === f || arg.startsWith(`${f}=`))) return undefined;
    if (arg === 'html' || arg.endsWith('=html')) return undefined;
    if (arg === '--output' || arg === '--placements') k++; // a file to write, not the trace
    if (arg.startsWith('-')) continue;
    // The trace is the one argument that names a large file of a streamed format (option values do not).
    const ext = extname(arg).toLowerCase();
    if (ext !== '.csv' && ext !== '.jsonl') continue;
    try {
      const st = statSync(arg);
      if (!st.isFile() || st.size < minBytes) continue;
    } catch {
      continue;
    }
    if (trace !== undefined) return undefined;
    trace = arg;
  }
  return trace;
}

/**
 * Starts reading the trace of `argv` on another thread when it qualifies (a file of at least
 * `minBytes`, see the module's comment); does nothing otherwise.
 */
export async function readEarly(argv: readonly string[], minBytes = PIPELINE_MIN_BYTES): Promise<void> {
  if (argv[2] !== 'replay' || !argv.some((a) => /\.(csv|jsonl)$/i.test(a))) return;
  const [fs, path_, threads] = await Promise.all([import('node:fs'), import('node:path'), import('node:worker_threads')]);
  const path = earlyTrace(argv, { statSync: fs.statSync, extname: path_.extname }, minBytes);
  if (path === undefined) return;
  const { packageFile } = await import('../../util/package-root.js');
  const url = READER_MODULES.map((m) => packageFile(m)).find((u) => fs.existsSync(u));
  if (!url) return;
  let worker: Worker;
  const init: ReaderInit = { path, every: PIPELINE_EVERY, options: {} };
  try {
    worker = new threads.Worker(url, { workerData: init });
  } catch {
    return;
  }
  worker.unref();
  const early: EarlyReading = {
    worker,
    file: path_.resolve(path),
    init,
    messages: [],
    error: undefined,
    exitCode: undefined,
    detach: () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    },
  };
  const onMessage = (m: ReaderMessage): void => void early.messages.push(m);
  const onError = (e: Error): void => void (early.error ??= e);
  const onExit = (code: number): void => void (early.exitCode = code);
  worker.on('message', onMessage);
  worker.on('error', onError);
  worker.on('exit', onExit);
  setEarlyReading(early);
}
