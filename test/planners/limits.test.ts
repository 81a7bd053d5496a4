/**
 * Planners are bounded: every strategy stops at the time limit and refuses a run over the memory
 * budget with an error that names it (exit 2 from the CLI), best answers with the candidates that ran,
 * and min-cost-flow is bounded by a work budget and never worse than greedy-by-size.
 */
import { describe, expect, it } from 'vitest';
import { makeRecords, PlanLimitError, runPlan, type PlanResultOk, type UsageRecords } from '../../src/planners/index.js';
import { minCostFlowBounded, minCostFlowObjects } from '../../src/planners/strategies/min-cost-flow.js';
import { runCli } from '../helpers.js';

/** n records one after the other (none overlaps another), sizes from a fixed pseudo-random walk. */
function sequential(n: number): { r: UsageRecords; csv: string; max: number } {
  let x = 12345;
  const sizes: number[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    sizes.push(1 + (x % 1_000_000));
  }
  const r = makeRecords(sizes.map((size, i) => ({ size, first: i, last: i })));
  return { r, csv: `size,first,last\n${sizes.map((s, i) => `${s},${i},${i}`).join('\n')}\n`, max: Math.max(...sizes) };
}

/** Records that overlap their neighbours: k live at once. */
function overlapping(n: number, k: number): UsageRecords {
  return makeRecords(Array.from({ length: n }, (_, i) => ({ size: 64 + ((i * 37) % 1000), first: i, last: i + k })));
}

const sum = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);

describe('min-cost-flow', () => {
  it("reports greedy-by-size's plan, and says so, where TFLite's flow needs many times more", () => {
    const { r, max } = sequential(60);
    const flow = minCostFlowObjects(r);
    // The flow's chains minimize growth over the previous record: far above one object of the largest size.
    expect(flow).not.toBeNull();
    const flowTotal = sum(flow?.objectSizes ?? []);
    expect(flowTotal).toBeGreaterThan(2 * max);
    const report = runPlan(r, { strategy: 'min-cost-flow' });
    const res = report.results[0] as PlanResultOk;
    // Nothing overlaps: one object of the largest size, the lower bound.
    expect(res.totalBytes).toBe(max);
    expect(res.ratioToLowerBound).toBe(1);
    expect(report.notes).toEqual([
      `min-cost-flow: TFLite's flow needs ${flowTotal.toLocaleString('en-US')} B (its reuse costs count growth over the previous record, not the object); ` +
        `the plan reported is greedy-by-size's (objects, ${max.toLocaleString('en-US')} B)`,
    ]);
  });

  it('keeps its own plan when it is as good (TFLite equal sizes)', () => {
    const r = makeRecords([
      { size: 8, first: 0, last: 1 },
      { size: 8, first: 1, last: 2 },
      { size: 8, first: 2, last: 3 },
    ]);
    const a = minCostFlowBounded(r);
    expect(a.notes).toBeUndefined();
    expect(a.objectSizes).toEqual([8, 8]);
  });

  it('abandons the flow past its work budget, deterministically, for the greedy plan', () => {
    const { r, max } = sequential(200);
    const a = minCostFlowBounded(r, undefined, 100_000);
    expect(sum(a.objectSizes)).toBe(max);
    expect(a.notes).toEqual([
      `min-cost-flow: the flow was abandoned past its work budget of 100,000 edge scans (200 records); the plan reported is greedy-by-size's (objects, ${max.toLocaleString('en-US')} B)`,
    ]);
  });
});

