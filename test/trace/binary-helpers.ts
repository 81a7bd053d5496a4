import { expect } from 'vitest';
import { lineColumn, type Trace } from '../../src/trace/model.js';

/** The section table of a binary trace's bytes: name -> [offset, byteLength]. */
export function sectionTable(bytes: Buffer): Map<string, [number, number]> {
  const count = bytes.readUInt32LE(12);
  const out = new Map<string, [number, number]>();
  for (let k = 0; k < count; k++) {
    const at = 16 + k * 32;
    const raw = bytes.subarray(at, at + 8);
    const nul = raw.indexOf(0);
    out.set(raw.toString('latin1', 0, nul < 0 ? 8 : nul), [Number(bytes.readBigUInt64LE(at + 8)), Number(bytes.readBigUInt64LE(at + 16))]);
  }
  return out;
}

type Column = ArrayLike<number> | null | undefined;

function plain(c: Column): { type: string; values: number[] } | null {
  return c ? { type: c.constructor.name, values: Array.from(c) } : null;
}

/** Asserts that two traces hold the same events, tables and figures (not their path or format). */
export function expectSameTrace(got: Trace, want: Trace): void {
  expect(got.length).toBe(want.length);
  for (const k of ['op', 'alloc', 'size', 'step', 'stream', 'tag', 'time', 'align', 'allocEvent', 'freeEvent'] as const) {
    expect(plain(got[k]), k).toEqual(plain(want[k]));
  }
  // A line column may be implicit on either side (see Trace.line): the lines compare.
  expect(Array.from(lineColumn(got)), 'line').toEqual(Array.from(lineColumn(want)));
  expect(got.tags).toEqual(want.tags);
  expect(got.allocCount).toBe(want.allocCount);
  expect(got.ids.toArray()).toEqual(want.ids.toArray());
  expect(got.summary).toEqual(want.summary);
  expect(got.skipped).toEqual(want.skipped);
  expect(got.initialEvents).toBe(want.initialEvents);
  expect(got.meta).toEqual(want.meta);
  expect(got.entryList).toBe(want.entryList);
  if (want.stacks) {
    const g = got.stacks;
    expect(g).toBeDefined();
    for (const k of ['ofAllocation', 'runStart', 'frameRun', 'frameFile'] as const) expect(plain(g?.[k]), k).toEqual(plain(want.stacks[k]));
    expect(g?.frames).toEqual(want.stacks.frames);
    expect(g?.files).toEqual(want.stacks.files);
  } else {
    expect(got.stacks).toBeUndefined();
  }
  if (want.recorded) {
    const { address, allocatedBytes, ...rest } = want.recorded;
    const { address: ga, allocatedBytes: gb, ...grest } = got.recorded ?? ({} as NonNullable<Trace['recorded']>);
    expect(plain(ga)).toEqual(plain(address));
    expect(plain(gb)).toEqual(plain(allocatedBytes));
    expect(grest).toEqual(rest);
  } else {
    expect(got.recorded).toBeUndefined();
  }
}
