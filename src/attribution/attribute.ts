import type { Trace } from '../trace/model.js';
import { groupKeys, type GroupKeys } from './keys.js';
import { forEachLiveSet } from './live-sets.js';
import { type AttributionOptions, DEFAULT_STACK_DEPTH, DEFAULT_TOP, type GroupBy, type Holder, type MomentHolders } from './types.js';

/** Shares are rounded to 6 decimals, as every ratio of the reports. */
const share = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 1e6) / 1e6 : 0);

/** The grouping a trace gets by default: by frame when it records stacks, else by tag. */
export function defaultGroupBy(trace: Trace): GroupBy {
  return trace.stacks ? 'frame' : 'tag';
}

/** Options with every default filled in. */
export function resolveAttributionOptions(trace: Trace, o: AttributionOptions = {}): Required<AttributionOptions> {
  return { groupBy: o.groupBy ?? defaultGroupBy(trace), top: o.top ?? DEFAULT_TOP, stackDepth: o.stackDepth ?? DEFAULT_STACK_DEPTH };
}

/** Per-key sums of one moment, reused from moment to moment (only touched keys are reset). */
class Sums {
  readonly bytes: Float64Array;
  readonly count: Uint32Array;
  readonly largest: Float64Array;
  readonly largestAlloc: Int32Array;
  touched: number[] = [];

  constructor(size: number) {
    this.bytes = new Float64Array(size);
    this.count = new Uint32Array(size);
    this.largest = new Float64Array(size);
    this.largestAlloc = new Int32Array(size);
  }

  add(k: number, a: number, bytes: number): void {
    if (this.count[k] === 0) {
      this.touched.push(k);
      this.largest[k] = -1;
    }
    this.bytes[k] = (this.bytes[k] as number) + bytes;
    this.count[k] = (this.count[k] as number) + 1;
    if (bytes > (this.largest[k] as number)) {
      this.largest[k] = bytes;
      this.largestAlloc[k] = a;
    }
  }

  reset(): void {
    for (const k of this.touched) this.count[k] = 0;
    for (const k of this.touched) this.bytes[k] = 0;
    this.touched = [];
  }
}

function holdersOf(event: number, live: Uint32Array, n: number, trace: Trace, keys: GroupKeys, sums: Sums, top: number): MomentHolders {
  const { size, allocEvent } = trace;
  let liveBytes = 0;
  for (let r = 0; r < n; r++) {
    const a = live[r] as number;
    const bytes = size[allocEvent[a] as number] as number;
    liveBytes += bytes;
    sums.add(keys.keyOf(a), a, bytes);
  }
  const names = new Map<number, string>();
  const nameOf = (k: number): string => {
    let s = names.get(k);
    if (s === undefined) {
      s = keys.name(k);
      names.set(k, s);
    }
    return s;
  };
  const order = [...sums.touched].sort((x, y) => (sums.bytes[y] as number) - (sums.bytes[x] as number) || (nameOf(x) < nameOf(y) ? -1 : nameOf(x) > nameOf(y) ? 1 : 0));
  const holders: Holder[] = order.slice(0, top).map((k) => {
    const h: Holder = {
      key: nameOf(k),
      bytes: sums.bytes[k] as number,
      count: sums.count[k] as number,
      share: share(sums.bytes[k] as number, liveBytes),
      largestBytes: sums.largest[k] as number,
    };
    const frames = keys.framesOf?.(sums.largestAlloc[k] as number);
    if (frames && frames.length > 0) h.frames = frames;
    return h;
  });
  let otherBytes = 0;
  let otherCount = 0;
  let otherLargest = 0;
  for (const k of order.slice(top)) {
    otherBytes += sums.bytes[k] as number;
    otherCount += sums.count[k] as number;
    otherLargest = Math.max(otherLargest, sums.largest[k] as number);
  }
  sums.reset();
  return {
    event,
    liveBytes,
    liveCount: n,
    top: holders,
    otherBytes,
    otherCount,
    otherLargestBytes: otherLargest,
    otherShare: share(otherBytes, liveBytes),
    groups: order.length,
  };
}

/**
 * Who holds the memory after each of `events`: the live allocations grouped by `groupBy`, the
 * `top` largest groups by bytes and the rest. `dropped`: allocations that never became live
 * (ascending). The result follows the order of `events`; equal events share one computation.
 */
export function holdersAt(trace: Trace, events: readonly number[], dropped: readonly number[], options: AttributionOptions = {}): MomentHolders[] {
  const o = resolveAttributionOptions(trace, options);
  return holdersWithKeys(trace, groupKeys(trace, o.groupBy, o.stackDepth), events, dropped, o.top);
}

/** {@link holdersAt} with the keys already made (callers that map blocks to groups too). */
export function holdersWithKeys(trace: Trace, keys: GroupKeys, events: readonly number[], dropped: readonly number[], top: number): MomentHolders[] {
  const o = { top };
  const unique = [...new Set(events.filter((e) => e >= 0))].sort((x, y) => x - y);
  const sums = new Sums(keys.size);
  const byEvent = new Map<number, MomentHolders>();
  forEachLiveSet(trace, unique, dropped, (e, live, n) => byEvent.set(e, holdersOf(e, live, n, trace, keys, sums, o.top)));
  return events.map((e) => byEvent.get(e) ?? holdersOf(e, new Uint32Array(0), 0, trace, keys, sums, o.top));
}
