import { describe, expect, it } from 'vitest';
import { TraceBuilder } from '../../src/trace/builder.js';
import { TraceError } from '../../src/errors.js';

const id = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('TraceBuilder.setTimeFrom', () => {
  it('gives the event added last its time from a column, as a time passed with the event would be', () => {
    const times = new Float64Array([NaN, 5e15, 5e15 + 7]);
    const a = new TraceBuilder('a');
    const b = new TraceBuilder('b');
    // Event 0 without a time, events 1 and 2 with one: the column is made at event 1, NaN before it.
    a.addAllocNew(id('b1_0'), 0, 4, 512, 0, 0, 0, NaN, 1);
    a.setTimeFrom(times, 0);
    a.addAllocNew(id('b2_0'), 0, 4, 512, NaN, 0, 0, NaN, 2);
    a.setTimeFrom(times, 1);
    a.addFreeOf(0, NaN, 0, NaN, 3);
    a.setTimeFrom(times, 2);
    b.addAllocNew(id('b1_0'), 0, 4, 512, 0, 0, 0, NaN, 1);
    b.addAllocNew(id('b2_0'), 0, 4, 512, NaN, 0, 0, 5e15, 2);
    b.addFreeOf(0, NaN, 0, 5e15 + 7, 3);
    const ta = a.finish('x');
    const tb = b.finish('x');
    expect([...ta.time!]).toEqual([NaN, 5e15, 5e15 + 7]);
    expect([...ta.time!]).toEqual([...tb.time!]);
  });

  it('refuses a time earlier than the one before, naming both lines', () => {
    const b = new TraceBuilder('f');
    b.addAllocNew(id('b1_0'), 0, 4, 512, 0, 0, 0, NaN, 1);
    b.setTimeFrom(new Float64Array([9]), 0);
    b.addAllocNew(id('b2_0'), 0, 4, 512, NaN, 0, 0, NaN, 2);
    b.setTimeFrom(new Float64Array([4]), 0);
    expect(() => b.finish('x')).toThrow(TraceError);
    expect(() => b.finish('x')).toThrow("time 4 is earlier than the previous event's 9 (line 1); times must not decrease");
  });
});
