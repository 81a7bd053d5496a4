import type { Trace } from '../trace/model.js';
import { grown } from '../util/typed-arrays.js';

/**
 * Visits the live allocations after each of `events` (in ascending order) without a pass over the
 * events: allocation numbers follow the order of their allocs, so the allocations made by event e
 * are a prefix of them, and one of those is live after e unless its free came at or before e. The
 * list of survivors carries from one moment to the next (allocations are added once, removed once),
 * so the work is the number of allocations plus the live counts visited, and the memory the largest
 * live count.
 *
 * `dropped` lists, in ascending order, the allocations that never became live (requests that failed
 * and were dropped under `--on-oom continue`, or the one a replay stopped at).
 */
export function forEachLiveSet(
  trace: Trace,
  events: readonly number[],
  dropped: readonly number[],
  visit: (event: number, live: Uint32Array, count: number) => void,
): void {
  const { allocEvent, freeEvent, allocCount } = trace;
  let list = new Uint32Array(1024);
  let n = 0;
  let next = 0;
  let d = 0;
  let prev = -Infinity;
  for (const e of events) {
    if (e < prev) throw new Error('internal error: moments of an attribution must come in ascending order');
    prev = e;
    let w = 0;
    for (let r = 0; r < n; r++) {
      const a = list[r] as number;
      const f = freeEvent[a] as number;
      if (f < 0 || f > e) list[w++] = a;
    }
    n = w;
    // The allocations made by e: up to the first made after it (allocation numbers follow the order
    // of their allocs), found by bisection; then one short loop over their frees, which runs once
    // per replay and so mostly before V8 compiles it.
    let lo = next;
    let hi = allocCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((allocEvent[mid] as number) <= e) lo = mid + 1;
      else hi = mid;
    }
    const end = lo;
    for (; next < end; next++) {
      const f = freeEvent[next] as number;
      if (f >= 0 && f <= e) continue;
      while (d < dropped.length && (dropped[d] as number) < next) d++;
      if (d < dropped.length && dropped[d] === next) continue;
      if (n === list.length) list = grown(list, list.length * 2);
      list[n++] = next;
    }
    visit(e, list, n);
  }
}
