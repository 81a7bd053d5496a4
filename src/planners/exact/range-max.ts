/**
 * Numbers indexed 0..n-1 with "add v to [l, r)" and "largest in [l, r)", both O(log n) and without
 * recursion: a bottom-up segment tree whose internal nodes keep a pending addition for their whole
 * range (pushed down before a query reads below it). The search keeps the section totals in one, so
 * that each node learns the largest total of its piece without a scan over its sections.
 */
export class RangeMax {
  private readonly n: number;
  private readonly h: number;
  private readonly t: Float64Array;
  private readonly d: Float64Array;

  constructor(size: number) {
    let n = 1;
    let h = 0;
    while (n < Math.max(1, size)) {
      n <<= 1;
      h++;
    }
    this.n = n;
    this.h = h;
    this.t = new Float64Array(2 * n).fill(-Infinity);
    this.d = new Float64Array(n);
  }

  /** Sets every value (positions past `values` hold -Infinity). */
  reset(values: Float64Array): void {
    const { n, t } = this;
    t.fill(-Infinity);
    this.d.fill(0);
    t.set(values, n);
    for (let i = n - 1; i >= 1; i--) t[i] = Math.max(t[2 * i] as number, t[2 * i + 1] as number);
  }

  private apply(i: number, v: number): void {
    this.t[i] = (this.t[i] as number) + v;
    if (i < this.n) this.d[i] = (this.d[i] as number) + v;
  }

  private build(i: number): void {
    const { t, d } = this;
    while (i > 1) {
      i >>= 1;
      t[i] = Math.max(t[2 * i] as number, t[2 * i + 1] as number) + (d[i] as number);
    }
  }

  private push(i: number): void {
    const d = this.d;
    for (let s = this.h; s > 0; s--) {
      const a = i >> s;
      const v = d[a] as number;
      if (v !== 0) {
        this.apply(2 * a, v);
        this.apply(2 * a + 1, v);
        d[a] = 0;
      }
    }
  }

  /** Adds v to every value in [l, r). */
  add(l: number, r: number, v: number): void {
    if (l >= r) return;
    l += this.n;
    r += this.n;
    const l0 = l;
    const r0 = r;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) this.apply(l++, v);
      if (r & 1) this.apply(--r, v);
    }
    this.build(l0);
    this.build(r0 - 1);
  }

  /** The largest value in [l, r) (-Infinity when empty). */
  max(l: number, r: number): number {
    if (l >= r) return -Infinity;
    l += this.n;
    r += this.n;
    this.push(l);
    this.push(r - 1);
    let res = -Infinity;
    const t = this.t;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) res = Math.max(res, t[l++] as number);
      if (r & 1) res = Math.max(res, t[--r] as number);
    }
    return res;
  }
}
