import { describe, expect, it } from 'vitest';
import { compareBenchEntries, renderCompareMarkdown, renderCompareText } from '../../src/report/index.js';
import { compareWithBaseline, parseBaseline } from '../../src/sweep/compare-baseline.js';
import { compareTrace, type CompareReport } from '../../src/sweep/compare.js';
import { plannerContenders, registerContenderProvider } from '../../src/sweep/contenders.js';
import { UsageError } from '../../src/errors.js';
import type { Trace } from '../../src/trace/model.js';
import { alloc, free, KiB, MiB, traceFromEvents } from '../helpers.js';

// A stand-in for src/planners: `fake` needs an arena of the peak live bytes plus 64 alignment units;
// `declines` gives up on every trace, as a strategy does on a problem too large for it.
let planCalls = 0;
const fakePlan = (t: Trace, strategy: string, { alignmentBytes }: { alignmentBytes: number }) =>
  ++planCalls && strategy === 'fake'
    ? { totalBytes: t.summary.peakLiveBytes + 64 * alignmentBytes, lowerBoundBytes: t.summary.peakLiveBytes }
    : { totalBytes: null, lowerBoundBytes: 0, status: 'skipped' as const, reason: 'too large for this strategy' };
registerContenderProvider(plannerContenders(fakePlan, ['fake', 'declines']));

const mixed = traceFromEvents([alloc('a', 1000), alloc('b', 3 * MiB), free('a'), free('b')]);
const run = async (o: Parameters<typeof compareTrace>[1]) => (await compareTrace(mixed, { jobs: 1, allocators: ['naive'], ...o })).report;
const firstLine = (s: string) => s.split('\n')[0];
/** A report as a baseline file holds it (a JSON round trip). */
const asBaseline = (r: CompareReport) => parseBaseline(JSON.parse(JSON.stringify(r)), 'base.json');

