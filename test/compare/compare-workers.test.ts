import { describe, expect, it } from 'vitest';
import { renderJson } from '../../src/report/index.js';
import { compareTrace } from '../../src/sweep/compare.js';
import { defaultWorkerUrl, startWorkersEarly } from '../../src/sweep/pool.js';
import { allocatorContender } from '../../src/sweep/contender-allocator.js';
import type { Contender } from '../../src/sweep/contender.js';
import { getAllocator } from '../../src/allocators/index.js';
import { shareTrace } from '../../src/sweep/shared-trace.js';
import { claim, ClaimBoard } from '../../src/sweep/claims.js';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { alloc, free, KiB, traceFromEvents, type EventObject } from '../helpers.js';
import { NAIVE_COPIES, registerNaiveCopies } from './fakes.js';

registerNaiveCopies();

/** A reproducible trace of `n` allocations with mixed sizes and lifetimes (a small LCG). */
function randomTrace(n: number, seed: number) {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const events: EventObject[] = [];
  const live: number[] = [];
  for (let i = 0; i < n; i++) {
    const size = next() < 0.2 ? Math.floor(next() * 8 * 1024 * KiB) : Math.floor(next() * 64 * KiB);
    events.push(alloc(i, size, { step: Math.floor(i / 100) }));
    live.push(i);
    while (live.length > 0 && next() < 0.45) {
      const k = Math.floor(next() * live.length);
      events.push(free(live[k] as number, { step: Math.floor(i / 100) }));
      live.splice(k, 1);
    }
  }
  return traceFromEvents(events);
}

const workerUrl = defaultWorkerUrl();
const modules = [new URL('./naive-copies.mjs', import.meta.url).href];
const rows = ['naive', ...NAIVE_COPIES];
const options = { 'naive-b': { page: '64KiB' }, 'naive-c': { page: '4MiB' }, 'naive-d': { alignment: '4KiB' } };
if (!workerUrl) console.warn('compare-workers: dist/sweep/worker.js is not built (npm run build): worker runs are skipped');

