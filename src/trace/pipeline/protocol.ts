import type { MessagePort } from 'node:worker_threads';
import type { InputProblem } from '../../errors.js';
import type { SharedIds } from '../id-table.js';
import type { ReadOptions } from '../readers.js';
import type { Trace } from '../model.js';

/**
 * Below this size a file is read before it is replayed: a reading thread takes some tens of
 * milliseconds to start, about what reading a few MiB takes.
 */
export const PIPELINE_MIN_BYTES = 8 * 2 ** 20;

/**
 * The reading thread's module, in the package: the bundled one (compiled from V8's code cache, see
 * reader-start.ts), else the one built in `dist/`.
 */
export const READER_MODULES: readonly string[] = ['dist/reader-bundle/start.cjs', 'dist/trace/pipeline/reader-thread.js'];

/** The reading thread publishes the trace so far every this many events (see {@link ReaderInit}). */
export const PIPELINE_EVERY = 1 << 16;

/** What the reading thread is given. */
export interface ReaderInit {
  path: string;
  options: Pick<ReadOptions, 'lenient' | 'format' | 'device' | 'allocatorName'>;
  /**
   * Publish the trace so far after every this many events; the first publications come sooner
   * (after `every / 16` events, then doubling), so that the replay starts early.
   */
  every: number;
  /**
   * Where the thread posts its messages (else to its parent): a port that the replaying thread reads
   * without returning to its event loop (`receiveMessageOnPort`), so that the replay runs on in one
   * call (see feed.ts, `TraceFeed.poll`).
   */
  port?: MessagePort;
  /** The count of messages posted, which the thread raises and notifies after each (`Atomics.wait`). */
  posted?: Int32Array;
}

/** The trace so far as the reading thread posts it: columns share memory, ids as their columns, new tags only. */
export type PartialTrace = Omit<Trace, 'ids' | 'tags'> & { ids: SharedIds; tagsFrom: number; newTags: string[] };

/** Messages from the reading thread, in order: `events` any number of times, then `done` or `failed`. */
export type ReaderMessage =
  | { kind: 'events'; trace: PartialTrace }
  | { kind: 'done'; trace: Trace }
  | { kind: 'failed'; problems: InputProblem[]; total: number }
  | { kind: 'crashed'; name: string; message: string; stack?: string };
