import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Threads from 'node:worker_threads';
import type { MessagePort, Worker } from 'node:worker_threads';
import { MemsimError, TraceError, UsageError } from '../../errors.js';
import { packageFile } from '../../util/package-root.js';
import { IdTable } from '../id-table.js';
import type { Trace } from '../model.js';
import { detectReader } from '../open.js';
import type { ReadOptions } from '../readers.js';
import { peekBytes } from '../source.js';
import { type EarlyReading, takeEarlyReading } from './early-slot.js';
import type { HeadReading } from './head.js';
import { PIPELINE_EVERY, PIPELINE_MIN_BYTES, READER_MODULES, type PartialTrace, type ReaderInit, type ReaderMessage } from './protocol.js';

export { PIPELINE_MIN_BYTES };

// The threads module loads when a feed starts (through require in the constructor, which runs
// before the feed listens to an early reading's thread), not with this module: it costs some
// milliseconds of the start-up of every small replay, which never reads this way.
const nodeRequire = createRequire(import.meta.url);

/** Formats whose events stream from the start of the file, meta first (a JSON trace may end with its meta). */
const STREAMED_FORMATS: readonly string[] = ['csv', 'jsonl'];

/**
 * The reading thread's module: the built one (bundled, else from `dist/`), whether this module runs
 * from `dist/`, the CLI bundle or the sources (tests).
 */
