import { describe, expect, it } from 'vitest';
import { replay } from '../../src/sim/run.js';
import { readTrace } from '../../src/trace/read.js';
import { runCli } from '../helpers.js';
import { entry, frame, MiB, segment, settings, writeSnapshot } from '../pytorch/snapshot-helpers.js';

const SEG = 0x7f0000000000;
const model = [frame('/work/train/model.py', 10, 'forward')];
const optim = [frame('/work/train/optim.py', 5, 'step')];

// When the window opens, a 20 MiB segment holds 2 MiB (model.py) and 4 MiB (optim.py), both live
// since before it; in the window the 4 MiB block is freed and 3 MiB allocated in its place. The
// segment is reserved all along: the peak of reserved bytes is the state when the window opened.
const snap = {
  segments: [segment({ address: SEG, blocks: [{ size: 2 * MiB, frames: model }, { size: 3 * MiB, frames: model }, { size: 15 * MiB, state: 'inactive' }] })],
  device_traces: [[entry('free_requested', SEG + 2 * MiB, 4 * MiB, { frames: optim }), entry('free_completed', SEG + 2 * MiB, 4 * MiB, { frames: optim }), entry('alloc', SEG + 2 * MiB, 3 * MiB, { frames: model })]],
  allocator_settings: settings(),
};

describe('a peak that the state when the window opened equals', () => {
  const file = writeSnapshot(snap);

  it('is placed at the opening, with all of that state as its holders, not at the first event that rebuilds it', () => {
    const t = readTrace(file);
    expect(t.initialEvents).toBe(2);
    const { report } = replay(t, { allocator: 'caching' });
    expect(report.start?.mode).toBe('recorded');
    expect(report.summary.peakReservedBytes).toBe(20 * MiB);
    // Reserved from the first event on: without the rule it was placed at event 0, with 2 of the 6 MiB live.
    expect(report.summary.peakReservedEvent).toBe(1);
    const held = report.attribution!.peakReserved!;
    expect(held.event).toBe(1);
    expect(held.liveBytes).toBe(6 * MiB);
    // The block still live at the dump keeps its frames; the one freed in the window has none.
    expect(held.top.map((h) => [h.key, h.bytes / MiB, h.count])).toEqual([
      ['(live when the window opened)', 4, 1],
      ['/work/train/model.py:10:forward', 2, 1],
    ]);
    // Fragmentation at the peak of reserved bytes is that of the opening's state: 6 MiB of 20 live,
    // the 14 MiB free in one block after them (0 then, since no block is split: the largest free
    // block is all the free bytes).
    expect(report.summary.externalFragmentation).toBe(0);
    // The peak of live bytes is the opening too (6 MiB; the window ends with 5).
    expect(report.summary.peakLiveEvent).toBe(1);
  });

  it('is not placed there when the state was not reached: an allocation that rebuilds it failed', () => {
    const t = readTrace(file);
    // The recorded allocator under a capacity below the recorded segment: every allocation fails.
    const { report } = replay(t, { allocator: 'recorded', capacityBytes: 10 * MiB, onOom: 'continue' });
    expect(report.summary.oomCount).toBeGreaterThan(0);
    expect(report.summary.peakLiveBytes).toBe(0);
    expect(report.summary.peakReservedEvent).toBe(0);
  });

  it('the text and Markdown reports say so', () => {
    const r = runCli(['replay', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/peak reserved +│ +20\.00 MiB │ event 1 \(window opened\)/);
    expect(r.stdout).toContain('held at the peak (event 1, when the window opened: peak live and peak reserved)');
    const md = runCli(['replay', file, '--format', 'markdown']);
    expect(md.stdout).toContain('Held at the peak (event 1, when the window opened: peak live and peak reserved)');
  });
});
