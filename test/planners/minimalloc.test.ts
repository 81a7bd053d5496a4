/**
 * minimalloc's benchmarks (../shared/traces/minimalloc, google/minimalloc @9f5cf81): the README
 * example fits in 12, and the challenging A and B in 1,048,576 (their offsets lower bound).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkObjects, checkOffsets, type PlanResultOk, readRecordsCsv, runPlan } from '../../src/planners/index.js';
import { SHARED_TRACES } from '../helpers.js';

const dir = join(SHARED_TRACES, 'minimalloc');
const have = existsSync(dir);
if (!have) console.warn(`skipping minimalloc benchmark tests: ${dir} is absent`);

describe.skipIf(!have)('minimalloc benchmarks', () => {
  it('input.12: every strategy valid; best packs it in 12, proven', () => {
    const r = readRecordsCsv(join(dir, 'input.12.csv'), 'minimalloc-csv');
    const report = runPlan(r);
    expect(report.lowerBounds).toEqual({ offsetsBytes: 12, objectsBytes: 12 });
    const best = report.results[0];
    expect(best).toMatchObject({ strategy: 'best', totalBytes: 12, proven: true });
    for (const x of report.results) {
      if (x.status !== 'ok') continue;
      if (x.offsets) expect(checkOffsets(r, x.offsets, x.totalBytes)).toBeNull();
      else expect(checkObjects(r, { objectIds: Int32Array.from(x.objectIds ?? []), objectSizes: x.objectSizes ?? [] })).toBeNull();
    }
    // naive needs one object per buffer: 5 x 4.
    expect(report.results.find((x) => x.strategy === 'naive')).toMatchObject({ totalBytes: 20 });
  });

  it.each(['A', 'B'])('%s.1048576: lower bound 1,048,576; every plan valid and above it', (name) => {
    const r = readRecordsCsv(join(dir, `${name}.1048576.csv`), 'minimalloc-csv');
    // A small node budget: these checks are about the heuristics.
    const report = runPlan(r, { nodeBudget: 2_000 });
    expect(report.lowerBounds.offsetsBytes).toBe(1_048_576);
    const greedyOffsets = report.results.find((x) => x.strategy === 'greedy-by-size' && x.kind === 'offsets');
    const best = report.results.find((x) => x.strategy === 'best');
    if (best?.status !== 'ok' || greedyOffsets?.status !== 'ok') throw new Error('missing results');
    expect(best.totalBytes).toBeGreaterThanOrEqual(1_048_576);
    expect(best.totalBytes).toBeLessThanOrEqual(greedyOffsets.totalBytes);
    for (const x of report.results) {
      if (x.status !== 'ok') continue;
      expect(x.totalBytes).toBeGreaterThanOrEqual(1_048_576);
      if (x.offsets) expect(checkOffsets(r, x.offsets, x.totalBytes)).toBeNull();
      else expect(checkObjects(r, { objectIds: Int32Array.from(x.objectIds ?? []), objectSizes: x.objectSizes ?? [] })).toBeNull();
    }
  });

  // minimalloc at 9f5cf81 (its defaults, --capacity=1048576) visits 116,412 nodes on A and 102,692
  // on B before its first packing; the same search here (canonical order, dominance, section
  // inference, unallocated floors, hatless pruning, decomposition with sub-problems re-sorted as
  // its SubSolve, WAT/TAW/TWA round robin) should visit as many.
  it.each([
    ['A', 116_412],
    ['B', 102_692],
  ])('%s.1048576 at capacity 1,048,576: found after about as many nodes as minimalloc (%i)', (name, minimallocNodes) => {
    const r = readRecordsCsv(join(dir, `${name}.1048576.csv`), 'minimalloc-csv');
    const best = runPlan(r, { strategy: 'best', capacityBytes: 1_048_576 }).results[0] as PlanResultOk;
    expect([best.totalBytes, best.search?.status, best.from]).toEqual([1_048_576, 'found', 'exact search']);
    expect(checkOffsets(r, best.offsets ?? [], best.totalBytes)).toBeNull();
    expect(Math.abs((best.search?.nodes ?? 0) - minimallocNodes) / minimallocNodes).toBeLessThan(0.02);
  });

  it.each(['A', 'B'])('%s.1048576 with default options: best reaches the lower bound, proven, valid', (name) => {
    const r = readRecordsCsv(join(dir, `${name}.1048576.csv`), 'minimalloc-csv');
    const best = runPlan(r, { strategy: 'best' }).results[0] as PlanResultOk;
    expect([best.totalBytes, best.proven, best.search?.status]).toEqual([1_048_576, true, 'lower-bound']);
    expect(checkOffsets(r, best.offsets ?? [], best.totalBytes)).toBeNull();
  });
});
