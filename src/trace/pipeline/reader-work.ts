/**
 * The work of the reading thread of a pipelined replay: reads a trace file as `readTrace` does (same
 * readers, same builder, same checks) and posts the trace so far every few thousand events; its
 * columns grow in place in shared memory, so the replaying thread reads them where they are written.
 * The thread's entry is reader-start.ts (the bundled thread, compiled from V8's code cache) or
 * reader-thread.ts (the modules as built).
 */
import { TraceError } from '../../errors.js';
import { TraceBuilder } from '../builder.js';
import { openTrace } from '../open.js';
import { loadReader } from '../readers.js';
import type { Trace } from '../model.js';
import type { PartialTrace, ReaderInit, ReaderMessage } from './protocol.js';

/** Below this many bytes an array goes with the last message as a copy (Node's pooled buffers are smaller). */
const MOVE_MIN_BYTES = 1 << 16;

/**
 * The memory of a finished trace that is not shared with the replaying thread (the id table's index:
 * its direct table or hash slots), to move to that thread with the last message instead of copying
 * it there: at 10^7 events the copy takes some tens of milliseconds, at the end of the replay.
 */
export function movedBuffers(trace: Trace): ArrayBuffer[] {
  const moved = new Set<ArrayBuffer>();
  for (const v of [...Object.values(trace), ...Object.values(trace.ids)]) {
    if (ArrayBuffer.isView(v) && v.buffer instanceof ArrayBuffer && v.buffer.byteLength >= MOVE_MIN_BYTES) moved.add(v.buffer);
  }
  return [...moved];
}

/** Something messages are posted to: the parent port or a port of a channel. */
interface PostTarget {
  postMessage(m: unknown, move?: readonly ArrayBuffer[]): void;
}

/**
 * Posting to `init.port` when given (else to `parent`), raising and notifying `init.posted` after
 * each message, for a replaying thread that waits for them without its event loop.
 */
export function poster(init: ReaderInit, parent: PostTarget): (m: ReaderMessage, move?: ArrayBuffer[]) => void {
  const target: PostTarget = init.port ?? parent;
  const posted = init.posted;
  return (m, move) => {
    target.postMessage(m, move);
    if (posted) {
      Atomics.add(posted, 0, 1);
      Atomics.notify(posted, 0);
    }
  };
}

/**
 * Reads `init.path` and posts its events, then `done` (or `failed`, `crashed`); `beforeLast` runs
 * just before that last message, after which the replaying thread may stop this one at any moment.
 * `post` is given the buffers to move with a message (see {@link movedBuffers}), which this thread
 * no longer uses.
 */
export async function readAndPost(init: ReaderInit, post: (m: ReaderMessage, move?: ArrayBuffer[]) => void, beforeLast: () => void = () => {}): Promise<void> {
  // The trace is posted at `every / 16`, `every / 8`, … events, then every `every` events: the
  // replaying thread waits for the first events only as long as a few thousand take to read. The
  // builder asks every 256 events (or `every`, when smaller), from early on: a reading loop that asks
  // per event meets that call before it is optimized, which then needs no second optimization once
  // the call comes.
  const step = Math.max(1, init.every >> 4);
  const asked = Math.min(256, step);
  let nextPost = step;
  let tagsSent = 0;
  const publish = (b: TraceBuilder): void => {
    if (b.length < nextPost) return;
    nextPost = b.length < init.every ? b.length * 2 : b.length + init.every;
    const t = b.partial();
    const tags = t.tags;
    const partial: PartialTrace = { ...t, ids: t.ids.shareable(), tagsFrom: tagsSent, newTags: tags.slice(tagsSent) };
    delete (partial as Partial<{ tags: unknown }>).tags;
    tagsSent = tags.length;
    post({ kind: 'events', trace: partial });
  };
  let last: ReaderMessage;
  try {
    const opened = openTrace(init.path, init.options);
    await loadReader(opened.reader);
    const builder = new TraceBuilder(init.path, { ...init.options, source: opened.src, onEvents: { every: asked, call: publish } });
    const recorded = opened.reader.read(opened.src, builder, init.options);
    opened.src.close();
    last = { kind: 'done', trace: builder.finish(opened.reader.format, recorded ?? undefined) };
  } catch (e) {
    if (e instanceof TraceError) last = { kind: 'failed', problems: e.problems, total: e.totalProblems };
    else {
      const err = e instanceof Error ? e : new Error(String(e));
      last = { kind: 'crashed', name: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}) };
    }
  }
  beforeLast();
  post(last, last.kind === 'done' ? movedBuffers(last.trace) : undefined);
}
