import type { TraceBuilder } from '../builder.js';
import type { CheckedTrace } from '../checker.js';
import { lineOf, OP_ALLOC, type Trace } from '../model.js';
import type { ReadOptions, TraceReader } from '../readers.js';
import type { ByteSource } from '../source.js';
import { checkBinaryTrace } from './check.js';
import { loadBinaryTrace } from './load.js';
import { BINARY_READER_INFO, sniffBinary } from './sniff.js';

/** Hands a loaded trace's events to a builder one by one (for callers that build their own trace). */
function feed(t: Trace, b: TraceBuilder): void {
  b.meta = t.meta;
  const enc = new TextEncoder();
  for (let i = 0; i < t.length; i++) {
    const id = enc.encode(t.ids.get(t.alloc[i] as number));
    const step = t.step[i] as number;
    const time = t.time ? (t.time[i] as number) : NaN;
    const line = lineOf(t, i);
    if (t.op[i] === OP_ALLOC) {
      const tag = t.tag ? b.internTagString(t.tags[t.tag[i] as number]) : 0;
      b.addAllocBytes(id, 0, id.length, t.size[i] as number, step, t.stream ? (t.stream[i] as number) : 0, tag, time, line, t.align ? (t.align[i] as number) : undefined);
    } else {
      b.addFreeBytes(id, 0, id.length, step, t.stream ? (t.stream[i] as number) : -1, time, line);
    }
    if (i + 1 === t.initialEvents) b.markInitialEvents();
  }
}

/** The binary trace's reader: loads the columns as they are (see load.ts). */
export const binaryTraceReader: TraceReader = {
  ...BINARY_READER_INFO,
  sniff: sniffBinary,
  read(src: ByteSource, builder: TraceBuilder) {
    const t = loadBinaryTrace(src);
    feed(t, builder);
    return t.recorded;
  },
  loadTrace(src: ByteSource, _options: ReadOptions): Trace {
    return loadBinaryTrace(src);
  },
  checkTrace(src: ByteSource, _options: ReadOptions): CheckedTrace {
    return checkBinaryTrace(src);
  },
};