function readerUrl(): URL | null {
  for (const path of READER_MODULES) {
    const url = packageFile(path);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return null;
}

/**
 * A trace being read on another thread while this one uses it: `trace` is a {@link Trace} whose
 * columns hold the events read so far (`trace.length` of them; the columns grow in place in shared
 * memory) and whose other fields follow; once {@link TraceFeed.more} returns false it is the complete
 * trace, the very one `readTrace` returns. Reading problems surface from `more` as `readTrace` would
 * throw them. See `sim/run.ts`'s `replayFeed`.
 */
export class TraceFeed {
  readonly trace: Trace;
  private done = false;
  /** True once the reading thread's last message has arrived (it may not be applied yet). */
  private ended = false;
  private readonly queue: ReaderMessage[] = [];
  private wake: (() => void) | undefined;
  private failure: Error | undefined;
  /** Messages taken from the port so far (by either way: see {@link TraceFeed.poll}). */
  private seen = 0;
  /** The trace's first events read on this thread while the reading thread starts (see head.ts). */
  private head: HeadReading | undefined;
  private readonly receiveMessageOnPort = (nodeRequire('node:worker_threads') as typeof Threads).receiveMessageOnPort;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly posted: Int32Array,
    path: string,
  ) {
    this.trace = emptyTrace(path);
    port.on('message', (m: ReaderMessage) => this.arrive(m));
    worker.on('error', (e: Error) => this.fail(e));
    worker.on('exit', (code) => this.exited(code));
  }

  private exited(code: number): void {
    // Its last messages may not have been delivered yet (they come by the port, the exit by the worker).
    for (let m = this.receive(); m; m = this.receive()) this.queue.push(m);
    this.wake?.();
    if (!this.ended && !this.failure) this.fail(new Error(`the reading thread stopped (exit code ${code})`));
  }

  /**
   * Whether reading `path` on another thread pays: a file (not standard input) of at least `minBytes`,
   * in a format read as a stream of events (CSV, JSON Lines) whose header comes first.
   */
  static suits(path: string, options: ReadOptions = {}, minBytes = PIPELINE_MIN_BYTES): boolean {
    if (path === '-') return false;
    let st;
    try {
      st = statSync(path);
    } catch {
      return false;
    }
    if (!st.isFile() || st.size < minBytes) return false;
    try {
      return STREAMED_FORMATS.includes(detectReader(path, peekBytes(path, 64 * 1024), options.format).format);
    } catch {
      return false;
    }
  }

  /**
   * Starts reading `path` on another thread and waits for its first events (or its end): the trace's
   * format and meta are known then. Returns null when no reading thread can be started here.
   */
  static async open(path: string, options: ReadOptions = {}, every = PIPELINE_EVERY): Promise<TraceFeed | null> {
    const init: ReaderInit = {
      path,
      every,
      options: {
        ...(options.lenient !== undefined ? { lenient: options.lenient } : {}),
        ...(options.format !== undefined ? { format: options.format } : {}),
        ...(options.device !== undefined ? { device: options.device } : {}),
        ...(options.allocatorName !== undefined ? { allocatorName: options.allocatorName } : {}),
      },
    };
    // A thread started before the CLI loaded (see early.ts) reads it already when it reads it so.
    const early = takeEarlyReading(resolve(path), init);
    let feed: TraceFeed;
    if (early) {
      feed = new TraceFeed(early.worker, early.port, early.posted, path);
      feed.takeOver(early);
    } else {
      const url = readerUrl();
      if (!url) return null;
      // The threads module loads only when a file is read this way (start-up of small runs).
      const { MessageChannel, Worker } = await import('node:worker_threads');
      const { port1, port2 } = new MessageChannel();
      const posted = new Int32Array(new SharedArrayBuffer(4));
      const worker = new Worker(url, { workerData: { ...init, port: port2, posted }, transferList: [port2] });
      feed = new TraceFeed(worker, port1, posted, path);
    }
    // Until the thread has read some events, this one reads the first ones itself (see head.ts).
    if (feed.queue.length === 0 && init.options.lenient !== true && Object.keys(init.options).every((k) => k === 'lenient')) {
      const { HeadReading } = await import('./head.js');
      const head = feed.queue.length === 0 ? HeadReading.open(path) : undefined;
      if (head?.advance()) {
        feed.head = head;
        feed.applyHead(head);
        return feed;
      }
    }
    await feed.more();
    return feed;
  }

  /** Takes over what an early reading's thread said before this feed listened to it (see early.ts). */
  private takeOver(early: EarlyReading): void {
    early.worker.ref();
    early.port.ref();
    for (const m of early.messages) this.arrive(m);
    if (early.error) this.fail(early.error);
    if (early.exitCode !== undefined) this.exited(early.exitCode);
  }

  /** True once the trace is complete. */
  get complete(): boolean {
    return this.done;
  }

  /**
   * Waits for more events and applies them to `trace`. Returns false once the trace is complete
   * (then and afterwards); throws the reading's problems.
   */
  async more(): Promise<boolean> {
    if (this.done) return false;
    this.dropHead();
    for (;;) {
      if (this.failure) throw this.failure;
      const m = this.queue.shift();
      // Events that the trace has already (read by this thread: see head.ts) are passed over.
      if (m?.kind === 'events' && m.trace.length <= this.trace.length) continue;
      if (m) return this.apply(m);
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Waits until the trace is complete. */
  async finish(): Promise<Trace> {
    while (await this.more()) {
      // every message is applied as it comes
    }
    return this.trace;
  }

  /**
   * {@link TraceFeed.more} without returning to the event loop, for a replay that runs on in one call
   * (see `sim/replay.ts`), which has replayed `replayed` events: applies the next message, waiting up
   * to `ms` milliseconds for one when none has come, and returns the trace's length then, or -1 when
   * the trace is complete with `replayed` events. A length not past `replayed` says: ask
   * {@link TraceFeed.more} (the thread failed or is slow). Throws the reading's problems, as `more` does.
   */
  poll(replayed: number, ms: number): number {
    if (this.done) return this.trace.length > replayed ? this.trace.length : -1;
    if (this.failure) return this.trace.length;
    if (this.head && this.fromHead(replayed) > replayed) return this.trace.length;
    const until = performance.now() + ms;
    for (;;) {
      let m = this.queue.shift() ?? this.receive();
      // The count is raised after each message is posted: a wait that ends otherwise than by its time
      // finds one.
      if (!m && Atomics.wait(this.posted, 0, this.seen, Math.max(0, until - performance.now())) !== 'timed-out') m = this.receive();
      if (!m) break;
      // Events that the trace has already (its head, read on this thread) are passed over, as `more`
      // does: applied, they would take the trace back to fewer events than were replayed.
      if (m.kind === 'events' && m.trace.length <= this.trace.length) continue;
      this.apply(m);
      break;
    }
    return this.done && this.trace.length <= replayed ? -1 : this.trace.length;
  }

  /**
   * {@link TraceFeed.poll} while this thread can read the trace's head (see head.ts): applies the
   * reading thread's events that are more than the trace has (passing over the others), else reads
   * more of the head rather than wait for the thread. Once the thread's events are more than the
   * head's, the head is done with: reading on here would read again what the thread has read, on the
   * replaying thread, and the thread, booted, reads faster than the replay runs. Returns the trace's
   * length then.
   */
  private fromHead(replayed: number): number {
    const head = this.head as HeadReading;
    for (;;) {
      for (let m = this.queue.shift() ?? this.receive(); m; m = this.queue.shift() ?? this.receive()) {
        if (m.kind !== 'events') {
          this.queue.unshift(m);
          return this.dropHead();
        }
        if (m.trace.length > this.trace.length) this.apply(m);
      }
      if (this.trace.length > head.length) return this.dropHead();
      if (this.trace.length > replayed) return this.trace.length;
      if (!head.advance()) return this.dropHead();
      if (head.length > replayed) {
        this.applyHead(head);
        return this.trace.length;
      }
    }
  }

  private dropHead(): number {
    this.head?.close();
    this.head = undefined;
    return this.trace.length;
  }

  /** Makes the trace the head's events so far: its columns and ids, and its new tags. */
  private applyHead(head: HeadReading): void {
    const { tags, ids, format: _format, ...rest } = head.partial();
    const own = this.trace.tags;
    for (let k = own.length; k < tags.length; k++) own.push(tags[k] as string);
    Object.assign(this.trace as unknown as Record<string, unknown>, rest, { ids });
  }

  /** The next message on the port, taken now, if there is one. */
  private receive(): ReaderMessage | undefined {
    const r = this.receiveMessageOnPort(this.port);
    if (!r) return undefined;
    const m = r.message as ReaderMessage;
    this.seen++;
    if (m.kind !== 'events') this.ended = true;
    return m;
  }

  /** Stops the reading thread (after a failure of the caller, say). */
  close(): void {
    this.dropHead();
    this.port.close();
    void this.worker.terminate();
  }

  private arrive(m: ReaderMessage): void {
    this.seen++;
    if (m.kind !== 'events') this.ended = true;
    this.queue.push(m);
    this.wake?.();
  }

  private fail(e: Error): void {
    this.failure ??= e;
    this.wake?.();
  }

  private apply(m: ReaderMessage): boolean {
    const t = this.trace as unknown as Record<string, unknown>;
    switch (m.kind) {
      case 'events': {
        const p: PartialTrace = m.trace;
        const tags = this.trace.tags;
        for (let k = tags.length - p.tagsFrom; k < p.newTags.length; k++) tags.push(p.newTags[k] as string);
        const { ids, tagsFrom: _from, newTags: _tags, format: _format, ...rest } = p;
        Object.assign(t, rest, { ids: IdTable.reading(ids) });
        return true;
      }
      case 'done': {
        Object.assign(t, m.trace, { ids: IdTable.fromClone(m.trace.ids) });
        this.done = true;
        this.close();
        return false;
      }
      case 'failed':
        this.done = true;
        throw new TraceError(m.problems, m.total);
      case 'crashed': {
        this.done = true;
        if (m.name === 'UsageError') throw new UsageError(m.message);
        if (m.name === 'MemsimError') throw new MemsimError(m.message);
        const e = new Error(m.message);
        if (m.stack) e.stack = m.stack;
        throw e;
      }
    }
  }
}

/** A trace of no events yet, to be filled by a feed (or to stand in for one not read yet). */
export function emptyTrace(path: string): Trace {
  return {
    path,
    format: '',
    meta: {},
    length: 0,
    op: new Uint8Array(0),
    alloc: new Uint32Array(0),
    size: new Float64Array(0),
    step: new Float64Array(0),
    stream: null,
    tag: null,
    time: null,
    align: null,
    line: null,
    lineBase: 0,
    tags: [''],
    allocCount: 0,
    ids: new IdTable(16),
    allocEvent: new Uint32Array(0),
    freeEvent: new Int32Array(0),
    summary: { events: 0, allocs: 0, frees: 0, steps: 0, peakLiveBytes: 0, peakLiveEvent: -1, finalLiveBytes: 0, finalLiveAllocs: 0 },
    skipped: { unknownFree: 0, doubleAlloc: 0 },
    initialEvents: 0,
  };
}
