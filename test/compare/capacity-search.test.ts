import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { searchMinCapacity } from '../../src/sweep/capacity-search.js';
import { FIXTURES, MiB, ROOT, runCli } from '../helpers.js';

const KiB = 1024;

/** A `fits` that answers from a set of grid indices (capacity / step) and counts its calls. */
function picky(step: number, fitting: (k: number) => boolean): { fits: (c: number) => boolean; calls: number[] } {
  const calls: number[] = [];
  return {
    calls,
    fits: (c) => {
      expect(c % step).toBe(0);
      calls.push(c / step);
      return fitting(c / step);
    },
  };
}

describe('searchMinCapacity', () => {
  it('answers the lower bound with one replay when it fits', () => {
    const p = picky(KiB, (k) => k >= 5);
    const r = searchMinCapacity(p.fits, { peakLiveBytes: 4 * KiB + 1, stepBytes: KiB, hintBytes: 4 * KiB + 1 });
    expect(r.minCapacityBytes).toBe(5 * KiB);
    expect(r.guarantee).toBe('lower-bound');
    expect(r.replays).toBe(1);
    expect(r.lowerBoundBytes).toBe(5 * KiB);
  });

  it('bisects between the lower bound and a hint that fits, and the step below the answer fails', () => {
    const p = picky(KiB, (k) => k >= 37);
    const r = searchMinCapacity(p.fits, { peakLiveBytes: 10 * KiB, stepBytes: KiB, hintBytes: 100 * KiB });
    expect(r.minCapacityBytes).toBe(37 * KiB);
    expect(r.guarantee).toBe('step-below-fails');
    // 100 fits, so does 99; bisection over (9, 99]: 54 T, 31 F, 42 T, 36 F, 39 T, 37 T (36 failed).
    expect(p.calls).toEqual([100, 99, 54, 31, 42, 36, 39, 37]);
    expect(r.tried.map((t) => [t.capacityBytes / KiB, t.fits])).toEqual([[100, true], [99, true], [54, true], [31, false], [42, true], [36, false], [39, true], [37, true]]);
    expect(r.replays).toBe(8);
  });

  it('needs two replays when the hint is exact', () => {
    const p = picky(KiB, (k) => k >= 37);
    const r = searchMinCapacity(p.fits, { peakLiveBytes: 10 * KiB, stepBytes: KiB, hintBytes: 36 * KiB + 1 });
    expect(p.calls).toEqual([37, 36]);
    expect(r.minCapacityBytes).toBe(37 * KiB);
    expect(r.hintBytes).toBe(37 * KiB);
  });

  it('gallops upwards from a hint that fails, with doubling increments', () => {
    const p = picky(KiB, (k) => k >= 20);
    const r = searchMinCapacity(p.fits, { peakLiveBytes: 10 * KiB, stepBytes: KiB, hintBytes: 12 * KiB, extraReplays: 1 });
    expect(r.minCapacityBytes).toBe(20 * KiB);
    // 12 F, 13 F, 15 F, 19 F, 27 T; 26 T; then bisection over (19, 26]: 22 T, 20 T.
    expect(p.calls).toEqual([12, 13, 15, 19, 27, 26, 22, 20]);
    expect(r.replays).toBe(9);
  });

  it('says so when nothing fits up to the maximum', () => {
    const p = picky(KiB, () => false);
    const r = searchMinCapacity(p.fits, { peakLiveBytes: KiB, stepBytes: KiB, maxBytes: 64 * KiB });
    expect(r.minCapacityBytes).toBeNull();
    expect(r.guarantee).toBe('none');
    expect(p.calls[p.calls.length - 1]).toBe(64);
  });

  it('on a non-monotone allocator, bisect finds a capacity whose step below fails; scan finds the smallest', () => {
    // Fits at 6, fails at 7, fits from 8 on (lower bound 5, which fails).
    const fitting = (k: number) => k === 6 || k >= 8;
    const bisect = picky(KiB, fitting);
    const r = searchMinCapacity(bisect.fits, { peakLiveBytes: 5 * KiB, stepBytes: KiB, hintBytes: 12 * KiB });
    // 12 T, 11 T; bisection over (4, 11]: 7 F, 9 T, 8 T; the verification finds 7 failing: answer 8.
    expect(bisect.calls).toEqual([12, 11, 7, 9, 8]);
    expect(r.minCapacityBytes).toBe(8 * KiB);
    expect(r.guarantee).toBe('step-below-fails');
    const scan = picky(KiB, fitting);
    const s = searchMinCapacity(scan.fits, { peakLiveBytes: 5 * KiB, stepBytes: KiB, hintBytes: 12 * KiB, mode: 'scan' });
    expect(scan.calls).toEqual([12, 11, 7, 9, 8, 5, 6]);
    expect(s.minCapacityBytes).toBe(6 * KiB);
    expect(s.guarantee).toBe('scanned');
  });

  it('never answers above a capacity known to fit (the compared run), though the hint is higher', () => {
    // Fits at 6 and from 20 on (an allocator that holds more when it may); the unlimited run's peak
    // is 25, the compared run fitted at 9 (not replayed again).
    const fitting = (k: number) => k === 6 || k === 9 || k >= 20;
    const known = picky(KiB, fitting);
    const r = searchMinCapacity(known.fits, { peakLiveBytes: 5 * KiB, stepBytes: KiB, hintBytes: 25 * KiB, knownFitBytes: 9 * KiB });
    // From 9 (known, no replay): 8 fails, and 9 is the answer (the step below fails; `scan` would find 6).
    expect(known.calls).toEqual([8]);
    expect(r.minCapacityBytes).toBe(9 * KiB);
    expect(r.guarantee).toBe('step-below-fails');
    // Without it: from the hint, 24 T, bisection down to 20, whose step below fails.
    const blind = picky(KiB, fitting);
    expect(searchMinCapacity(blind.fits, { peakLiveBytes: 5 * KiB, stepBytes: KiB, hintBytes: 25 * KiB }).minCapacityBytes).toBe(20 * KiB);
    // A known fit above the hint changes nothing.
    const above = picky(KiB, fitting);
    searchMinCapacity(above.fits, { peakLiveBytes: 5 * KiB, stepBytes: KiB, hintBytes: 25 * KiB, knownFitBytes: 30 * KiB });
    expect(above.calls).toEqual(blind.calls);
    // One between grid points is where the search starts, rounded up (replayed: here 10 fails, and
    // the gallop goes on up from it).
    const between = picky(KiB, fitting);
    const b = searchMinCapacity(between.fits, { peakLiveBytes: 5 * KiB, stepBytes: KiB, hintBytes: 25 * KiB, knownFitBytes: 9 * KiB + 1 });
    expect(between.calls[0]).toBe(10);
    expect(b.minCapacityBytes).toBe(20 * KiB);
    // Where the rounded-up point fits (an allocator monotone there), the answer is at most it.
    const mono = picky(KiB, (k) => k >= 7);
    expect(searchMinCapacity(mono.fits, { peakLiveBytes: 5 * KiB, stepBytes: KiB, hintBytes: 25 * KiB, knownFitBytes: 9 * KiB + 1 }).minCapacityBytes).toBe(7 * KiB);
    expect(mono.calls[0]).toBe(10);
  });

  it('is exact for any monotone allocator, whatever the hint (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 3000 }), fc.option(fc.integer({ min: 0, max: 20000 })), fc.integer({ min: 1, max: 64 }), (live, extra, hint, step) => {
        const need = live + extra;
        const r = searchMinCapacity((c) => c >= need, { peakLiveBytes: live, stepBytes: step, hintBytes: hint });
        expect(r.minCapacityBytes).toBe(Math.ceil(need / step) * step);
        // Above the hint, galloping then bisection: logarithmic in the distance between the hint and
        // the answer. At or below it, one replay a step below the hint, then bisection between the
        // lower bound and the hint: logarithmic in that bracket.
        const answerK = Math.ceil(need / step);
        const kMin = Math.ceil(live / step);
        const hintK = Math.max(kMin, Math.ceil((hint ?? live) / step));
        const bound =
          answerK > hintK ? 2 * Math.ceil(Math.log2(answerK - hintK + 2)) + 4 : Math.ceil(Math.log2(hintK - kMin + 2)) + 3;
        expect(r.replays).toBeLessThanOrEqual(bound);
      }),
      { numRuns: 2000 },
    );
  });

  it('always answers a capacity that fits with the step below failing, for any allocator (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 45 }), fc.boolean(), (pattern, hintK, scan) => {
        // Grid index k fits per the pattern, and everything past the pattern fits.
        const fitting = (k: number) => (k < pattern.length ? (pattern[k] as boolean) : true);
        // A capacity known to fit, at times: the answer is never above it.
        const knownK = [...pattern, true].indexOf(true, hintK % (pattern.length + 1));
        const knownFitBytes = hintK % 3 === 0 ? knownK : null;
        const r = searchMinCapacity((c) => fitting(c), { peakLiveBytes: 0, stepBytes: 1, hintBytes: hintK, mode: scan ? 'scan' : 'bisect', knownFitBytes });
        const k = r.minCapacityBytes as number;
        expect(fitting(k)).toBe(true);
        if (knownFitBytes !== null) expect(k).toBeLessThanOrEqual(knownFitBytes);
        if (k > 0) expect(fitting(k - 1)).toBe(false);
        if (scan) expect(k).toBe([...pattern, true].indexOf(true));
        expect(r.tried.map((t) => t.fits)).toEqual(r.tried.map((t) => fitting(t.capacityBytes)));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('compare --min-capacity against the compared run', () => {
  it('a row that fits at the capacity compared needs no more than it (lifetime-pool, whose pools are built only where they fit)', () => {
    const trace = join(ROOT, 'traces', 'training.json');
    const row = 'lifetime-pool[start_step=2,stable_steps=5]';
    const r = runCli(['compare', trace, '-a', row, '-c', '10GiB', '--min-capacity', '--format', 'json']);
    expect(r.code).toBe(0);
    const e = JSON.parse(r.stdout).allocators[0];
    expect(e.summary.oomCount).toBe(0);
    expect(e.minCapacityBytes).toBeLessThanOrEqual(10 * 1024 * MiB);
    // The answer fits, and the step below fails, as replay says.
    expect(runCli(['replay', trace, '-a', row, '-c', String(e.minCapacityBytes)]).code).toBe(0);
    expect(runCli(['replay', trace, '-a', row, '-c', String(e.minCapacityBytes - MiB)]).code).toBe(1);
  });

  it("judges every allocator by the real run's OOM, as replay does: naive, bfc and lifetime-pool too, not caching alone", () => {
    // GPT-2 that ran out of memory on the GPU: the failed request (64 MiB, 471 MiB live) is no event
    // of the trace, so fitting the trace's events is not fitting the run.
    const trace = join(FIXTURES, 'pytorch-gpu', 'gpt2-cpp-oom.pickle');
    const j = JSON.parse(runCli(['compare', trace, '-a', 'naive,bfc,lifetime-pool', '--min-capacity', '--format', 'json']).stdout);
    for (const e of j.allocators) {
      const min = e.minCapacityBytes as number;
      const at = (c: number) => JSON.parse(runCli(['replay', trace, '-a', e.name, '-c', String(c), '--format', 'json']).stdout).fidelity.recordedOoms[0].reproduced;
      expect([e.name, at(min), at(min - MiB)]).toEqual([e.name, false, true]);
    }
    const naive = j.allocators.find((e: { name: string }) => e.name === 'naive');
    expect(naive.minCapacityBytes).toBe(543 * MiB);
    // A request that failed at the device's own size: no capacity gets past the device, for any row
    // (bfc too, whose own free block held the request while it held more than the device could).
    const device = join(FIXTURES, 'pytorch-gpu', 'oom-device.pickle');
    const all = JSON.parse(runCli(['compare', device, '-a', 'naive,bfc,lifetime-pool,caching', '--min-capacity', '--format', 'json']).stdout);
    expect(all.allocators.map((e: { name: string; minCapacityBytes: number | null }) => [e.name, e.minCapacityBytes])).toEqual(
      expect.arrayContaining([['naive', null], ['bfc', null], ['lifetime-pool', null], ['caching', null]]),
    );
    // At a capacity where the real run's OOM is reproduced, the row does not fit.
    const at542 = JSON.parse(runCli(['compare', trace, '-a', 'naive', '-c', '542MiB', '--format', 'json']).stdout).allocators[0];
    expect(at542.realOomsReproduced).toBe(1);
  });
});
