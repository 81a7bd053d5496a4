import { IdTable, type SharedIds } from '../trace/id-table.js';
import type { RecordedHistory, Trace } from '../trace/model.js';

type Numeric = Uint8Array | Uint32Array | Int32Array | Float64Array;

/**
 * A trace in a form that crosses to worker threads cheaply: every typed array lives in a
 * SharedArrayBuffer (posting it shares the memory, it copies nothing), the ids are their columns
 * alone (a worker reads ids, it never looks one up: the lookup tables, 2.3 MB at 10^6 events, took
 * 10-30 ms to post and as long again to receive), and the rest (tag table, meta, the recorded
 * history's objects) is plain data that is cloned once per worker.
 */
export type SharedTrace = Omit<Trace, 'ids'> & { readonly ids: SharedIds; readonly isShared: true };

/** A copy of a typed array whose memory is a SharedArrayBuffer (or the array itself if it is one). */
function shared<T extends Numeric>(a: T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const Ctor = a.constructor as { new (buffer: SharedArrayBuffer, byteOffset: number, length: number): T };
  const out = new Ctor(new SharedArrayBuffer(a.byteLength), 0, a.length);
  out.set(a as never);
  return out;
}

function sharedRecorded(r: RecordedHistory): RecordedHistory {
  return { ...r, address: shared(r.address), allocatedBytes: shared(r.allocatedBytes) };
}

/** The id columns of a table in shared memory. */
function sharedIds(ids: IdTable): SharedIds {
  const s = ids.shareable();
  return { ...s, values: s.values && shared(s.values), prefixOf: s.prefixOf && shared(s.prefixOf), bytes: shared(s.bytes), offs: shared(s.offs) };
}

/**
 * The trace as workers receive it: its columns in shared memory (moved there once; those that
 * are there already are not copied), so that any number of workers replay the same bytes.
 */
export function shareTrace(trace: Trace): SharedTrace {
  const out: Omit<Trace, 'ids'> & { ids: SharedIds } = {
    ...trace,
    ids: sharedIds(trace.ids),
    op: shared(trace.op),
    alloc: shared(trace.alloc),
    size: shared(trace.size),
    step: shared(trace.step),
    stream: trace.stream ? shared(trace.stream) : null,
    tag: trace.tag ? shared(trace.tag) : null,
    time: trace.time ? shared(trace.time) : null,
    align: trace.align ? shared(trace.align) : null,
    line: trace.line ? shared(trace.line) : null,
    allocEvent: shared(trace.allocEvent),
    freeEvent: shared(trace.freeEvent),
  };
  if (trace.recorded) out.recorded = sharedRecorded(trace.recorded);
  if (trace.stacks) out.stacks = { ...trace.stacks, ofAllocation: shared(trace.stacks.ofAllocation) };
  return Object.assign(out, { isShared: true as const });
}

/**
 * The trace as a worker receives it: structured clone keeps typed arrays over SharedArrayBuffers
 * shared and clones the rest as plain data; the ids become a table that reads them.
 */
export function traceFromShared(data: SharedTrace): Trace {
  const { isShared: _marker, ...trace } = data;
  return { ...trace, ids: IdTable.reading(trace.ids) };
}
