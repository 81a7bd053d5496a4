/**
 * Downsamples the (event, live, allocated, reserved) curve of a replay to a bounded number of points
 * in one pass, without knowing the length in advance: events fall into buckets of a width that
 * doubles whenever the buckets run out; each bucket keeps its highest- and lowest-live events, so
 * the envelope of the curve survives. The peaks, first and last events are added at the end.
 */
export class TimelineSampler {
  private readonly maxBuckets: number;
  private width = 1;
  /** Per bucket: [evMax, liveMax, allocMax, resMax, evMin, liveMin, allocMin, resMin]. */
  private data: Float64Array;
  private buckets = 0;
  private readonly extra = new Map<number, [number, number, number, number]>();

  /** @param maxPoints upper bound on the points returned (at least 16). */
  constructor(maxPoints = 1000) {
    this.maxBuckets = Math.max(4, Math.floor((maxPoints - 6) / 2));
    this.data = new Float64Array(this.maxBuckets * 8 + 16);
  }

  /** The first event past the bucket that {@link TimelineSampler.add} fills now, and that bucket's offset in `data`. */
  private end = 0;
  private at = 0;

  /**
   * Records the state after event `e` (events arrive in increasing order). Per event it compares;
   * the bucket is looked up (a division) only when an event leaves the current one.
   */
  add(e: number, live: number, allocated: number, reserved: number): void {
    if (e >= this.end && this.enter(e, live, allocated, reserved)) return;
    const d = this.data;
    const o = this.at;
    if (live > (d[o + 1] as number)) {
      d[o] = e; d[o + 1] = live; d[o + 2] = allocated; d[o + 3] = reserved;
    }
    if (live < (d[o + 5] as number)) {
      d[o + 4] = e; d[o + 5] = live; d[o + 6] = allocated; d[o + 7] = reserved;
    }
  }

  /**
   * Makes the bucket of event `e` the current one, halving the buckets while they run out; a bucket
   * that had no event yet starts with `e` (then true: nothing more to compare).
   */
  private enter(e: number, live: number, allocated: number, reserved: number): boolean {
    let b = Math.floor(e / this.width);
    while (b >= this.maxBuckets) {
      this.halve();
      b = Math.floor(e / this.width);
    }
    const o = b * 8;
    this.at = o;
    this.end = (b + 1) * this.width;
    if (b < this.buckets) return false;
    this.buckets = b + 1;
    const d = this.data;
    d[o] = e; d[o + 1] = live; d[o + 2] = allocated; d[o + 3] = reserved;
    d[o + 4] = e; d[o + 5] = live; d[o + 6] = allocated; d[o + 7] = reserved;
    return true;
  }

  /** Keeps a specific event's point (peaks, first, last) whatever the bucketing does. */
  pin(e: number, live: number, allocated: number, reserved: number): void {
    this.extra.set(e, [live, allocated, reserved, 0]);
  }

  private halve(): void {
    const d = this.data;
    const n = this.buckets;
    let out = 0;
    for (let i = 0; i < n; i += 2) {
      const a = i * 8;
      const b = (i + 1) * 8;
      const o = out * 8;
      const hasB = i + 1 < n;
      // max side
      const takeBMax = hasB && (d[b + 1] as number) > (d[a + 1] as number);
      const src = takeBMax ? b : a;
      const minSrc = hasB && (d[b + 5] as number) < (d[a + 5] as number) ? b : a;
      const mx0 = d[src] as number, mx1 = d[src + 1] as number, mx2 = d[src + 2] as number, mx3 = d[src + 3] as number;
      const mn0 = d[minSrc + 4] as number, mn1 = d[minSrc + 5] as number, mn2 = d[minSrc + 6] as number, mn3 = d[minSrc + 7] as number;
      d[o] = mx0; d[o + 1] = mx1; d[o + 2] = mx2; d[o + 3] = mx3;
      d[o + 4] = mn0; d[o + 5] = mn1; d[o + 6] = mn2; d[o + 7] = mn3;
      out++;
    }
    this.buckets = out;
    this.width *= 2;
  }

  /** The sampled points, ordered by event, without duplicates. */
  points(): [number, number, number, number][] {
    const byEvent = new Map<number, [number, number, number, number]>();
    const d = this.data;
    for (let i = 0; i < this.buckets; i++) {
      const o = i * 8;
      byEvent.set(d[o] as number, [d[o] as number, d[o + 1] as number, d[o + 2] as number, d[o + 3] as number]);
      byEvent.set(d[o + 4] as number, [d[o + 4] as number, d[o + 5] as number, d[o + 6] as number, d[o + 7] as number]);
    }
    for (const [e, [l, a, r]] of this.extra) byEvent.set(e, [e, l, a, r]);
    return [...byEvent.values()].sort((x, y) => x[0] - y[0]);
  }
}
