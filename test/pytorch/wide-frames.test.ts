import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unpickle } from '../../src/trace/pytorch/pickle.js';
import { pickle, type PickleWritable } from '../../src/trace/pytorch/pickle-writer.js';
import { unpickleSnapshot } from '../../src/trace/pytorch/snapshot-unpickler.js';
import { unpickleSnapshotFile } from '../../src/trace/pytorch/file-window.js';
import { tempDir } from '../helpers.js';
import { entry, frame, MiB, readWith, segment } from './snapshot-helpers.js';

const A = 0x7f0000000000;

describe('PyTorch snapshot: frame numbers past 16 bits', () => {
  it('reads directly a snapshot of more than 2^16 distinct frames (frame numbers past 16 bits), to the same trace and stacks as the plain way', () => {
    const dir = tempDir();
    const file = join(dir, 'many-frames.pickle');
    const frames = Array.from({ length: 70_000 }, (_, i) => frame(`/home/u/m${i % 50}.py`, i, `f${i}`));
    const trace: PickleWritable[] = [];
    const allocFree = (i: number, fr: PickleWritable[]): void => {
      trace.push(entry('alloc', A + 512 * i, 512, { frames: fr }), entry('free_requested', A + 512 * i, 512, { frames: fr }), entry('free_completed', A + 512 * i, 512, { frames: fr }));
    };
    // Each frame met first in a list of its own 1,000, then lists that mix frames on both sides of 2^16.
    for (let i = 0; i < 70; i++) allocFree(i, frames.slice(1000 * i, 1000 * (i + 1)));
    for (let i = 70; i < 80; i++) allocFree(i, [frames[69_999 - i]!, frames[i]!, frames[65_536]!, frames[65_535]!, frames[0]!]);
    writeFileSync(file, pickle({ segments: [segment({ address: A, blocks: [{ size: 2 * MiB, state: 'inactive' }] })], device_traces: [trace] }));
    expect(unpickleSnapshot(readFileSync(file), file, 0).traces?.map((t) => t.length)).toEqual([240]);
    const plain = readWith(file, () => ({ root: unpickle(readFileSync(file), file) }));
    const got = readWith(file, () => unpickleSnapshot(readFileSync(file), file, 0));
    expect(got).toEqual(plain);
    // Through a window too (no entry is longer than its margin: the direct reading takes the file).
    expect(unpickleSnapshotFile(file, file, 1024 * 1024, 256 * 1024, 0).traces?.map((t) => t.length)).toEqual([240]);
    expect(readWith(file, () => unpickleSnapshotFile(file, file, 1024 * 1024, 256 * 1024, 0))).toEqual(plain);
    const st = got.stacks!;
    expect(st.frames.length).toBe(70_001);
    const s = st.ofAllocation[75]!;
    expect([...st.frameRun.subarray(st.runStart[s]!, st.runStart[s + 1]!)].map((f) => st.frames[f])).toEqual(
      ['/home/u/m24.py:69924:f69924', '/home/u/m25.py:75:f75', '/home/u/m36.py:65536:f65536', '/home/u/m35.py:65535:f65535', '/home/u/m0.py:0:f0'],
    );
  });
});
