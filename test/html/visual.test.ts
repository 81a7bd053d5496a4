import { describe, expect, it } from 'vitest';
import { compareTrace } from '../../src/sweep/compare.js';
import { buildVisualReport, collectComparedRuns, collectVisualRun, sampleEvents, visualContext } from '../../src/sim/visual.js';
import { alloc, free, MiB, traceFromEvents } from '../helpers.js';

// Through naive at 8 MiB: a 1000 -> 1 KiB, b 3 MiB -> 4 MiB (pages), c 2000 -> 2 KiB; d 5 MiB -> 6 MiB
// does not fit at event 4 (4 MiB + 2 KiB held); e 1 MiB (not above the 1 MiB threshold) -> 1 MiB.
const trace = traceFromEvents([
  alloc('a', 1000, { step: 0, tag: 'x' }),
  alloc('b', 3 * MiB, { step: 0, tag: 'weights' }),
  free('a', { step: 1 }),
  alloc('c', 2000, { step: 1 }),
  alloc('d', 5 * MiB, { step: 1 }),
  free('b', { step: 2 }),
  alloc('e', MiB, { step: 2 }),
  free('d', { step: 2 }),
  free('c', { step: 2 }),
  free('e', { step: 2 }),
]);
const run = { allocator: 'naive', capacityBytes: 8 * MiB, onOom: 'continue' as const };

describe('sampleEvents', () => {
  it('spreads n events evenly, ending at the last', () => {
    expect(sampleEvents(9, 4)).toEqual([2, 4, 7, 9]);
    expect(sampleEvents(2, 5)).toEqual([0, 1, 2]);
    expect(sampleEvents(-1, 4)).toEqual([]);
    expect(sampleEvents(99, 0)).toEqual([]);
  });
});

describe('collectVisualRun', () => {
  it('captures the states at the peak, at each OOM and at evenly spaced events', () => {
    const ctx = visualContext(trace, { sampleStates: 4 });
    const { result, visual } = collectVisualRun(ctx, run);
    expect(result.report.summary.oomCount).toBe(1);
    // Peak reserved (and peak live) after event 3; the OOM's state is the one its request met.
    expect(visual.states.map((s) => [s.event, s.step, s.reason, s.oom])).toEqual([
      [2, 1, 'sample', null],
      [3, 1, 'peak-reserved', null],
      [4, 1, 'oom', 0],
      [4, 1, 'sample', null],
      [7, 2, 'sample', null],
      [9, 2, 'sample', null],
    ]);
    const [, peak, oom, , , end] = visual.states;
    expect(peak?.totals).toEqual({ segments: 2, blocks: 2, freeBlocks: 0, reservedBytes: 4 * MiB + 2048, usedBytes: 4 * MiB + 2048, requestedBytes: 3 * MiB + 2000 });
    expect(peak?.totals.reservedBytes).toBe(visual.summary.peakReservedBytes);
    expect([...(peak?.ids ?? [])].sort()).toEqual(['b', 'c']);
    expect(ctx.tags.names).toEqual(['weights']);
    expect(oom?.totals.reservedBytes).toBe(visual.ooms[0]?.reservedBytes);
    expect(oom?.totals.reservedBytes).toBe(4 * MiB + 2048);
    expect(visual.states[0]?.ids).toBeNull();
    expect(end?.totals).toEqual({ segments: 0, blocks: 0, freeBlocks: 0, reservedBytes: 0, usedBytes: 0, requestedBytes: 0 });
  });

  it('carries the replay report figures, its timeline as columns and the per-step peaks', () => {
    const { result, visual } = collectVisualRun(visualContext(trace), run);
    expect(visual.summary).toEqual(result.report.summary);
    expect(visual.kind).toBe('allocator');
    const pts = result.report.timeline.points;
    expect(visual.timeline).toEqual({ event: pts.map((p) => p[0]), live: pts.map((p) => p[1]), allocated: pts.map((p) => p[2]), reserved: pts.map((p) => p[3]) });
    expect(visual.timeline.event).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(visual.steps).toEqual({
      step: [0, 1, 2],
      live: [3 * MiB + 1000, 3 * MiB + 2000, MiB + 2000],
      allocated: [4 * MiB + 1024, 4 * MiB + 2048, MiB + 2048],
      reserved: [4 * MiB + 1024, 4 * MiB + 2048, MiB + 2048],
      groupSize: 1,
    });
  });

  it('merges consecutive steps into bars when there are more steps than bars', () => {
    const { visual } = collectVisualRun(visualContext(trace, { stepBars: 2 }), run);
    expect(visual.steps).toEqual({ step: [0, 2], live: [3 * MiB + 2000, MiB + 2000], allocated: [4 * MiB + 2048, MiB + 2048], reserved: [4 * MiB + 2048, MiB + 2048], groupSize: 2 });
  });

  it('stops its samples at the failed request when the replay stops there', () => {
    const { visual } = collectVisualRun(visualContext(trace, { sampleStates: 2 }), { ...run, onOom: 'stop' });
    // Events 0..3 have an effect; event 4 is the failed request.
    expect(visual.states.map((s) => [s.event, s.reason])).toEqual([[1, 'sample'], [3, 'peak-reserved'], [4, 'oom']]);
  });
});

describe('buildVisualReport', () => {
  it('adds the trace demand and the step marks, and is the same every time', () => {
    const build = () => {
      const ctx = visualContext(trace, { sampleStates: 4 });
      return buildVisualReport(ctx, [collectVisualRun(ctx, run).visual], { command: 'replay', capacityBytes: 8 * MiB, onOom: 'continue' });
    };
    const d = build();
    expect(d.schema).toBe('memsim.visual/1');
    expect(d.demand).toEqual({
      event: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      live: [1000, 3 * MiB + 1000, 3 * MiB, 3 * MiB + 2000, 8 * MiB + 2000, 5 * MiB + 2000, 6 * MiB + 2000, MiB + 2000, MiB, 0],
    });
    expect(d.stepMarks).toEqual({ event: [0, 2, 5], step: [0, 1, 2], isComplete: true });
    expect(d.capacityBytes).toBe(8 * MiB);
    expect(d.tags).toEqual(['weights']);
    expect(d.kinds).toEqual(['block']);
    expect(JSON.stringify(build())).toBe(JSON.stringify(d));
  });

  it('replays every allocator row of a comparison, with the comparison figures', async () => {
    const given = { 'lifetime-pool': { start_step: '1' } };
    const { report } = await compareTrace(trace, { allocators: ['naive', 'lifetime-pool'], options: given, jobs: 1, capacityBytes: 8 * MiB, onOom: 'continue' });
    const runs = collectComparedRuns(visualContext(trace), report, given);
    expect(runs.map((r) => r.name)).toEqual(report.allocators.map((e) => e.name));
    for (const r of runs) {
      const row = report.allocators.find((e) => e.name === r.name);
      expect(r.summary).toEqual(row?.summary);
      expect(r.options).toEqual(row?.options);
    }
    expect(runs.find((r) => r.name === 'lifetime-pool')?.options['start_step']).toBe(1);
  });
});
