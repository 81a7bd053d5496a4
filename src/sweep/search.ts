/**
 * The search of a what-if space too large to enumerate (over {@link MAX_ENUMERATED_POINTS} points).
 * Deterministic: which points are tried depends only on the results of earlier ones, and the ranking
 * that compares them breaks every tie.
 *
 * 1. Each key alone: every value of every key, the other keys as they are now (the current setting).
 * 2. The best pairs: for every pair of keys, the two best values of each (from step 1) together.
 * 3. One key at a time from the best so far: every value of every key around the best point; when
 *    that finds a better point, again around it, until the best stays the best.
 */
import { type AllocatorSpace, MAX_ENUMERATED_POINTS, makePoint, type Point, pointName } from './space.js';

export { MAX_ENUMERATED_POINTS };

/** Evaluates points (in parallel, remembering those already done) and ranks results. */
export interface SearchContext<R> {
  /** The results of `points`, in their order. */
  evaluate(points: Point[]): Promise<R[]>;
  /** Negative when `a` ranks before `b`; never 0 for two different points. */
  compare(a: R, b: R): number;
}

/** How the search goes, in words, for the report. */
export const SEARCH_METHOD =
  'each key alone from the current setting, then the two best values of every pair of keys together, then one key at a time around the best until it stays the best';

interface Tried<R> {
  point: Point;
  result: R;
}

/** Every value of every key around `at` (that point included). */
function neighbourhood(space: AllocatorSpace, at: Point): Point[] {
  const out: Point[] = [at];
  for (const k of space.keys) for (const v of k.values) out.push(makePoint(space, { ...at, [k.key]: v }));
  return out;
}

/** Runs the search; the points it tries are the ones `ctx.evaluate` saw. */
export async function searchSpace<R>(space: AllocatorSpace, ctx: SearchContext<R>): Promise<void> {
  const run = async (points: Point[]): Promise<Tried<R>[]> => {
    const results = await ctx.evaluate(points);
    return points.map((point, k) => ({ point, result: results[k] as R }));
  };
  const best = (ts: readonly Tried<R>[]): Tried<R> => ts.reduce((b, t) => (ctx.compare(t.result, b.result) < 0 ? t : b));
  // 1. each key alone
  const single = await run(neighbourhood(space, {}));
  const byName = new Map(single.map((t) => [pointName(space, t.point), t.result]));
  const top = space.keys.map((k) => {
    const ranked = k.values
      .map((v) => ({ v, r: byName.get(pointName(space, makePoint(space, { [k.key]: v }))) as R }))
      .sort((a, b) => ctx.compare(a.r, b.r));
    return { key: k.key, values: ranked.slice(0, 2).map((x) => x.v) };
  });
  // 2. the best pairs
  const pairs: Point[] = [];
  top.forEach((a, i) => {
    for (const b of top.slice(i + 1)) for (const va of a.values) for (const vb of b.values) pairs.push(makePoint(space, { [a.key]: va, [b.key]: vb }));
  });
  let at = best([...single, ...(await run(pairs))]);
  // 3. one key at a time around the best, while that finds a better one (each round moves to a
  // point that ranks strictly better, so the rounds end)
  for (;;) {
    const next = best(await run(neighbourhood(space, at.point)));
    if (pointName(space, next.point) === pointName(space, at.point)) return;
    at = next;
  }
}
