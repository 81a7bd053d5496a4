/**
 * A large trace to replay, read from the first moment: `bin/memsim.js` calls {@link readEarly}
 * before the CLI's modules load, so that the reading starts while they load instead of after.
 *
 * A CSV or JSON Lines file of at least {@link PIPELINE_MIN_BYTES} whose flags leave the reading as it
 * is by default starts its reading thread (which boots in some tens of milliseconds);
 * {@link TraceFeed.open} takes the thread over when it is asked for the same file with the same
 * reading, and stops it otherwise (as does a command that reads no trace on another thread). Until
 * then the thread's messages wait in early-slot.ts, and it keeps no process alive. A binary trace
 * (`.mst`) of that size is read whole by Node's I/O threads, for `readTraceFile` to take. A PyTorch
 * snapshot pickle is not read early: a large one is read through a window as it is parsed
 * (trace/pytorch/file-window.ts), which costs less than the fresh memory of a whole copy.
 *
 * This module loads before anything else, for every command: it imports nothing of memsim's but
 * types and constants, and Node's modules only once the command line names a file of those kinds.
 */
import type { Worker } from 'node:worker_threads';
import { type EarlyReading, setEarlyBytes, setEarlyReading } from './early-slot.js';
import { PIPELINE_EVERY, PIPELINE_MIN_BYTES, READER_MODULES, type ReaderInit, type ReaderMessage } from './protocol.js';

/** Flags of `replay` that change how a trace is read, or what reads it (the HTML page reads it whole). */
const READING_FLAGS = ['--input-format', '--lenient', '--device', '--allocator-name', '-h', '--help'];

/** Extensions of the traces read early: CSV and JSON Lines by a reading thread, the others whole. */
const EARLY_EXTENSIONS = ['.csv', '.jsonl', '.mst'];
/** Binary traces: read whole, without a thread. */
const WHOLE_EXTENSIONS = ['.mst'];

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
    // The trace is the one argument that names a large file of a streamed or binary format (option values do not).
    if (!EARLY_EXTENSIONS.includes(extname(arg).toLowerCase())) continue;
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
  if ((argv[2] !== 'replay' && argv[2] !== 'compare') || !argv.some((a) => EARLY_EXTENSIONS.some((e) => a.toLowerCase().endsWith(e)))) return;
  const [fs, path_] = await Promise.all([import('node:fs'), import('node:path')]);
  const path = earlyTrace(argv, { statSync: fs.statSync, extname: path_.extname }, minBytes);
  if (path === undefined) return;
  const ext = path_.extname(path).toLowerCase();
  if (WHOLE_EXTENSIONS.includes(ext)) return readBytesEarly(fs, path_.resolve(path), true);
  const threads = await import('node:worker_threads');
  const { packageFile } = await import('../../util/package-root.js');
  const url = READER_MODULES.map((m) => packageFile(m)).find((u) => fs.existsSync(u));
  if (!url) return;
  let worker: Worker;
  const channel = new threads.MessageChannel();
  const posted = new Int32Array(new SharedArrayBuffer(4));
  const init: ReaderInit = { path, every: PIPELINE_EVERY, options: {}, port: channel.port2, posted };
  try {
    worker = new threads.Worker(url, { workerData: init, transferList: [channel.port2] });
  } catch {
    channel.port1.close();
    return;
  }
  worker.unref();
  const port = channel.port1;
  const early: EarlyReading = {
    worker,
    port,
    posted,
    file: path_.resolve(path),
    init,
    messages: [],
    error: undefined,
    exitCode: undefined,
    detach: () => {
      port.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    },
  };
  const onMessage = (m: ReaderMessage): void => void early.messages.push(m);
  const onError = (e: Error): void => void (early.error ??= e);
  const onExit = (code: number): void => void (early.exitCode = code);
  port.on('message', onMessage);
  port.unref();
  worker.on('error', onError);
  worker.on('exit', onExit);
  setEarlyReading(early);
}

/** The largest binary trace read whole early: what one Buffer may view, less a margin. */
const MAX_WHOLE_BYTES = 2 ** 32 - 2 ** 20;

/**
 * A binary trace (`.mst`) is read whole into shared memory by Node's I/O threads meanwhile (its
 * columns are then views of it, see binary/sections.ts; `shared` false: an ordinary buffer). Any problem, or a file that grew while it was read, leaves the bytes null: the
 * trace is then read as usual, and says what is wrong.
 */
function readBytesEarly(fs: typeof import('node:fs'), file: string, shared: boolean): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return;
  }
  const bytes = new Promise<Uint8Array | null>((done) => {
    const end = (whole: Uint8Array | null): void => fs.close(fd, () => done(whole));
    let whole: Uint8Array;
    try {
      // Past what one Buffer may view (4 GiB), the file is read section by section, as usual.
      const size = fs.fstatSync(fd).size;
      if (size > MAX_WHOLE_BYTES) return end(null);
      whole = shared ? new Uint8Array(new SharedArrayBuffer(size)) : new Uint8Array(size);
    } catch {
      return end(null);
    }
    let at = 0;
    const next = (): void => {
      // Up to the size it had, then one byte more, which must not be there.
      const last = at === whole.length;
      const into = last ? new Uint8Array(1) : whole;
      fs.read(fd, into, last ? 0 : at, last ? 1 : Math.min(whole.length - at, 1 << 30), at, (e, n) => {
        if (last) return end(e || n !== 0 ? null : whole);
        if (e || n === 0) return end(null);
        at += n;
        next();
      });
    };
    next();
  });
  setEarlyBytes({ file, bytes });
}
