import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trace } from '../../src/trace/model.js';
import { unpickle } from '../../src/trace/pytorch/pickle.js';
import { pickle, type PickleWritable } from '../../src/trace/pytorch/pickle-writer.js';
import { unpickleSnapshot } from '../../src/trace/pytorch/snapshot-unpickler.js';
import { tempDir } from '../helpers.js';
import { entry, frame, MiB, readWith, SAMPLE_FRAMES, segment } from './snapshot-helpers.js';

const A = 0x7f0000000000;

const FRAMES: PickleWritable[] = [...SAMPLE_FRAMES, frame('/home/u/data.py', 7, 'load')];

/**
 * A snapshot of `n` allocs of 512 bytes, each with a frames list of its own (a frame of its own last,
 * so that no two lists are alike), every other one freed (its free_requested and free_completed
 * sharing a list), a segment_alloc with frames first; `change(trace)` edits the entries. The
 * allocations live at the end are blocks of the final segment, with no frames.
 */
function write(name: string, n: number, change: (trace: Record<string, PickleWritable>[], blockFrames: PickleWritable[]) => void = () => {}, userOnly = false): string {
  const file = join(tempDir(), name);
  const trace: Record<string, PickleWritable>[] = [entry('segment_alloc', A, 2 * MiB, { frames: [FRAMES[2]!, FRAMES[0]!] })];
  for (let i = 0; i < n; i++) {
    const others = userOnly ? [] : Array.from({ length: i % 5 }, (_, j) => FRAMES[(i * 3 + j * 5) % FRAMES.length]!);
    const fr = [...others, frame('/home/u/steps.py', i, 'step')];
    trace.push(entry('alloc', A + 512 * i, 512, { frames: fr }));
    if (i % 2 === 1) {
      const ff = [FRAMES[i % FRAMES.length]!];
      trace.push(entry('free_requested', A + 512 * i, 512, { frames: ff }), entry('free_completed', A + 512 * i, 512, { frames: ff }));
    }
  }
  // A list that is a block's frames in the final segment too (read as plain data, before the trace):
  // longer than the room that the lists which no alloc takes leave (a dozen frames).
  const blockFrames: PickleWritable[] = Array.from({ length: 16 }, (_, j) => [FRAMES[4]!, FRAMES[6]!, FRAMES[0]!][j % 3]!);
  change(trace, blockFrames);
  const blocks = Array.from({ length: n }, (_, i) => (i % 2 === 1 ? { size: 512, state: 'inactive' as const } : { size: 512, requested: 512, frames: i === 0 ? blockFrames : [] }));
  blocks.push({ size: 2 * MiB - 512 * n, state: 'inactive' });
  writeFileSync(file, pickle({ segments: [segment({ address: A, blocks })], device_traces: [trace] }));
  return file;
}

/** The file read directly (checked to be), beside the plain way. */
function both(file: string): { direct: Trace; plain: Trace } {
  expect(unpickleSnapshot(readFileSync(file), file, 0).traces).toBeDefined();
  return { direct: readWith(file, () => unpickleSnapshot(readFileSync(file), file, 0)), plain: readWith(file, () => ({ root: unpickle(readFileSync(file), file) })) };
}

describe('PyTorch snapshot: stacks written over the frames lists read directly', () => {
  it('writes the stacks where the lists were when the allocs take the lists in order: the same trace and stacks as the plain way', () => {
    const { direct, plain } = both(write('in-order.pickle', 400));
    expect(direct).toEqual(plain);
    // The stacks are in the lists' memory (a growable shared buffer), not a copy of their own.
    expect(direct.stacks!.frameRun.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(direct.stacks!.runStart.length).toBeGreaterThan(50);
  });

  it.each([
    ['writes in place the stack of a plain list (a final block\'s frames) that an alloc in the middle takes, where the stacks so far left room', false, true],
    ['copies the stacks out of the lists before an alloc in the middle takes a plain list, where the stacks so far left no room', true, false],
  ])('%s', (_, userOnly, inPlace) => {
    const file = write(`plain-list-${userOnly}.pickle`, 400, (trace, blockFrames) => {
      trace.find((e) => e['action'] === 'alloc' && e['addr'] === A + 512 * 200)!['frames'] = blockFrames;
    }, userOnly);
    const { direct, plain } = both(file);
    expect(direct).toEqual(plain);
    expect(direct.stacks!.frameRun.buffer instanceof SharedArrayBuffer).toBe(inPlace);
    const st = direct.stacks!;
    const s = st.ofAllocation[200]!;
    expect([...st.frameRun.subarray(st.runStart[s]!, st.runStart[s + 1]!)].map((f) => st.frames[f])).toEqual(Array.from({ length: 16 }, (_, j) => ['/home/u/model.py:41:forward', '/home/u/data.py:7:load', '/home/u/train.py:12:forward'][j % 3]));
    // The stacks before and after it, each ending with the alloc's own frame.
    for (const a of [199, 201, 399]) expect(st.frames[st.frameRun[st.runStart[st.ofAllocation[a]! + 1]! - 1]!]).toBe(`/home/u/steps.py:${a}:step`);
  });

  it('refuses to import a second time a trace read directly (its stacks were written over its lists, which gave their tables)', () => {
    const file = write('twice.pickle', 50);
    const { root, traces } = unpickleSnapshot(readFileSync(file), file, 0);
    const plain = readWith(file, () => ({ root: unpickle(readFileSync(file), file) }));
    expect(readWith(file, () => ({ root, traces }))).toEqual(plain);
    expect(() => readWith(file, () => ({ root, traces }))).toThrow(/serve one import/);
  });

  it('copies nothing over the lists where an alloc takes a list stored before a later alloc\'s (the stacks as the plain way)', () => {
    const file = write('out-of-order.pickle', 400, (trace) => {
      // A free whose frames come before its action: its list is stored (not known to be unneeded),
      // and an alloc much later takes it, after lists stored since.
      const shared = [FRAMES[6]!, FRAMES[0]!, FRAMES[3]!];
      const i = trace.findIndex((e) => e['action'] === 'free_requested');
      const { frames: _, ...rest } = trace[i]!;
      trace[i] = { frames: shared, ...rest };
      trace[trace.length - 4]!['frames'] = shared;
    });
    const { direct, plain } = both(file);
    expect(direct).toEqual(plain);
    expect(direct.stacks!.frameRun.buffer).not.toBeInstanceOf(SharedArrayBuffer);
  });
});
