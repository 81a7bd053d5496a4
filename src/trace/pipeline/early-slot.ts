/**
 * Where a reading thread started early (see early.ts) waits to be taken over: a global, since the CLI
 * bundle holds its own copy of these modules. It is on the start-up path of every command: it loads
 * no module.
 */
import type { MessagePort, Worker } from 'node:worker_threads';
import type { ReaderInit, ReaderMessage } from './protocol.js';

/** A reading thread started early, with what it said before it was taken over. */
export interface EarlyReading {
  worker: Worker;
  /** The port the thread posts its messages to (see protocol.ts, `ReaderInit.port`), and their count. */
  port: MessagePort;
  posted: Int32Array;
  /** The file, resolved. */
  file: string;
  init: ReaderInit;
  messages: ReaderMessage[];
  error: Error | undefined;
  exitCode: number | undefined;
  /** Detaches the listeners that keep the messages here. */
  detach(): void;
}

/** A binary trace being read whole early (see early.ts): its bytes, or null when that failed. */
export interface EarlyBytes {
  /** The file, resolved. */
  file: string;
  bytes: Promise<Uint8Array | null>;
}

const SLOT = Symbol.for('memsim.earlyReading');
const BYTES = Symbol.for('memsim.earlyBytes');
type Slot = { [SLOT]?: EarlyReading; [BYTES]?: EarlyBytes };

/** How a thread reads, in words that are equal when it reads alike (an unset `lenient` is false). */
function reading(init: ReaderInit): string {
  const o = init.options;
  return JSON.stringify([o.lenient === true, o.format ?? null, o.device ?? null, o.allocatorName ?? null]);
}

/** Leaves `early` to be taken over. */
export function setEarlyReading(early: EarlyReading): void {
  (globalThis as Slot)[SLOT] = early;
}

/**
 * The early reading of `file` (a resolved path) with `init`, taken over (its listeners detached; its messages so far,
 * and its error and exit if it has come to them, left for the caller, who also keeps the process up
 * for it now), or undefined when there is none or it reads otherwise (then it is stopped).
 */
export function takeEarlyReading(file: string, init: ReaderInit): EarlyReading | undefined {
  const early = (globalThis as Slot)[SLOT];
  if (!early) return undefined;
  delete (globalThis as Slot)[SLOT];
  early.detach();
  const same = early.file === file && early.init.every === init.every && reading(early.init) === reading(init);
  if (same) return early;
  stop(early);
  return undefined;
}

/** Stops an early reading that no one will take over. */
export function dropEarlyReading(): void {
  const early = (globalThis as Slot)[SLOT];
  if (!early) return;
  delete (globalThis as Slot)[SLOT];
  early.detach();
  stop(early);
}

function stop(early: EarlyReading): void {
  early.port.close();
  void early.worker.terminate();
}

/** Leaves the early bytes of a binary trace to be taken. */
export function setEarlyBytes(early: EarlyBytes): void {
  (globalThis as Slot)[BYTES] = early;
}

/** The bytes of `file` (a resolved path) read early, to be awaited, or undefined when there are none. */
export function takeEarlyBytes(file: string): Promise<Uint8Array | null> | undefined {
  const early = (globalThis as Slot)[BYTES];
  if (!early || early.file !== file) return undefined;
  delete (globalThis as Slot)[BYTES];
  return early.bytes;
}
