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
import type { PartialTrace, ReaderInit, ReaderMessage } from './protocol.js';

/**
 * Reads `init.path` and posts its events, then `done` (or `failed`, `crashed`); `beforeLast` runs
 * just before that last message, after which the replaying thread may stop this one at any moment.
 */
export async function readAndPost(init: ReaderInit, post: (m: ReaderMessage) => void, beforeLast: () => void = () => {}): Promise<void> {
  // The trace is posted at `every / 16`, `every / 8`, … events, then every `every` events: the
  // replaying thread waits for the first events only as long as a few thousand take to read. The
  // builder asks every 256 events (or `every`, when smaller), from early on: its code meets that call
  // before it is optimized, which then needs no second optimization once the call comes.
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
  post(last);
}
