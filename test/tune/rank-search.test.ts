import { describe, expect, it } from 'vitest';
import { searchSpace } from '../../src/sweep/search.js';
import { buildSpaces, makePoint, type Point, pointName } from '../../src/sweep/space.js';
import { compareRows, naturalCompare, rankRows, recommend, shortfall } from '../../src/sweep/tune-rank.js';
import type { TuneRow } from '../../src/sweep/tune-types.js';
import { alloc, free, GiB, traceFromEvents } from '../helpers.js';

const row = (name: string, o: Partial<TuneRow> = {}): TuneRow => ({
  rank: 0, name, allocator: name.replace(/\[.*$/, ''), options: {}, current: false, reference: false, fits: true,
  minCapacityBytes: 10 * GiB, peakReservedBytes: 10 * GiB, oomCount: 0, oomKind: null, deviceAllocCalls: 5, deviceFreeCalls: 0,
  setting: `set ${name}`, changes: [{ key: 'k', from: 0, to: 1 }], replays: 3, start: null, ...o,
});
const order = ['caching', 'bfc', 'naive'];
const ranked = (rows: TuneRow[]) => rankRows(rows, order).map((r) => r.name);

describe('ranking', () => {
  it('fits at the capacity first, then lowest minimum capacity, peak reserved, device calls', () => {
    expect(ranked([
      row('caching[a=1]', { fits: false, minCapacityBytes: 1 * GiB }),
      row('caching[a=2]', { minCapacityBytes: 9 * GiB, peakReservedBytes: 12 * GiB }),
      row('caching[a=3]', { minCapacityBytes: 9 * GiB, peakReservedBytes: 11 * GiB, deviceAllocCalls: 9 }),
      row('caching[a=4]', { minCapacityBytes: 9 * GiB, peakReservedBytes: 11 * GiB, deviceAllocCalls: 4, deviceFreeCalls: 4 }),
      row('caching[a=5]', { minCapacityBytes: null }),
    ])).toEqual(['caching[a=4]', 'caching[a=3]', 'caching[a=2]', 'caching[a=5]', 'caching[a=1]']);
  });

  it('breaks ties: the current configuration, then fewer changes, then allocator order, then names with numbers as numbers', () => {
    const two = [{ key: 'a', from: 0, to: 1 }, { key: 'b', from: 0, to: 1 }];
    expect(ranked([
      row('caching[m=128]'),
      row('bfc[g=true]'),
      row('caching[m=64]'),
      row('caching[m=64,r=2]', { changes: two }),
      row('caching', { current: true, changes: [] }),
    ])).toEqual(['caching', 'caching[m=64]', 'caching[m=128]', 'bfc[g=true]', 'caching[m=64,r=2]']);
    expect(naturalCompare('x=1024', 'x=64')).toBe(1);
    expect(naturalCompare('x=64', 'x=64,y')).toBe(-1);
    expect(naturalCompare('a', 'a')).toBe(0);
    expect(compareRows(row('caching[m=64]'), row('caching[m=64]'), order)).toBe(0);
  });

  it('recommends the best row that can be tuned, set against its own allocator\'s current row', () => {
    const rows = rankRows([
      row('naive', { reference: true, minCapacityBytes: 1 * GiB, changes: [], setting: null }),
      row('caching', { current: true, changes: [], minCapacityBytes: 12 * GiB, peakReservedBytes: 13 * GiB, fits: false }),
      row('caching[expandable_segments=true]', { minCapacityBytes: 9 * GiB, peakReservedBytes: 10 * GiB }),
    ], order);
    const rec = recommend(rows);
    expect(rec).toMatchObject({
      name: 'caching[expandable_segments=true]', allocator: 'caching', fits: true, isCurrent: false,
      savingBytes: 3 * GiB, minCapacitySavingBytes: 3 * GiB,
      current: { name: 'caching', fits: false, minCapacityBytes: 12 * GiB, peakReservedBytes: 13 * GiB },
    });
    expect(recommend(rankRows([row('naive', { reference: true })], order))).toBeNull();
  });

  it('when nothing fits: the smallest capacity any configuration needs, capacity or fragmentation', () => {
    const rows = rankRows([row('caching', { fits: false, minCapacityBytes: 12 * GiB }), row('caching[a=1]', { fits: false, minCapacityBytes: 11 * GiB })], order);
    expect(shortfall(rows, 10 * GiB, 9 * GiB)).toEqual({ smallestMinCapacityBytes: 11 * GiB, smallestBy: 'caching[a=1]', kind: 'fragmentation' });
    expect(shortfall(rows, 10 * GiB, 10 * GiB + 1)?.kind).toBe('capacity');
    expect(shortfall(rows, null, 9 * GiB)).toBeNull();
  });
});

describe('the search of spaces over 64 points', () => {
  const trace = traceFromEvents([alloc('a', 1024), free('a')]);
  // 2 × 7 × 5 × 3 = 210 points; a made-up score with one best point, found only by combining keys.
  const [space] = buildSpaces(trace, ['caching'], []);
  space!.keys = [
    { key: 'expandable_segments', values: ['false', 'true'] },
    { key: 'max_split_size_mb', values: ['none', '64', '128', '256', '512', '1024', '2048'] },
    { key: 'roundup_power2_divisions', values: ['off', '2', '4', '8', '16'] },
    { key: 'max_non_split_rounding_mb', values: ['20', '40', '80'] },
  ];
  const score = (p: Point): number => {
    const es = p['expandable_segments'] === 'true' ? 1 : 0;
    const ms = p['max_split_size_mb'] === '256' ? 1 : 0;
    const rd = p['roundup_power2_divisions'] === '4' ? 1 : 0;
    const nr = p['max_non_split_rounding_mb'] === '40' ? 1 : 0;
    // each key helps a little alone; expandable segments and the split size help most together
    return 100 - 3 * es - 2 * ms - rd - nr - 10 * es * ms;
  };
  const run = async () => {
    const tried: string[] = [];
    const evaluate = async (points: Point[]) =>
      points.map((p) => {
        const name = pointName(space!, p);
        if (!tried.includes(name)) tried.push(name);
        return row(name, { minCapacityBytes: score(p) * GiB, changes: Object.keys(p).map((key) => ({ key, from: null, to: p[key] })), current: Object.keys(p).length === 0 });
      });
    await searchSpace(space!, { evaluate, compare: (a, b) => compareRows(a, b, order) });
    return tried;
  };

  it('finds the best point in far fewer replays than the grid, the same points every time', async () => {
    const tried = await run();
    const best = pointName(space!, makePoint(space!, { expandable_segments: 'true', max_split_size_mb: '256', roundup_power2_divisions: '4', max_non_split_rounding_mb: '40' }));
    expect(best).toBe('caching[expandable_segments=true,max_split_size_mb=256,roundup_power2_divisions=4,max_non_split_rounding_mb=40]');
    expect(tried).toContain(best);
    // Each key alone first: the current point and 1 + 6 + 4 + 2 other values.
    expect(tried.slice(0, 14).every((n) => !n.includes(','))).toBe(true);
    expect(tried.slice(0, 14).filter((n) => n.includes('expandable_segments'))).toEqual(['caching[expandable_segments=true]']);
    expect(tried[14]).toContain(',');
    expect(tried.length).toBeLessThan(60);
    expect(await run()).toEqual(tried);
  });
});