describe('time limit and memory budget', () => {
  // A clock that moves 1 ms at every look: the limit is passed at the first look after it.
  const ticking = () => {
    let t = 0;
    return () => (t += 1);
  };

  it.each(['greedy-by-size:offsets', 'xla-best-fit', 'xla-best-fit-temporal'])('%s stops at the time limit, naming itself', (strategy) => {
    const r = overlapping(10_000, 50);
    const name = strategy.replace(':offsets', '');
    expect(() => runPlan(r, { strategy, timeLimitMs: 1, now: ticking() })).toThrow(
      new RegExp(`^${name} \\(offsets\\): stopped by the time limit of 1 ms after 8,192 of 10,000 records \\(81%\\) \\(--time-limit\\)`),
    );
  });

  it('a strategy over the memory budget is refused before it starts, naming itself and its need', () => {
    const r = overlapping(1000, 5);
    let err: unknown;
    try {
      runPlan(r, { strategy: 'greedy-by-size:offsets', memoryBytes: 100_000 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PlanLimitError);
    expect((err as PlanLimitError).message).toBe(
      'greedy-by-size (offsets): 1,000 records need about 179.69 KiB, over the memory budget of 97.66 KiB (--memory-limit); give a larger budget or fewer strategies (--strategy)',
    );
    expect((err as PlanLimitError).limit).toBe('memory');
    // Within the budget it runs.
    expect(runPlan(r, { strategy: 'greedy-by-size:offsets', memoryBytes: 200_000 }).results[0]?.status).toBe('ok');
  });

  it('best answers with the candidates that ran within the limits, and says which did not', () => {
    // Past greedy-by-size (objects)'s limit of 10,000 records, so that only the placements read the clock.
    const r = overlapping(10_001, 50);
    const report = runPlan(r, { strategy: 'best', timeLimitMs: 1, now: ticking(), nodeBudget: 0 });
    const best = report.results[0] as PlanResultOk;
    expect(best.status).toBe('ok');
    expect(best.from).not.toMatch(/greedy-by-size \(offsets\)|xla/);
    expect(report.notes).toContain("best: greedy-by-size (offsets): stopped by the time limit of 1 ms after 8,192 of 10,001 records (81%); it is not among best's candidates");
  });

  it('the CLI exits 2 with the strategy named: min-cost-flow on 1,000 sequential records within --time-limit', () => {
    const { csv } = sequential(1000);
    const r = runCli(['plan', '-', '--strategy', 'min-cost-flow', '--time-limit', '1ms'], { input: csv });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^memsim: min-cost-flow \(objects\): stopped by the time limit of 1 ms after \d+ of 1,000 augmenting paths \(\d+%\) \(--time-limit\); give a longer limit or another --strategy\n$/);
    const m = runCli(['plan', '-', '--strategy', 'greedy-in-order', '--memory-limit', '1KiB'], { input: csv });
    expect(m.code).toBe(2);
    expect(m.stderr).toBe(
      'memsim: greedy-in-order (objects): 1,000 records need about 62.50 KiB, over the memory budget of 1.00 KiB (--memory-limit); give a larger budget or fewer strategies (--strategy)\n',
    );
  });

  it('the exact search goes as deep as a partition of its largest size (2,000 records) needs, on any call stack', () => {
    // One partition of 2,000 short-lived records over 1,500 steps (some long-lived ones tie it together):
    // the search places them one level deeper each, past what the engine's own stack takes (~1,300).
    let x = 7;
    const next = (n: number): number => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return x % n;
    };
    const lines = ['size,first,last'];
    for (let i = 0; i < 2000; i++) {
      const first = next(1501);
      const len = next(10) < 8 ? next(21) : next(500);
      lines.push(`${1 + next(1 << 20)},${first},${Math.min(1500, first + len)}`);
    }
    const r = runCli(['plan', '-', '--strategy', 'best', '--node-budget', '5000', '--format', 'json'], { input: `${lines.join('\n')}\n` });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const best = JSON.parse(r.stdout).results[0];
    expect(best).toMatchObject({ strategy: 'best', status: 'ok' });
    expect(best.search.status).not.toBe('too-large');
    expect(best.search.partitions).toBe(1);
    expect(best.search.nodes).toBeGreaterThanOrEqual(2000); // a node per record placed, at least
  });
});
