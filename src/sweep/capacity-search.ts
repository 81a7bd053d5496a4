/**
 * The smallest device capacity, on a grid of `stepBytes`, at which a whole trace replays without OOM.
 *
 * Allocators are not all monotone in capacity: BFC sizes its regions from the memory limit, so a
 * trace can fit at C, fail at C + step and fit again higher up. The search therefore never trusts
 * monotonicity for its answer; it only uses it to choose where to look:
 *
 * 1. Lower end: no allocator fits below the peak of live bytes (whatever it holds, it holds at least
 *    the live bytes), so the grid starts at kMin = ceil(peakLive / step); the capacity below it is a
 *    failure without a replay.
 * 2. Upper end: start at the hint (peak reserved of a run that fitted, usually the unlimited run,
 *    rounded up), or at a capacity known to fit when that is lower, and, while it fails, gallop
 *    upwards with doubling increments (1, 2, 4, … steps), so that a hint that misses by a little
 *    costs little and one that misses by a lot costs log2 of it.
 * 3. Bisection between the last failure and the first fit, starting one step below the fit (the
 *    hint is often exact, and then that one replay ends the search).
 * 4. Verification downwards from the answer: replay answer - step, answer - 2·step, … until one fails
 *    (or the grid's lower end is reached); each fit lowers the answer.
 *
 * Guarantee (`guarantee` in the result):
 * - `lower-bound`: the answer is kMin·step; nothing below it can fit on the grid. Exact.
 * - `step-below-fails`: the answer fits and answer - step was replayed and failed. For an allocator
 *   that is monotone in capacity this is exact; for one that is not, a smaller fitting capacity may
 *   exist below a failing one. `tried` lists every capacity replayed, with its outcome.
 * - `scanned` (mode `scan`): every grid capacity from kMin·step up to answer - step was replayed and
 *   failed. Exact for any allocator, at the cost of one replay per step.
 * - `none`: nothing up to `maxBytes` fits; `minCapacityBytes` is null.
 * - `recorded-failure`: no search ran: the row is a recording whose run failed, which no capacity
 *   changes; `minCapacityBytes` is null.
 */

/** `bisect` (default) or `scan` (exhaustive below the bisection's answer). */
export type CapacitySearchMode = 'bisect' | 'scan';

/** What the search found and how. */
export interface CapacitySearchResult {
  minCapacityBytes: number | null;
  stepBytes: number;
  /** The lowest grid capacity that can fit: the peak of live bytes rounded up to the step. */
  lowerBoundBytes: number;
  /** The hint the search started from (rounded up to the step), or null. */
  hintBytes: number | null;
  mode: CapacitySearchMode;
  guarantee: 'lower-bound' | 'step-below-fails' | 'scanned' | 'none' | 'recorded-failure';
  /** Replays this search ran (a capacity tried twice is replayed once). */
  replays: number;
  /** Every capacity replayed, in order, with its outcome. */
  tried: { capacityBytes: number; fits: boolean }[];
}

/** The inputs of a search. */
export interface CapacitySearchOptions {
  /** Peak of live bytes: the lower bound of every allocator. */
  peakLiveBytes: number;
  stepBytes: number;
  /** A capacity that probably fits (e.g. the peak reserved of the unlimited run); verified first. */
  hintBytes?: number | null;
  mode?: CapacitySearchMode;
  /** Give up above this capacity (default 2^50 bytes = 1 PiB). */
  maxBytes?: number;
  /** Replays already run outside the search (the hint's run), counted in `replays`. */
  extraReplays?: number;
  /**
   * A capacity known to fit without a replay of the search's (the compared run's, which fitted): on
   * the grid, the search looks no higher than it (else it starts from it, rounded up to the grid), so
   * that its answer is never above a capacity that the same row fits at (an allocator that holds more
   * when it may, such as lifetime-pool whose pools are built only where they fit, needs more at
   * unlimited capacity than at this one).
   */
  knownFitBytes?: number | null;
}

/**
 * Searches the smallest grid capacity at which `fits(capacityBytes)` holds; `fits` replays the whole
 * trace at that capacity. Deterministic: the capacities tried depend only on the answers of `fits`.
 */
export function searchMinCapacity(fits: (capacityBytes: number) => boolean, o: CapacitySearchOptions): CapacitySearchResult {
  const step = o.stepBytes;
  if (!Number.isSafeInteger(step) || step <= 0) throw new RangeError(`capacity step must be a positive integer, got ${step}`);
  const mode = o.mode ?? 'bisect';
  const kMin = Math.ceil(o.peakLiveBytes / step);
  const kMax = Math.floor((o.maxBytes ?? 2 ** 50) / step);
  const hintK = o.hintBytes !== undefined && o.hintBytes !== null ? Math.ceil(o.hintBytes / step) : null;
  const tried: { capacityBytes: number; fits: boolean }[] = [];
  const memo = new Map<number, boolean>();
  const test = (k: number): boolean => {
    let r = memo.get(k);
    if (r === undefined) {
      r = fits(k * step);
      memo.set(k, r);
      tried.push({ capacityBytes: k * step, fits: r });
    }
    return r;
  };
  const result = (k: number | null, guarantee: CapacitySearchResult['guarantee']): CapacitySearchResult => ({
    minCapacityBytes: k === null ? null : k * step,
    stepBytes: step,
    lowerBoundBytes: kMin * step,
    hintBytes: hintK === null ? null : hintK * step,
    mode,
    guarantee,
    replays: tried.length + (o.extraReplays ?? 0),
    tried,
  });

  // lo: a grid point known to fail (kMin - 1 fails without a replay); hi: one that fits.
  let lo = kMin - 1;
  let hi = Math.max(kMin, hintK ?? kMin);
  // A known fit on the grid caps the gallop too: the bracket's top, and so the answer, is never above
  // it. One between grid points is a first guess rounded up (replayed: it probably fits too).
  let top = kMax;
  const known = o.knownFitBytes;
  if (known !== undefined && known !== null && known >= kMin * step && known <= kMax * step) {
    const knownK = Math.ceil(known / step);
    if (known % step === 0) {
      memo.set(knownK, true);
      top = knownK;
    }
    hi = Math.min(hi, knownK);
  }
  for (let inc = 1; !test(hi); inc *= 2) {
    lo = hi;
    if (hi >= kMax) return result(null, 'none');
    hi = Math.min(top, hi + inc);
  }
  // The hint is usually exact (an allocator that behaves alike whenever the limit is not reached):
  // one replay a step below settles it, instead of a whole bisection.
  if (hi - 1 > lo) {
    if (test(hi - 1)) hi -= 1;
    else lo = hi - 1;
  }
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (test(mid)) hi = mid;
    else lo = mid;
  }
  for (let k = hi - 1; k >= kMin && test(k); k--) hi = k;
  if (hi === kMin) return result(hi, 'lower-bound');
  if (mode === 'scan') {
    for (let k = kMin; k < hi - 1; k++) {
      if (test(k)) return result(k, k === kMin ? 'lower-bound' : 'scanned');
    }
    return result(hi, 'scanned');
  }
  return result(hi, 'step-below-fails');
}
