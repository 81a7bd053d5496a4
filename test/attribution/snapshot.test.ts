import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replay } from '../../src/sim/run.js';
import { unpickle } from '../../src/trace/pytorch/pickle.js';
import { toPlain } from '../../src/trace/pytorch/pickle-value.js';
import { readTrace } from '../../src/trace/read.js';
import { runCli, SHARED_TRACES, tempDir } from '../helpers.js';
import { entry, frame, MiB, segment, settings, writeSnapshot } from '../pytorch/snapshot-helpers.js';

const SEG = 0x7f0000000000;
const alloc = [frame('??', 0, 'torch::unwind::unwind()'), frame('CUDACachingAllocator.cpp', 0, 'c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(unsigned long, CUstream_st*)')];
const torchPy = (line: number, name: string) => frame('/usr/lib/python3/site-packages/torch/nn/modules/linear.py', line, name);
const user = (file: string, line: number, name: string) => frame(`/work/train/${file}`, line, name);
// Three user stacks: two share their innermost frame (model.py:10), one is elsewhere (optim.py:5).
const fwdA = [...alloc, torchPy(125, 'forward'), user('model.py', 10, 'forward'), user('model.py', 40, 'block'), user('train.py', 7, 'step'), user('train.py', 99, '<module>')];
const fwdB = [...alloc, user('model.py', 10, 'forward'), user('model.py', 55, 'head'), user('train.py', 7, 'step')];
const opt = [...alloc, torchPy(10, 'zeros_like'), user('optim.py', 5, 'init_state'), user('train.py', 8, 'step')];

// When the window opens a 20 MiB segment holds a 2 MiB block allocated by fwdA (still live at the
// dump, so its frames are known); in the window: 4 MiB by fwdB, 6 MiB by opt, 2 MiB by fwdA.
const snap = {
  segments: [
    segment({
      address: SEG,
      blocks: [{ size: 2 * MiB, frames: fwdA }, { size: 4 * MiB, frames: fwdB }, { size: 6 * MiB, frames: opt }, { size: 2 * MiB, frames: fwdA }, { size: 6 * MiB, state: 'inactive' }],
    }),
  ],
  device_traces: [
    [
      entry('alloc', SEG + 2 * MiB, 4 * MiB, { frames: fwdB }),
      entry('alloc', SEG + 6 * MiB, 6 * MiB, { frames: opt }),
      entry('alloc', SEG + 12 * MiB, 2 * MiB, { frames: fwdA }),
    ],
  ],
  allocator_settings: settings(),
};

describe('attribution on a snapshot, by its call stacks', () => {
  const file = writeSnapshot(snap);

  it('keeps each allocation\'s user stack, interned once per distinct stack, innermost first', () => {
    const t = readTrace(file);
    const st = t.stacks!;
    expect(st.runStart.length - 1).toBe(4); // the empty stack 0 and three distinct ones
    const framesOf = (a: number) => Array.from(st.frameRun.subarray(st.runStart[st.ofAllocation[a]!]!, st.runStart[st.ofAllocation[a]! + 1]!), (f) => st.frames[f]);
    expect(framesOf(0)).toEqual(['/work/train/model.py:10:forward', '/work/train/model.py:40:block', '/work/train/train.py:7:step', '/work/train/train.py:99:<module>']);
    expect(st.ofAllocation[3]).toBe(st.ofAllocation[0]);
    expect(framesOf(2)).toEqual(['/work/train/optim.py:5:init_state', '/work/train/train.py:8:step']);
    // The tag is the stack's innermost frame.
    for (let a = 0; a < t.allocCount; a++) expect(t.tags[t.tag![t.allocEvent[a]!]!]).toBe(framesOf(a)[0]);
  });

  it('groups by frame (the default with stacks), file or stack, and shows each top key\'s stack', () => {
    const t = readTrace(file);
    const at = (groupBy?: 'frame' | 'file' | 'stack' | 'tag', stackDepth?: number) =>
      replay(t, { allocator: 'caching', attribution: { ...(groupBy ? { groupBy } : {}), ...(stackDepth ? { stackDepth } : {}) } }).report.attribution!;
    const frame = at();
    expect(frame.groupBy).toBe('frame');
    expect(frame.peakLive!.top.map((h) => [h.key, h.bytes / MiB, h.count])).toEqual([
      ['/work/train/model.py:10:forward', 8, 3],
      ['/work/train/optim.py:5:init_state', 6, 1],
    ]);
    expect(frame.peakLive!.top[0]!.frames).toEqual(['/work/train/model.py:10:forward', '/work/train/model.py:55:head', '/work/train/train.py:7:step']);
    expect(at('file').peakLive!.top.map((h) => [h.key, h.bytes / MiB])).toEqual([
      ['/work/train/model.py', 8],
      ['/work/train/optim.py', 6],
    ]);
    expect(at('stack', 2).peakLive!.top.map((h) => [h.key, h.bytes / MiB])).toEqual([
      ['/work/train/optim.py:5:init_state ← /work/train/train.py:8:step', 6],
      ['/work/train/model.py:10:forward ← /work/train/model.py:40:block', 4],
      ['/work/train/model.py:10:forward ← /work/train/model.py:55:head', 4],
    ]);
  });

  it('the JSON report carries the frames; convert keeps the tag', () => {
    const j = JSON.parse(runCli(['replay', file, '--allocator', 'caching', '--format', 'json', '--group-by', 'stack', '--stack-depth', '1']).stdout);
    expect(j.attribution).toMatchObject({ groupBy: 'stack', stackDepth: 1, top: 10 });
    expect(j.attribution.peakLive.top[0]).toMatchObject({ key: '/work/train/model.py:10:forward', bytes: 8 * MiB, count: 3, share: 0.571429, largestBytes: 4 * MiB });
    const csv = join(tempDir(), 'snap.csv');
    expect(runCli(['convert', file, csv]).code).toBe(0);
    const tags = readTrace(csv);
    expect(Array.from({ length: tags.length }, (_, i) => tags.tags[tags.tag![i]!])).toEqual([
      '/work/train/model.py:10:forward',
      '/work/train/model.py:10:forward',
      '/work/train/optim.py:5:init_state',
      '/work/train/model.py:10:forward',
    ]);
  });
});

