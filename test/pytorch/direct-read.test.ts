import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReadOptions, TraceReader } from '../../src/trace/readers.js';
import { openTrace, readOpenedTrace, readTraceFile } from '../../src/trace/open.js';
import { readEarly } from '../../src/trace/pipeline/early.js';
import { readTrace } from '../../src/trace/read.js';
import type { Trace } from '../../src/trace/model.js';
import { importSnapshot } from '../../src/trace/pytorch/import.js';
import { unpickle } from '../../src/trace/pytorch/pickle.js';
import { pickle, type PickleWritable } from '../../src/trace/pytorch/pickle-writer.js';
import { parseSnapshot } from '../../src/trace/pytorch/snapshot.js';
import { DIRECT_MIN_BYTES, unpickleSnapshot } from '../../src/trace/pytorch/snapshot-unpickler.js';
import { unpickleSnapshotFile } from '../../src/trace/pytorch/file-window.js';
import { SHARED_TRACES, tempDir } from '../helpers.js';
import { entry, MiB, SAMPLE_FRAMES, segment, settings } from './snapshot-helpers.js';

/** The same file read the plain way: every value unpickled, then the entries converted (the reference). */
function readPlain(file: string, options: ReadOptions = {}): Trace {
  const opened = openTrace(file, options);
  const reader: TraceReader = {
    ...opened.reader,
    read(_src, builder, o) {
      return importSnapshot(parseSnapshot(unpickle(readFileSync(file), file), file), file, builder, o.device);
    },
  };
  return readOpenedTrace({ ...opened, reader }, options);
}

/** The same file read the direct way whatever its size (readTrace reads small files the plain way). */
function readDirect(file: string, options: ReadOptions = {}): Trace {
  const opened = openTrace(file, options);
  const reader: TraceReader = {
    ...opened.reader,
    read(_src, builder, o) {
      const { root, traces } = unpickleSnapshot(readFileSync(file), file, 0);
      return importSnapshot(parseSnapshot(root, file, traces), file, builder, o.device);
    },
  };
  return readOpenedTrace({ ...opened, reader }, options);
}

/**
 * The same file read the direct way through a window of `windowBytes` (see file-window.ts; large
 * files are read so), moved on with `marginBytes` left ahead, whatever its size.
 */
function readWindowed(file: string, windowBytes = 1024, marginBytes = 256): Trace {
  const opened = openTrace(file);
  const reader: TraceReader = {
    ...opened.reader,
    read(_src, builder, o) {
      const { root, traces } = unpickleSnapshotFile(file, file, windowBytes, marginBytes, 0);
      return importSnapshot(parseSnapshot(root, file, traces), file, builder, o.device);
    },
  };
  return readOpenedTrace({ ...opened, reader }, {});
}

