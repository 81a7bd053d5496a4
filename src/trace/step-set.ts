/**
 * The distinct step values of a trace, as runs of consecutive integers: steps numbered 0, 1, 2, …
 * take one run however many there are, so a check of a long trace counts them in constant memory.
 */
export class StepSet {
  /** Sorted, disjoint, non-adjacent runs [lo[k], hi[k]]. */
  private lo: number[] = [];
  private hi: number[] = [];
  /** Number of distinct values. */
  count = 0;

  /** Bytes held, roughly (for memory figures). */
  get byteLength(): number {
    return this.lo.length * 16;
  }

  add(v: number): void {
    const lo = this.lo;
    const hi = this.hi;
    const n = lo.length;
    // The common cases first: the last run, or a new one after it.
    if (n > 0 && v >= (lo[n - 1] as number)) {
      const h = hi[n - 1] as number;
      if (v <= h) return;
      this.count++;
      if (v === h + 1) hi[n - 1] = v;
      else {
        lo.push(v);
        hi.push(v);
      }
      return;
    }
    // The first run whose end is at least v - 1.
    let a = 0;
    let b = n;
    while (a < b) {
      const m = (a + b) >> 1;
      if ((hi[m] as number) < v - 1) a = m + 1;
      else b = m;
    }
    if (a < n && (lo[a] as number) <= v && v <= (hi[a] as number)) return;
    this.count++;
    const joinsLeft = a < n && hi[a] === v - 1;
    const joinsRight = a < n && lo[a] === v + 1;
    if (joinsLeft) {
      hi[a] = v;
      if (a + 1 < n && lo[a + 1] === v + 1) {
        hi[a] = hi[a + 1] as number;
        lo.splice(a + 1, 1);
        hi.splice(a + 1, 1);
      }
    } else if (joinsRight) {
      lo[a] = v;
    } else {
      lo.splice(a, 0, v);
      hi.splice(a, 0, v);
    }
  }
}
