import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../../src/errors.js';
import { renderJson } from '../../src/report/json.js';
import { replay } from '../../src/sim/run.js';
import { writeBinaryTrace } from '../../src/trace/binary/write.js';
import type { Trace } from '../../src/trace/model.js';
import { readTraceFile } from '../../src/trace/open.js';
import { readEarly } from '../../src/trace/pipeline/early.js';
import { checkTrace, readTrace } from '../../src/trace/read.js';
import { alloc, type EventObject, free, tempDir, traceFromEvents } from '../helpers.js';
import { expectSameTrace, sectionTable } from './binary-helpers.js';

const dir = tempDir();
let files = 0;

/** Writes `trace` as a binary trace and reads it back. */
function roundTrip(trace: Trace): Trace {
  const path = join(dir, `t${files++}.mst`);
  writeBinaryTrace(trace, path);
  return readTrace(path);
}

/** A replay's JSON report without the lines that name the file and its format. */
function reportOf(trace: Trace, allocator: string): string {
  const { report } = replay(trace, { allocator, onOom: 'continue', capacityBytes: 64 * 2 ** 20 });
  const r = report as unknown as { trace: Record<string, unknown> };
  r.trace = { ...r.trace, path: '', format: '' };
  delete r.trace.sourceFormat;
  return renderJson(report);
}

/** Valid traces with every optional column, ids of every kind, and (lenient) skipped events. */
const traces = fc
  .record({
    idKind: fc.constantFrom('number', 'prefixed', 'text'),
    ops: fc.array(fc.record({ isAlloc: fc.boolean(), pick: fc.nat(), size: fc.nat({ max: 2 ** 24 }), step: fc.integer({ min: -3, max: 2 ** 33 }), stepChange: fc.boolean(), stream: fc.constantFrom(0, 0, 1, 7), tag: fc.constantFrom(undefined, 'conv', 'é/attn', 'a,"b"'), align: fc.constantFrom(undefined, 64, 256, 4096), dt: fc.double({ min: 0, max: 10, noNaN: true }) }), { maxLength: 120 }),
    withTime: fc.boolean(),
    badFrees: fc.nat({ max: 2 }),
    name: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
  })
  .map(({ idKind, ops, withTime, badFrees, name }) => {
    const events: EventObject[] = [];
    const live: string[] = [];
    let next = 0;
    let time = 0;
    let step = 0;
    const idOf = (k: number): string | number => (idKind === 'number' ? k : idKind === 'prefixed' ? `g${k}` : `id ${k}/é`);
    for (const o of ops) {
      if (o.stepChange) step = o.step;
      time += o.dt;
      const extra = { step, ...(o.stream ? { stream: o.stream } : {}), ...(withTime ? { time } : {}) };
      if (o.isAlloc || live.length === 0) {
        const id = idOf(next++ % 40 === 39 ? 0 : next);
        if (live.includes(String(id))) continue;
        live.push(String(id));
        events.push(alloc(id, o.size, { ...extra, ...(o.tag ? { tag: o.tag } : {}), ...(o.align ? { align: o.align } : {}) }));
      } else {
        const [id] = live.splice(o.pick % live.length, 1);
        events.push(free(idKind === 'number' ? Number(id) : (id as string), extra));
      }
    }
    for (let k = 0; k < badFrees; k++) events.push(free('never-allocated'));
    return traceFromEvents(events, name === undefined ? {} : { name, capacityBytes: 2 ** 30, odd: [NaN, -0, Infinity] }, { lenient: true });
  });

