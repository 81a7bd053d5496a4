import { TraceBuilder, type BuildOptions } from './builder.js';
import { addRawEvent, RawEvent, rawFromObject } from './event-fields.js';
import type { Trace, TraceMeta } from './model.js';

/** An event as plain data (what the JSON format holds). */
export interface EventObject {
  op: 'alloc' | 'free';
  id: string | number;
  size?: number;
  step?: number;
  stream?: number;
  tag?: string;
  time?: number;
  /** Alignment asked for, in bytes (default 64). */
  align?: number;
}

/**
 * Builds a trace from plain event objects, with every check of the file readers (the line of event
 * k is k+1). For library callers and tests.
 */
export function traceFromEvents(events: readonly EventObject[], meta: TraceMeta = {}, options: BuildOptions & { path?: string } = {}): Trace {
  const b = new TraceBuilder(options.path ?? '<events>', { ...options, expectedEvents: events.length });
  b.meta = meta;
  const ev = new RawEvent();
  events.forEach((e, k) => {
    rawFromObject(e as unknown as Record<string, unknown>, ev);
    addRawEvent(b, ev, k + 1);
  });
  return b.finish('events');
}