describe.skipIf(!workerUrl)('compare on worker threads', () => {
  it('gives byte-identical JSON in one thread and on 2, 3 or 4 workers, whatever the row order', async () => {
    const trace = randomTrace(3000, 7);
    const base = { options, minCapacity: true, capacityStepBytes: 64 * KiB, workerModules: modules };
    const single = await compareTrace(trace, { ...base, allocators: rows, jobs: 1 });
    expect(single.execution.mode).toBe('in-thread');
    const expected = renderJson(single.report);
    for (const [jobs, order] of [[2, rows], [3, [...rows].reverse()], [4, [rows[2], rows[0], rows[3], rows[1]]]] as const) {
      const { report, execution } = await compareTrace(trace, { ...base, allocators: order as string[], jobs });
      expect(execution).toEqual({ mode: 'workers', threads: jobs });
      expect(renderJson(report)).toBe(expected);
    }
    // The rows differ (other page sizes), so that equal output is not an accident of equal rows.
    expect(new Set(single.report.allocators.map((r) => r.summary.peakReservedBytes)).size).toBeGreaterThan(1);
  });

  it('reports OOMs from workers exactly as in one thread, ids and all', async () => {
    const trace = randomTrace(3000, 11);
    // At the lower bound itself, every row with any rounding runs out of memory somewhere.
    const base = { allocators: rows, options, capacityBytes: trace.summary.peakLiveBytes, onOom: 'continue' as const, workerModules: modules };
    const single = await compareTrace(trace, { ...base, jobs: 1 });
    const multi = await compareTrace(trace, { ...base, jobs: 2 });
    expect(multi.execution.mode).toBe('workers');
    expect(renderJson(multi.report)).toBe(renderJson(single.report));
    const oom = multi.report.allocators.find((r) => r.firstOom !== null)?.firstOom;
    expect(oom?.id).toBe(trace.ids.get(trace.alloc[oom!.event] as number));
  });

  it('runs the default rows on the bundled worker entry (no module named) as in one thread', async () => {
    const bundled = new URL('../../dist/worker-bundle/start.cjs', import.meta.url);
    expect(existsSync(fileURLToPath(bundled))).toBe(true);
    const trace = randomTrace(3000, 13);
    // The rows of `all` here would include this file's copies of naive, which that registry lacks.
    const base = { allocators: ['naive', 'caching', 'lifetime-pool', 'bfc'], minCapacity: true, capacityStepBytes: 64 * KiB };
    const single = await compareTrace(trace, { ...base, jobs: 1 });
    const multi = await compareTrace(trace, { ...base, jobs: 3 });
    expect(multi.execution).toEqual({ mode: 'workers', threads: 3 });
    expect(renderJson(multi.report)).toBe(renderJson(single.report));
    expect(new Set(single.report.allocators.map((r) => r.summary.peakReservedBytes)).size).toBeGreaterThan(1);
  });

  it('shares the trace columns with the workers instead of copying them', () => {
    const trace = randomTrace(200, 3);
    const shared = shareTrace(trace);
    for (const col of [shared.op, shared.alloc, shared.size, shared.step, shared.allocEvent, shared.freeEvent]) {
      expect(col.buffer).toBeInstanceOf(SharedArrayBuffer);
    }
    expect([...shared.size]).toEqual([...trace.size]);
    // Columns in shared memory already are not copied again.
    expect(shareTrace({ ...trace, size: shared.size }).size).toBe(shared.size);
    // The ids cross as their columns, which a worker reads without the lookup tables.
    expect(shared.ids.length).toBe(trace.ids.length);
    expect(shared.ids.values?.buffer ?? shared.ids.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('takes workers started before the trace was read, and gives the same report', async () => {
    const early = startWorkersEarly({ jobs: 3, workerModules: modules });
    expect(early?.threads).toBe(3);
    const trace = randomTrace(3000, 5);
    const base = { allocators: rows, options, minCapacity: true, capacityStepBytes: 64 * KiB, workerModules: modules };
    const single = await compareTrace(trace, { ...base, jobs: 1 });
    // Two threads asked: the third early worker is stopped, the other two run the rows.
    const { report, execution } = await compareTrace(trace, { ...base, jobs: 2, ...(early ? { early } : {}) });
    expect(execution).toEqual({ mode: 'workers', threads: 2 });
    expect(early?.threads).toBe(2);
    expect(renderJson(report)).toBe(renderJson(single.report));
  });

  it('stops workers started early when the trace turns out small, and runs it in this thread', async () => {
    const early = startWorkersEarly({ jobs: 2 });
    const trace = traceFromEvents([alloc('a', 100), free('a')]);
    const auto = await compareTrace(trace, { allocators: ['naive'], ...(early ? { early } : {}) });
    expect(auto.execution.mode).toBe('in-thread');
    await expect(early!.submit({ contender: { name: 'naive', given: {} }, capacityBytes: Infinity, onOom: 'stop', search: null })).rejects.toThrow(/closed pool/);
  });

  it('turns a failing worker into an error, not a hang', async () => {
    const trace = randomTrace(50, 1);
    const failing = `data:text/javascript,${encodeURIComponent('throw new Error("worker setup exploded")')}`;
    await expect(compareTrace(trace, { allocators: ['naive', 'naive-b'], jobs: 2, workerModules: [failing] })).rejects.toThrow(/worker setup exploded/);
  });
});

describe('compare without workers', () => {
  it('runs in this thread when asked for one job or when no worker entry is given', async () => {
    const trace = traceFromEvents([alloc('a', 100), free('a')]);
    const one = await compareTrace(trace, { allocators: rows, jobs: 1 });
    expect(one.execution).toEqual({ mode: 'in-thread', threads: 1 });
    const none = await compareTrace(trace, { allocators: rows, jobs: 2, workerUrl: null });
    expect(none.execution.mode).toBe('in-thread');
    expect(none.execution.reason).toMatch(/no built worker entry/);
    expect(renderJson(none.report)).toBe(renderJson(one.report));
  });
});

describe('compare starts the costliest rows first', () => {
  it('submits rows by their relative cost, highest first, and reports them by rank as always', async () => {
    const trace = traceFromEvents([alloc('a', 100), alloc('b', 300), free('a'), free('b')]);
    const ran: string[] = [];
    const row = (name: string, relativeCost: number | undefined): Contender => {
      const c = allocatorContender(getAllocator('naive'), {}, trace);
      return { ...c, name, ...(relativeCost !== undefined ? { relativeCost } : {}), run: (t, cap, onOom) => (ran.push(name), c.run(t, cap, onOom)) };
    };
    const { report } = await compareTrace(trace, { allocators: [], contenders: [row('cheap', undefined), row('dear', 5), row('middling', 2.5)] });
    expect(ran).toEqual(['dear', 'middling', 'cheap']);
    expect(report.allocators.map((e) => e.name)).toEqual(['cheap', 'dear', 'middling']);
  });
});

describe('compare picks its threads', () => {
  it('runs a small trace in this thread unless jobs are asked for', async () => {
    const trace = traceFromEvents([alloc('a', 100), free('a')]);
    const auto = await compareTrace(trace, { allocators: rows });
    expect(auto.execution.mode).toBe('in-thread');
    expect(auto.execution.reason).toMatch(/small trace/);
    if (workerUrl) expect((await compareTrace(trace, { allocators: rows, jobs: 2, workerModules: modules })).execution.mode).toBe('workers');
  });
});

describe('the claims of a pool\'s jobs', () => {
  it('let exactly one thread take each job, past the first block of claims too', () => {
    const board = new ClaimBoard();
    for (const index of [0, 1, 1023, 1024, 5000]) {
      expect(claim(board.at(index))).toBe(true);
      expect(claim(board.at(index))).toBe(false);
    }
    expect(claim(board.at(2))).toBe(true);
    expect(board.at(1024).claims).not.toBe(board.at(0).claims);
  });
});