describe('attribution at a real run\'s own OOM (a recorded history)', () => {
  it('reads the live set just before it, and explains it against what the real allocator held', () => {
    const A = 0x7f0000000000;
    const file = writeSnapshot({
      segments: [segment({ address: A, blocks: [{ size: 2 * MiB, frames: fwdB }, { size: 18 * MiB, state: 'inactive' }] })],
      device_traces: [[entry('segment_alloc', A, 20 * MiB), entry('alloc', A, 2 * MiB, { frames: fwdB }), entry('oom', 5 * MiB, 40 * MiB)]],
      allocator_settings: settings(),
    });
    const r = runCli(['replay', file, '--allocator', 'recorded', '--format', 'json', '--allow-oom']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.ooms[0]).toMatchObject({ event: 1, recorded: true, sizeBytes: 40 * MiB });
    expect(j.attribution.ooms[0]).toMatchObject({ event: 0, liveBytes: 2 * MiB, top: [{ key: '/work/train/model.py:10:forward', bytes: 2 * MiB, count: 1 }] });
    expect(j.ooms[0].explanation).toMatch(/^Before event 1 the real run's request for 40\.00 MiB failed \(recorded in the history\) with 2\.00 MiB live in 1 allocation\. /);
    expect(j.ooms[0].explanation).toContain('exceeds the limit of 25.00 MiB');
  });
});

const BCRAFTON = join(SHARED_TRACES, 'pytorch', 'bcrafton_memory_snapshot.pickle');
const present = existsSync(BCRAFTON);
if (!present) console.warn(`real PyTorch snapshot not found at ${BCRAFTON}: the attribution test on it is skipped`);

/**
 * The innermost frame of a raw stack that is Python outside torch's own code (its installed package,
 * and the kernels TorchInductor generates into its `torchinductor_<user>` cache), as `file:line:name`.
 */
function innermostUserFrame(frames: { filename: string; line: number; name: string }[]): string | undefined {
  const f = frames.find((x) => x.filename.endsWith('.py') && !/[\\/]site-packages[\\/]torch[\\/]|[\\/]torchinductor_/.test(x.filename));
  return f ? `${f.filename}:${f.line}:${f.name}` : undefined;
}

describe.skipIf(!present)('attribution on a real snapshot', () => {
  it('the top frames at the peak equal a computation from the raw file', () => {
    const { report } = replay(readTrace(BCRAFTON), { allocator: 'caching', attribution: { top: 1000 } });
    const peak = report.attribution!.peakLive!;
    // Independently: walk the file's own trace entries up to the peak, keeping each live block's
    // size and frames by address; the blocks live when the window opened are the rest of the live bytes.
    const raw = toPlain(unpickle(readFileSync(BCRAFTON), BCRAFTON)) as { device_traces: { action: string; addr: number; size: number; frames: { filename: string; line: number; name: string }[] }[][] };
    const entries = raw.device_traces[0]!.filter((e) => e.action === 'alloc' || e.action === 'free_completed');
    const t = readTrace(BCRAFTON);
    const live = new Map<number, { size: number; key: string }>();
    const initialFreed = new Map<number, number>();
    for (const e of entries.slice(0, peak.event - t.initialEvents + 1)) {
      if (e.action === 'alloc') live.set(e.addr, { size: e.size, key: innermostUserFrame(e.frames) ?? '(no user frame)' });
      else if (live.has(e.addr)) live.delete(e.addr);
      else initialFreed.set(e.addr, e.size);
    }
    const byKey = new Map<string, number>();
    for (const { size, key } of live.values()) byKey.set(key, (byKey.get(key) ?? 0) + size);
    const windowBytes = [...live.values()].reduce((s, x) => s + x.size, 0);
    const initialBytes = t.summary.peakLiveBytes - windowBytes;
    byKey.set('(live when the window opened)', initialBytes);
    const expected = [...byKey.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    expect(peak.top.map((h) => [h.key, h.bytes])).toEqual(expected);
    expect(peak.liveBytes).toBe(t.summary.peakLiveBytes);
    expect(peak.top[0]).toMatchObject({ key: '(live when the window opened)', count: 447 - initialFreed.size });
  });
});