describe('binary trace (.mst)', () => {
  it('any trace comes back identical: columns, ids, tags, figures, meta (fast-check)', () => {
    fc.assert(
      fc.property(traces, (trace) => {
        expectSameTrace(roundTrip(trace), trace);
      }),
      { numRuns: 150 },
    );
  });

  it('replaying it gives the report replaying the original gives, byte for byte (fast-check)', () => {
    fc.assert(
      fc.property(traces, fc.constantFrom('naive', 'bfc', 'caching', 'lifetime-pool'), (trace, allocator) => {
        expect(reportOf(roundTrip(trace), allocator)).toBe(reportOf(trace, allocator));
      }),
      { numRuns: 60 },
    );
  });

  it('says where a binary trace came from, and a trace written again keeps its first source', () => {
    const t = roundTrip(traceFromEvents([alloc('a', 10), free('a')]));
    expect([t.format, t.sourceFormat]).toEqual(['mst', 'events']);
    expect(roundTrip(t).sourceFormat).toBe('events');
  });

  it('loads the columns into shared memory (worker threads share them without a copy)', () => {
    const t = roundTrip(traceFromEvents([alloc(1, 10, { stream: 2, time: 1 }), free(1)]));
    for (const c of [t.op, t.alloc, t.size, t.step, t.stream, t.time, t.line, t.allocEvent, t.freeEvent]) expect(c?.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('keeps a recorded history and stacks, and refuses a recorded history whose entries are not what a replay reads', () => {
    const base = traceFromEvents([alloc('a', 100), alloc('b', 50), free('a')]);
    const recorded = {
      allocator: 'pytorch-caching',
      address: new Float64Array([4096, NaN]),
      allocatedBytes: new Float64Array([512, 512]),
      segmentEvents: [{ beforeEvent: 0, action: 'alloc' as const, address: 4096, sizeBytes: 2097152, stream: 0, pool: 'small' }],
      initialSegments: [],
      finalSegments: [{ address: 4096, sizeBytes: 2097152, stream: 0, blocks: [{ address: 4096, sizeBytes: 512, state: 'allocated' as const, allocation: 1 }] }],
      settings: { expandable_segments: false, ratio: -0 },
      extra: { shape: 'dict', missing: null },
    };
    const stacks = {
      ofAllocation: new Uint32Array([1, 0]),
      runStart: new Uint32Array([0, 0, 2]),
      frameRun: new Uint32Array([1, 2]),
      frames: ['', 'a.py:1:f', 'b.py:2:g'],
      frameFile: new Uint32Array([0, 1, 2]),
      files: ['', 'a.py', 'b.py'],
    };
    const trace: Trace = { ...base, recorded, stacks, entryList: 'device_traces[0]' };
    expectSameTrace(roundTrip(trace), trace);
    const bad = { ...trace, recorded: { ...recorded, segmentEvents: [{ ...recorded.segmentEvents[0]!, beforeEvent: 9 }] } };
    expect(() => roundTrip(bad)).toThrow(/t\d+\.mst: section "recorded": field "segmentEvents\[0\]\.beforeEvent": expected an event index from 0 to 3$/);
    const badStack = { ...trace, stacks: { ...stacks, frameRun: new Uint32Array([1, 5]) } };
    expect(() => roundTrip(badStack)).toThrow(/section "stackfrm": entry 1 names frame 5 of 3$/);
  });

  it('validate (checkTrace) gives the figures reading gives', () => {
    const trace = traceFromEvents([alloc('x', 100, { step: 1 }), alloc('y', 50, { step: 2 }), free('x'), alloc('z', 10)], { name: 'n' });
    const path = join(dir, 'check.mst');
    writeBinaryTrace(trace, path);
    const c = checkTrace(path);
    expect([c.format, c.meta, c.summary, c.skipped]).toEqual(['mst', { name: 'n' }, trace.summary, trace.skipped]);
  });
});

describe('binary trace: damaged files', () => {
  const trace = traceFromEvents([alloc('a', 100), alloc('b', 200), free('a'), free('b'), alloc('c', 5)], { name: 'small' });
  const good = join(dir, 'good.mst');
  writeBinaryTrace(trace, good);
  const bytes = readFileSync(good);
  const table = sectionTable(bytes);

  function messageOf(b: Buffer, name = 'bad.mst', options = {}): string {
    const path = join(dir, name);
    writeFileSync(path, b);
    try {
      readTrace(path, options);
    } catch (e) {
      expect(e).toBeInstanceOf(TraceError);
      return (e as Error).message.replaceAll(dir + '/', '');
    }
    throw new Error('read without an error');
  }

  function patched(section: string, at: number, write: (b: Buffer, offset: number) => void): Buffer {
    const b = Buffer.from(bytes);
    write(b, (table.get(section) as [number, number])[0] + at);
    return b;
  }

  it('truncated anywhere: names the file and the part it ends in', () => {
    expect(messageOf(bytes.subarray(0, 12))).toBe('bad.mst: field "version": truncated: the file ends at byte 12, inside the 16-byte preamble (magic, version, section count)');
    expect(messageOf(bytes.subarray(0, 40))).toMatch(/^bad\.mst: field "sections": truncated: the file ends at byte 40, inside the section table of \d+ entries/);
    const [sizeAt, sizeBytes] = table.get('size') as [number, number];
    expect(messageOf(bytes.subarray(0, sizeAt + 8))).toBe(`bad.mst: section "size": truncated: the section ends at byte ${sizeAt + sizeBytes}, the file at byte ${sizeAt + 8} (an incomplete copy?)`);
    // Every cut is refused, none crashes.
    for (let n = 1; n < bytes.length; n += 7) expect(messageOf(bytes.subarray(0, n))).toMatch(/^bad\.mst: /);
  });

  it('a newer version, or a file that is not one, is refused by name', () => {
    const v2 = Buffer.from(bytes);
    v2.writeUInt32LE(2, 8);
    expect(messageOf(v2)).toBe(
      'bad.mst: field "version": version 2: this memsim reads version 1 (the file was written by a newer memsim: update memsim, or convert the trace again from its source with this one)',
    );
    expect(messageOf(Buffer.from('op,id,size\nalloc,a,1\n'), 'bad.csv', { format: 'mst' })).toBe(
      'bad.csv: field "magic": not a memsim binary trace: it starts with 6F 70 2C 69 64 2C 73 69, not the magic bytes 89 4D 53 54 0D 0A 1A 0A',
    );
  });

  it('columns that contradict each other name the event and the field', () => {
    expect(messageOf(patched('op', 2, (b, o) => (b[o] = 7)))).toBe('bad.mst: events[2].op: 7 is neither 0 (alloc) nor 1 (free)');
    // A free marked alloc: that op, once, not every later allocation off by one.
    expect(messageOf(patched('op', 2, (b, o) => (b[o] = 0))).split('\n')).toEqual(['bad.mst: events[2].op: 0 (alloc), but section "freeev" says this event frees allocation 0']);
    expect(messageOf(patched('size', 3 * 8, (b, o) => b.writeDoubleLE(7, o)))).toBe('bad.mst: events[3].size: 7, not the 200 bytes of the allocation it frees');
    expect(messageOf(patched('size', 0, (b, o) => b.writeDoubleLE(-1, o))).split('\n')).toEqual([
      'bad.mst: events[0].size: -1 is not a size in bytes (an integer from 0 to 2^53-1)',
      'bad.mst: events[2].size: 100, not the -1 bytes of the allocation it frees',
    ]);
    expect(messageOf(patched('freeev', 4, (b, o) => b.writeInt32LE(-1, o)))).toBe('bad.mst: events[3].alloc: section "freeev" says allocation 1 is freed at event -1');
    expect(messageOf(patched('alloc', 4 * 4, (b, o) => b.writeUInt32LE(9, o)))).toBe('bad.mst: events[4].alloc: allocation 9, expected 2 (allocations are numbered in the order of their alloc events)');
  });

  it('a header that is not JSON, or whose figures the events contradict, names the field', () => {
    const h = table.get('header') as [number, number];
    const text = bytes.toString('utf8', h[0], h[0] + h[1]);
    const peak = text.replace('"peakLiveBytes":300', '"peakLiveBytes":301');
    expect(peak).not.toBe(text);
    expect(messageOf(patched('header', 0, (b, o) => b.write(peak, o, 'utf8')))).toBe('bad.mst: section "header": field "summary.peakLiveBytes": 301, but the events give 300');
    expect(messageOf(patched('header', 0, (b, o) => (b[o] = 0x5d)))).toMatch(/^bad\.mst: section "header": not valid JSON: /);
  });
});

describe('binary trace: read whole before the CLI loads (bin/memsim.js)', () => {
  const trace = traceFromEvents(
    [alloc('a', 100, { tag: 'w' }), alloc('b', 2 ** 33, { step: 1 }), free('a'), alloc('c', 5, { step: 2 }), free('b')],
    { name: 'early' },
  );
  const path = join(dir, 'early.mst');
  writeBinaryTrace(trace, path);
  const bytes = readFileSync(path);
  const argv = (file: string): string[] => ['node', 'memsim', 'replay', file, '-a', 'bfc'];

  /** What reading the file as usual gives, and what reading it after {@link readEarly} gives. */
  async function both(file: string): Promise<[Trace | string, Trace | string]> {
    const once = async (read: () => Promise<Trace> | Trace): Promise<Trace | string> => {
      try {
        return await read();
      } catch (e) {
        expect(e).toBeInstanceOf(TraceError);
        return (e as Error).message;
      }
    };
    const usual = await once(() => readTrace(file));
    await readEarly(argv(file), 0);
    return [await once(() => readTraceFile(file)), usual];
  }

  it('is the trace read as usual, its columns views of the one block of shared memory read', async () => {
    const [early, usual] = (await both(path)) as [Trace, Trace];
    expectSameTrace(early, usual);
    expect(early.op.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(early.size.buffer).toBe(early.op.buffer);
    expect(early.size.buffer.byteLength).toBe(bytes.length);
    expect(reportOf(early, 'bfc')).toBe(reportOf(usual, 'bfc'));
  });

  it('a damaged file: the problem reading it as usual finds', async () => {
    const cut = join(dir, 'early-cut.mst');
    for (const n of [12, 40, bytes.length - 9]) {
      writeFileSync(cut, bytes.subarray(0, n));
      const [early, usual] = await both(cut);
      expect(typeof usual).toBe('string');
      expect(early).toBe(usual);
    }
  });
});