describe('compare reports', () => {
  it('markdown starts with ✅ fits, then the table, then collapsed details', async () => {
    const md = renderCompareMarkdown(await run({ minCapacity: true }));
    const lines = md.split('\n');
    expect(lines[0]).toBe('**✅ fits**: the allocator fits (unlimited capacity); best `naive`: peak reserved 4.00 MiB, +33.32% over the lower bound 3.00 MiB');
    expect(lines[2]).toBe('Trace `<events>`: 4 events, 1 step; unlimited capacity; minimum capacity in steps of 1 MiB.');
    expect(lines[4]).toBe('| # | allocator | peak reserved | vs lower bound | utilization | internal frag | external frag | device calls | OOMs | min capacity |');
    expect(lines[6]).toBe('|  | lower bound (peak live) | 3.00 MiB |  |  |  |  |  |  | 4 MiB |');
    expect(lines[7]).toBe('| 1 | naive | 4.00 MiB | +33.32% | 75.0% | 25.0% | 0.0% | 2 / 2 | 0 | 5 MiB |');
    expect(md.match(/<details>/g)?.length).toBe(md.match(/<\/details>/g)?.length);
    expect(md).not.toContain('<details open');
    expect(md).toContain('<details><summary>Minimum capacity search</summary>');
  });

  it('markdown starts with ❌ OOM when a row runs out of memory', async () => {
    const md = renderCompareMarkdown(await run({ capacityBytes: 4 * MiB }));
    expect(firstLine(md)).toBe('**❌ OOM**: 1 of 1 allocator ran out of memory at capacity 4.00 MiB: `naive` (fragmentation)');
    expect(md).toContain('<details><summary>`naive`: OOM at event 1 (line 2) — fragmentation</summary>');
    expect(md).toContain('cudaMalloc(4194304) failed: cudaErrorMemoryAllocation: out of memory');
  });

  it('markdown starts with 📈 regressed when a figure is worse than allowed, and says both when OOM too', async () => {
    const before = await run({ options: { naive: { page: '64KiB' } } });
    const after = await run({});
    after.baseline = compareWithBaseline(after, asBaseline(before), 'base.json', 0.05);
    expect(firstLine(renderCompareMarkdown(after))).toBe(
      '**📈 regressed** vs baseline: `naive` peak reserved 3.00 MiB -> 4.00 MiB (+33.32%) · **✅ fits**: the allocator fits (unlimited capacity); best `naive`: peak reserved 4.00 MiB, +33.32% over the lower bound 3.00 MiB',
    );
    const oom = await run({ capacityBytes: 4 * MiB });
    oom.baseline = compareWithBaseline(oom, asBaseline(before), 'base.json', 0);
    expect(firstLine(renderCompareMarkdown(oom))).toBe(
      '**❌ OOM**: 1 of 1 allocator ran out of memory at capacity 4.00 MiB: `naive` (fragmentation) · **📈 regressed** vs baseline: `naive` OOM count 0 -> 1 (from none)',
    );
    expect(after.baseline.notes).toEqual(['naive: the options differ from the baseline\'s']);
  });

  it('text report shows the same status and table', async () => {
    const report = await run({ capacityBytes: 4 * MiB, minCapacity: true });
    const text = renderCompareText(report, { width: 200 });
    expect(text.split('\n')[2]).toBe('✘ OOM: 1 of 1 allocator ran out of memory at capacity 4.00 MiB: naive (fragmentation)');
    expect(text).toContain('naive: OOM at event 1 (line 2)');
    expect(text).toMatch(/│ 1 │ naive\s+│\s+1\.00 KiB │\s+– │ .* │ 1 fragmentation │\s+5 MiB │/);
    // At 100 columns (the default) the table leaves out the columns that matter least, and says so.
    const narrow = renderCompareText(report);
    expect(narrow).toContain('│ # │ allocator               │ peak reserved │ vs lower bound │ OOMs            │ min capacity │');
    expect(narrow).toMatch(/│ 1 │ naive +│ +1\.00 KiB │ +– │ 1 fragmentation │ +5 MiB │/);
    expect(narrow).toContain('(left out at 100 columns: utilization, internal frag, external frag, device calls; --width 158 or\n --format json shows them)');
    expect(Math.max(...narrow.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(100);
  });

  it('compares with a baseline both ways, rows added and removed', async () => {
    const r = await run({ allocators: ['naive', 'plan:fake'] });
    const base = asBaseline(r);
    base.allocators = [
      { ...base.allocators.find((a) => a.name === 'naive')!, summary: { peakReservedBytes: 5 * MiB, oomCount: 0 } },
      { name: 'gone', options: {}, summary: { peakReservedBytes: 1, oomCount: 0 }, minCapacityBytes: null },
    ];
    const c = compareWithBaseline(r, base, 'base.json', 0);
    expect(c.changes.filter((x) => x.allocator === 'naive').map((x) => [x.figure, x.direction, x.delta])).toEqual([
      ['peakReservedBytes', 'better', 4 * MiB + KiB - 5 * MiB],
      ['oomCount', 'same', 0],
    ]);
    expect([c.regressions, c.improvements, c.added, c.removed]).toEqual([0, 1, ['plan:fake'], ['gone']]);
    expect(() => parseBaseline({ schema: 'memsim.compare/1', allocators: [{ name: 'x' }] }, 'b.json')).toThrow(UsageError);
  });

  it('bench-json lists the lower bound and each row by name, smaller is better', async () => {
    const r = await run({ allocators: ['plan:fake', 'naive'], minCapacity: true, capacityStepBytes: KiB });
    const live = 1000 + 3 * MiB;
    expect(compareBenchEntries(r)).toEqual([
      { name: 'lower bound (peak live)', unit: 'bytes', value: live },
      { name: 'naive peak reserved', unit: 'bytes', value: 4 * MiB + KiB },
      { name: 'naive min capacity', unit: 'bytes', value: 4 * MiB + KiB },
      { name: 'plan:fake peak reserved', unit: 'bytes', value: live + 64 },
      { name: 'plan:fake min capacity', unit: 'bytes', value: Math.ceil((live + 64) / KiB) * KiB },
    ]);
  });
});

describe('planner rows', () => {
  it('are not in the default set: all means the online allocators', async () => {
    planCalls = 0;
    const { report } = await compareTrace(mixed, { jobs: 1 });
    expect(report.allocators.some((a) => a.kind === 'planner')).toBe(false);
    expect(report.skipped.some((x) => x.name.startsWith('plan:'))).toBe(false);
    expect(report.allocators.map((a) => a.name)).toContain('naive');
    expect(planCalls).toBe(0);
    expect(report.notes).toEqual([]);
  });

  it('run when named, with their arena as peak reserved and minimum capacity', async () => {
    planCalls = 0;
    const { report } = await compareTrace(mixed, {
      jobs: 1,
      allocators: ['naive', 'plan:fake', 'plan:declines', 'plan:greedy-by-size'],
      minCapacity: true,
      capacityStepBytes: 512,
      options: { 'plan:fake': { alignment: '1KiB' } },
    });
    const plan = report.allocators.find((a) => a.name === 'plan:fake')!;
    const live = 1000 + 3 * MiB;
    expect(plan.kind).toBe('planner');
    expect(plan.options).toEqual({ alignment: KiB });
    expect(plan.summary.peakReservedBytes).toBe(live + 64 * KiB);
    expect(plan.minCapacityBytes).toBe(Math.ceil((live + 64 * KiB) / 512) * 512);
    expect(plan.replays).toBe(3);
    // One plan per row (fake and declines), however many capacities the search tries.
    expect(planCalls).toBe(2);
    // Ranked by their arena: below naive's 4 MiB + 1 KiB (the real plan:greedy-by-size is exact).
    const order = report.allocators.map((a) => a.name);
    expect(order).toEqual(['plan:greedy-by-size', 'plan:fake', 'naive']);
    // A strategy that declines the trace is listed as skipped, with its reason.
    expect(report.skipped).toEqual([{ name: 'plan:declines', reason: 'too large for this strategy' }]);
    // Labelled as offline bounds in every format: the note (JSON, text, Markdown, HTML) and the table's cell.
    expect(report.notes).toEqual([
      'rows marked "offline bound" (plan:*) are offline plans: the planner saw every size and lifetime of the trace ahead, ' +
        'as no allocator serving requests in order can; they bound what is possible and are not allocators to run',
    ]);
    const text = renderCompareText(report);
    expect(text).toMatch(/│ 1 │ plan:greedy-by-size \(offline bound\)\s+│\s+3\.00 MiB │/);
    expect(text).toMatch(/│ 3 │ naive\s+│/);
    // The best the status line names is the best allocator one can run.
    expect(text.split('\n')[2]).toBe('✔ fits: all 3 allocators fit (unlimited capacity); best naive: peak reserved 4.00 MiB, +33.32% over the lower bound 3.00 MiB');
    const md = renderCompareMarkdown(report);
    expect(md).toContain('| 1 | plan:greedy-by-size (offline bound) | 3.00 MiB |');
    expect(md.split('\n')[0]).toContain('best `naive`');
    expect(md).toContain('> rows marked "offline bound" (plan:*)');
  });

  it('OOM when the arena exceeds the capacity, by capacity or by their own overhead', async () => {
    const live = 1000 + 3 * MiB;
    const tight = (await run({ allocators: ['plan:fake'], capacityBytes: live + 10 })).allocators[0]!;
    expect(tight.firstOom).toMatchObject({ kind: 'fragmentation', sizeBytes: live + 64 });
    const small = (await run({ allocators: ['plan:fake'], capacityBytes: live - 1 })).allocators[0]!;
    expect(small.firstOom?.kind).toBe('capacity');
    await expect(run({ allocators: ['plan:fake'], options: { 'plan:fake': { spacing: 1 } } })).rejects.toThrow(/plan:fake has no option "spacing"/);
  });
});