/** A trace, or the message of the error reading it gives. */
function outcome(read: () => Trace): Trace | string {
  try {
    return read();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
}

const A = 0x7f0000000000;

const FRAMES = SAMPLE_FRAMES;

/** What goes wrong in one entry, if anything. */
const BREAKS: ((e: Record<string, PickleWritable>) => void)[] = [
  (e) => (e['size'] = -7),
  (e) => (e['addr'] = 'x'),
  (e) => delete e['action'],
  (e) => (e['action'] = 5),
  (e) => (e['stream'] = -1),
  (e) => (e['time_us'] = 'soon'),
  (e) => (e['size'] = 2n ** 60n),
  (e) => (e['frames'] = 'not a list'),
  (e) => (e['frames'] = null),
  (e) => (e['action'] = 'user_defined'),
  (e) => (e['action'] = 'snapshot'),
  (e) => (e['stream'] = 1.5),
  (e) => delete e['addr'],
  (e) => delete e['size'],
  (e) => (e['device_free'] = -1),
];

interface Step {
  kind: number;
  size: number;
  frames: number;
  pick: number;
}

const step: fc.Arbitrary<Step> = fc.record({ kind: fc.nat(9), size: fc.integer({ min: 1, max: 3 * MiB }), frames: fc.nat(12), pick: fc.nat(1000) });

/**
 * A snapshot from a run of steps: allocations in 4 MiB slots of one large segment, frees of live ones
 * (free_requested, then free_completed), OOM and annotation entries; frames lists fresh, shared with
 * another entry or with a block of the final segments; optionally one entry broken, one entry in the
 * list twice, and a second device whose trace is never imported.
 */
function snapshotOf(steps: Step[], brk: number, at: number, twice: boolean, other: boolean): Record<string, PickleWritable> {
  const shared: PickleWritable[][] = [[FRAMES[0]!, FRAMES[2]!], [FRAMES[3]!], []];
  const blockFrames: PickleWritable[] = [FRAMES[4]!, FRAMES[1]!];
  const framesOf = (k: number): PickleWritable[] | undefined => {
    if (k < 3) return shared[k];
    if (k === 3) return blockFrames;
    if (k === 4) return undefined;
    if (k === 5) return ['not a frame', FRAMES[0]!];
    return FRAMES.slice(k % 6, (k % 6) + 1 + (k % 3)) as PickleWritable[];
  };
  const trace: Record<string, PickleWritable>[] = [];
  const live: { addr: number; size: number }[] = [];
  let slot = 1;
  for (const s of steps) {
    if (s.kind <= 4 || live.length === 0) {
      const addr = A + slot++ * 4 * MiB;
      const e = entry('alloc', addr, s.size, { stream: s.pick % 3 });
      // Entries without a stream (stream 0) or a time.
      if (s.pick % 5 === 0) delete e['stream'];
      if (s.pick % 7 === 0) delete e['time_us'];
      const fr = framesOf(s.frames);
      if (fr === undefined) delete e['frames'];
      else e['frames'] = fr;
      trace.push(e);
      live.push({ addr, size: s.size });
    } else if (s.kind <= 7) {
      const [b] = live.splice(s.pick % live.length, 1);
      const fr = framesOf(s.frames) ?? [];
      trace.push(entry('free_requested', b!.addr, b!.size, { frames: fr }), entry('free_completed', b!.addr, b!.size, { frames: fr }));
    } else if (s.kind === 8) {
      trace.push(entry('oom', 3 * MiB, 64 * MiB));
    } else {
      trace.push({ action: 'user_defined', addr: 0, size: 0, stream: 0, time_us: 1, frames: [] });
    }
  }
  if (trace.length > 0 && brk < BREAKS.length) BREAKS[brk]!(trace[at % trace.length]!);
  if (twice && trace.length > 0) trace.push(trace[at % trace.length]!);
  // The final segment: a block of the first slot (frames shared with the trace), then the live blocks.
  const blocks: { size: number; state?: 'inactive'; requested?: number; frames?: PickleWritable[] }[] = [{ size: 2 * MiB, frames: blockFrames, requested: 2 * MiB - 5 }, { size: 2 * MiB, state: 'inactive' }];
  let end = A + 4 * MiB;
  for (const b of [...live].sort((x, y) => x.addr - y.addr)) {
    if (b.addr > end) blocks.push({ size: b.addr - end, state: 'inactive' });
    const size = Math.ceil(b.size / 512) * 512;
    blocks.push({ size, requested: b.size });
    end = b.addr + size;
  }
  const total = (slot + 1) * 4 * MiB;
  blocks.push({ size: A + total - end, state: 'inactive' });
  const device1 = other ? [entry('alloc', 0x1000, 512), { action: 'alloc', addr: -1, size: 'bad' }] : [];
  return {
    segments: [segment({ address: A, blocks, type: 'large' })],
    device_traces: [trace, device1],
    allocator_settings: settings(),
    external_annotations: [],
  };
}

/** The length of the opcode at `p` of a pickle made by pickle-writer (the opcodes it writes). */
function opLength(buf: Buffer, p: number): number {
  const op = buf[p] as number;
  if ([0x94, 0x4e, 0x88, 0x89, 0x28, 0x74, 0x5d, 0x61, 0x65, 0x7d, 0x73, 0x75, 0x2e].includes(op)) return 1;
  if ([0x80, 0x71, 0x68, 0x4b].includes(op)) return 2;
  if (op === 0x4d) return 3;
  if ([0x72, 0x6a, 0x4a].includes(op)) return 5;
  if (op === 0x47) return 9;
  if (op === 0x8c || op === 0x8a) return 2 + (buf[p + 1] as number);
  if (op === 0x58 || op === 0x42) return 5 + buf.readUInt32LE(p + 1);
  throw new Error(`opcode 0x${op.toString(16)} not written by pickle-writer`);
}

/**
 * `buf` (protocol 4 or 5) in frames, as a pickler with framing writes it: after PROTO, a FRAME
 * opcode (its 8-byte length) before each part, the parts ending at the opcode boundaries picked by
 * `cuts` (indices into the boundaries, modulo their count), so that frames begin anywhere: before a
 * key, a value, a memo store, an APPENDS, inside a frames list.
 */
function framed(buf: Buffer, cuts: number[]): Buffer {
  const bounds: number[] = [];
  for (let p = 2; p < buf.length; p += opLength(buf, p)) bounds.push(p);
  const starts = [...new Set([2, ...cuts.map((c) => bounds[c % bounds.length] as number)])].sort((a, b) => a - b);
  const parts: Buffer[] = [buf.subarray(0, 2)];
  starts.forEach((s, i) => {
    const e = starts[i + 1] ?? buf.length;
    const head = Buffer.alloc(9);
    head[0] = 0x95;
    head.writeBigUInt64LE(BigInt(e - s), 1);
    parts.push(head, buf.subarray(s, e));
  });
  return Buffer.concat(parts);
}

describe('PyTorch snapshot: the trace read straight into columns', () => {
  it('property: the same trace (or the same error) as the plain unpickler, for any protocol, shape and damage', () => {
    const dir = tempDir();
    let direct = 0;
    let windowed = 0;
    let fine = 0;
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 40 }),
        fc.nat(BREAKS.length * 3),
        fc.nat(),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(2, 3, 4, 5),
        (steps, brk, at, twice, other, protocol) => {
          const file = join(dir, 'snap.pickle');
          const buf = pickle(snapshotOf(steps, brk, at, twice, other), { protocol: protocol as 2 | 3 | 4 | 5 });
          writeFileSync(file, buf);
          if (unpickleSnapshot(buf, file, 0).traces !== undefined) direct++;
          if (unpickleSnapshotFile(file, file, 1024, 256, 0).traces !== undefined) windowed++;
          const got = outcome(() => readDirect(file));
          const want = outcome(() => readPlain(file));
          if (typeof want !== 'string') fine++;
          expect(got).toEqual(want);
          expect(outcome(() => readWindowed(file))).toEqual(want);
        },
      ),
      { numRuns: 300 },
    );
    // Both paths were exercised (about a quarter of the files are read directly, most import fine).
    expect(direct).toBeGreaterThan(30);
    expect(windowed).toBeGreaterThan(30);
    expect(fine).toBeGreaterThan(100);
  });

  it('property: with FRAME opcodes at any opcode boundaries, the same trace (or error) as the plain unpickler, read directly where the unframed file is', () => {
    const dir = tempDir();
    let direct = 0;
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 30 }),
        fc.nat(BREAKS.length * 3),
        fc.nat(),
        fc.constantFrom(4, 5),
        fc.array(fc.nat(), { minLength: 1, maxLength: 60 }),
        (steps, brk, at, protocol, cuts) => {
          const plainBuf = pickle(snapshotOf(steps, brk, at, false, false), { protocol: protocol as 4 | 5 });
          const buf = framed(plainBuf, cuts);
          const file = join(dir, 'framed.pickle');
          writeFileSync(file, buf);
          const isDirect = unpickleSnapshot(buf, file, 0).traces !== undefined;
          expect(isDirect).toBe(unpickleSnapshot(plainBuf, file, 0).traces !== undefined);
          if (isDirect) direct++;
          const want = outcome(() => readPlain(file));
          expect(outcome(() => readDirect(file))).toEqual(want);
          expect(outcome(() => readWindowed(file))).toEqual(want);
        },
      ),
      { numRuns: 200 },
    );
    expect(direct).toBeGreaterThan(20);
  });

  it('reads a CPython-shaped pickle directly, and falls back where an entry is in the list twice', () => {
    const e = entry('alloc', A, 512, { frames: [FRAMES[0]!] });
    const snap = (trace: PickleWritable[]) => pickle({ segments: [], device_traces: [trace] });
    const once = unpickleSnapshot(snap([e, entry('free_completed', A, 512, { frames: [] })]), 'x', 0);
    expect(once.traces?.map((t) => t.length)).toEqual([2]);
    expect([...once.traces![0]!.action]).toEqual([0, 2]);
    expect([...once.traces![0]!.addr]).toEqual([A, A]);
    // The same dict twice: read again the plain way, where it is two entries.
    const twice = unpickleSnapshot(snap([e, e]), 'x', 0);
    expect(twice.traces).toBeUndefined();
    expect((twice.root as { device_traces: unknown[][] }).device_traces[0]).toHaveLength(2);
  });

  it('reads directly an alloc that shares the frames list of an earlier free (its frames not stored until then)', () => {
    const dir = tempDir();
    const file = join(dir, 'shared.pickle');
    const fr: PickleWritable[] = [FRAMES[4]!, FRAMES[0]!];
    const trace = [
      entry('alloc', A, 512, { frames: [FRAMES[1]!, FRAMES[0]!, FRAMES[4]!] }),
      entry('free_requested', A, 512, { frames: fr }),
      entry('free_completed', A, 512, { frames: fr }),
      entry('alloc', A + 512, 512, { frames: fr }),
    ];
    writeFileSync(file, pickle({ segments: [segment({ address: A, blocks: [{ size: 512, state: 'inactive' }, { size: 512, requested: 512 }, { size: 2 * MiB - 1024, state: 'inactive' }] })], device_traces: [trace] }));
    expect(unpickleSnapshot(readFileSync(file), file, 0).traces?.map((t) => t.length)).toEqual([4]);
    const got = readDirect(file);
    expect(got).toEqual(readPlain(file));
    // The second alloc's stack is that of the shared list: model.py, then train.py.
    const st = got.stacks!;
    const s = st.ofAllocation[1]!;
    expect([...st.frameRun.subarray(st.runStart[s]!, st.runStart[s + 1]!)].map((f) => st.frames[f])).toEqual(['/home/u/model.py:41:forward', '/home/u/train.py:12:forward']);
  });

  it('reads through a window an alloc that shares the frames list of a free whose bytes the window has moved past', () => {
    const dir = tempDir();
    const file = join(dir, 'shared-far.pickle');
    const fr: PickleWritable[] = [FRAMES[4]!, FRAMES[0]!];
    const trace = [entry('free_requested', A, 512, { frames: fr }), entry('free_completed', A, 512, { frames: fr })];
    // Some 6 KB of entries between the free and the alloc that takes its list.
    for (let i = 1; i <= 100; i++) trace.push(entry('alloc', A + 512 * i, 512, { frames: [FRAMES[i % 5]!] }), entry('free_completed', A + 512 * i, 512));
    trace.push(entry('alloc', A, 512, { frames: fr }));
    writeFileSync(file, pickle({ segments: [segment({ address: A, blocks: [{ size: 512, requested: 512 }, { size: 2 * MiB - 512, state: 'inactive' }] })], device_traces: [trace] }));
    expect(unpickleSnapshotFile(file, file, 1024, 256, 0).traces?.map((t) => t.length)).toEqual([203]);
    const got = readWindowed(file);
    expect(got).toEqual(readPlain(file));
    const st = got.stacks!;
    const s = st.ofAllocation[st.ofAllocation.length - 1]!;
    expect([...st.frameRun.subarray(st.runStart[s]!, st.runStart[s + 1]!)].map((f) => st.frames[f])).toEqual(['/home/u/model.py:41:forward', '/home/u/train.py:12:forward']);
  });

  it('reads a pickle of DIRECT_MIN_BYTES or more through a window, to the same trace as the plain unpickler', () => {
    const dir = tempDir();
    const file = join(dir, 'large.pickle');
    const trace: PickleWritable[] = [];
    // Long frames lists (2 bytes a frame), so that few entries make the size.
    const n = 2_700;
    for (let i = 0; i < n; i++) {
      const fr = Array.from({ length: 1000 + (i % 7) }, (_, k) => FRAMES[(i + k) % FRAMES.length]!) as PickleWritable[];
      trace.push(entry('alloc', A + 512 * i, 512, { frames: fr }), entry('free_requested', A + 512 * i, 512, { frames: [...fr].reverse() }), entry('free_completed', A + 512 * i, 512, { frames: fr }));
    }
    writeFileSync(file, pickle({ segments: [segment({ address: A, blocks: [{ size: 64 * MiB, state: 'inactive' }] })], device_traces: [trace] }));
    expect(readFileSync(file).length).toBeGreaterThan(DIRECT_MIN_BYTES);
    expect(unpickleSnapshotFile(file, file).traces?.map((t) => t.length)).toEqual([3 * n]);
    expect(readTrace(file)).toEqual(readPlain(file));
  });

  it('names a bad entry by its path, as the plain reader does', () => {
    const dir = tempDir();
    const file = join(dir, 'bad.pickle');
    const trace = [entry('alloc', A, 512), entry('alloc', A + 512, 512), entry('free_completed', A, 512), entry('alloc', A, 512), entry('alloc', A + 1024, -7)];
    writeFileSync(file, pickle({ segments: [segment({ address: A, blocks: [{ size: 2 * MiB, state: 'inactive' }] })], device_traces: [trace] }));
    expect(() => readDirect(file)).toThrow('device_traces[0][4].size: must not be negative, got -7');
    expect(outcome(() => readDirect(file))).toBe(outcome(() => readPlain(file)));
    expect(outcome(() => readTrace(file))).toBe(outcome(() => readPlain(file)));
    expect(outcome(() => readWindowed(file))).toBe(outcome(() => readPlain(file)));
  });

  it('reads a pickle smaller than DIRECT_MIN_BYTES the plain way, and one of that size or more directly', () => {
    const buf = pickle({ segments: [], device_traces: [[entry('alloc', A, 512, { frames: [FRAMES[0]!] })]] });
    expect(buf.length).toBeLessThan(DIRECT_MIN_BYTES);
    const small = unpickleSnapshot(buf, 'x');
    expect(small.traces).toBeUndefined();
    expect((small.root as { device_traces: unknown[][] }).device_traces[0]).toHaveLength(1);
    expect(unpickleSnapshot(buf, 'x', buf.length + 1).traces).toBeUndefined();
    expect(unpickleSnapshot(buf, 'x', buf.length).traces?.map((t) => t.length)).toEqual([1]);
  });

  it('reads a trace list of more entries than the room made for it at first (entries under 64 bytes)', () => {
    const dir = tempDir();
    const file = join(dir, 'long.pickle');
    const trace: PickleWritable[] = [];
    for (let i = 0; i < 3000; i++) trace.push(entry('alloc', A + 512 * i, 512), entry('free_completed', A + 512 * i, 512));
    const buf = pickle({ segments: [segment({ address: A, blocks: [{ size: 2 * MiB, state: 'inactive' }] })], device_traces: [trace] });
    writeFileSync(file, buf);
    expect(trace.length).toBeGreaterThan(buf.length / 64);
    expect(unpickleSnapshot(buf, file, 0).traces?.map((t) => t.length)).toEqual([6000]);
    const got = readDirect(file);
    expect(got.length).toBe(6000);
    expect(got).toEqual(readPlain(file));
  });

  it('reads a snapshot to replay when asked, not early (bin/memsim.js): a large one is read through a window as it is parsed', async () => {
    const dir = tempDir();
    const file = join(dir, 'early.pickle');
    const trace = [entry('alloc', A, 512, { frames: [FRAMES[0]!] }), entry('free_completed', A, 512)];
    const buf = pickle({ segments: [segment({ address: A, blocks: [{ size: 2 * MiB, state: 'inactive' }] })], device_traces: [trace] });
    const argv = ['node', 'memsim', 'replay', file, '-a', 'caching'];
    const early = async (gone = false): Promise<Trace | string> => {
      await readEarly(argv, 0);
      if (gone) unlinkSync(file);
      try {
        return await readTraceFile(file);
      } catch (e) {
        return `${(e as Error).constructor.name}: ${(e as Error).message}`;
      }
    };
    writeFileSync(file, buf);
    const got = await early();
    expect(got).not.toBeTypeOf('string');
    expect(got).toEqual(readTrace(file));
    // Nothing was read before the file went.
    expect(await early(true)).toMatch(/^TraceError: /);
    writeFileSync(file, buf.subarray(0, buf.length - 9));
    const cut = await early();
    expect(cut).toMatch(/^TraceError: /);
    expect(cut).toBe(outcome(() => readTrace(file)));
  });

  const real = join(SHARED_TRACES, 'pytorch', 'bcrafton_memory_snapshot.pickle');
  it.skipIf(!existsSync(real))('reads the real bcrafton snapshot directly, to the same trace as the plain unpickler', () => {
    expect(unpickleSnapshot(readFileSync(real), real, 0).traces?.map((t) => t.length)).toEqual([6486]);
    expect(readDirect(real)).toEqual(readPlain(real));
    expect(readTrace(real)).toEqual(readPlain(real));
  });
});

