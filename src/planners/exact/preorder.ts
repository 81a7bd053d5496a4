/** minimalloc's static preorderings (solver.h): W width, A area, T section total; all descending. */
export const HEURISTICS = ['WAT', 'TAW', 'TWA'] as const;

/**
 * Sorts the buffers of a (sub-)problem by one of minimalloc's preorderings, in place and without
 * allocating: a stable bottom-up merge sort over a region of an Int32Array, with one scratch array
 * sized once. W and A are fixed per buffer; T, the largest total of unplaced bytes over the sections
 * a buffer spans, changes as buffers are placed, so the caller writes it into `totalKey` before each
 * sort (minimalloc's SubSolve recomputes it for every piece a decomposition splits off). Ties go to
 * the lower `tie` (the record's index in the input, as minimalloc's buffer index).
 */
export class Preorder {
  /** Per buffer: the T key, written by the caller before `sortByHeuristic`. */
  readonly totalKey: Float64Array;
  private readonly tmp: Int32Array;
  /** The three keys of the current heuristic, most significant first. */
  private k0: Float64Array;
  private k1: Float64Array;
  private k2: Float64Array;

  constructor(
    private readonly width: Float64Array,
    private readonly area: Float64Array,
    private readonly tie: Int32Array,
  ) {
    const m = width.length;
    this.totalKey = new Float64Array(m);
    this.tmp = new Int32Array(m);
    this.k0 = width;
    this.k1 = area;
    this.k2 = this.totalKey;
  }

  /** Chooses the preordering `HEURISTICS[h]`. */
  use(h: number): void {
    const name = HEURISTICS[h] ?? 'WAT';
    const key = (c: string): Float64Array => (c === 'W' ? this.width : c === 'A' ? this.area : this.totalKey);
    this.k0 = key(name[0] as string);
    this.k1 = key(name[1] as string);
    this.k2 = key(name[2] as string);
  }

  /** Whether buffer x comes before y in the preordering. */
  private before(x: number, y: number): boolean {
    let a = this.k0[x] as number;
    let b = this.k0[y] as number;
    if (a !== b) return a > b;
    a = this.k1[x] as number;
    b = this.k1[y] as number;
    if (a !== b) return a > b;
    a = this.k2[x] as number;
    b = this.k2[y] as number;
    if (a !== b) return a > b;
    return (this.tie[x] as number) < (this.tie[y] as number);
  }

  /** Sorts buf[from, from + n) by the preordering. */
  sortByHeuristic(buf: Int32Array, from: number, n: number): void {
    this.mergeSort(buf, from, n, null, null);
  }

  /** Sorts buf[from, from + n) by (minOffset, rank), both ascending (minimalloc's dynamic order). */
  sortByOffset(buf: Int32Array, from: number, n: number, minOffset: Float64Array, rank: Int32Array): void {
    this.mergeSort(buf, from, n, minOffset, rank);
  }

  private mergeSort(buf: Int32Array, from: number, n: number, minOffset: Float64Array | null, rank: Int32Array | null): void {
    const tmp = this.tmp;
    // Runs of 8 by insertion sort, then merges of doubling width between buf and tmp.
    for (let lo = 0; lo < n; lo += 8) {
      const hi = Math.min(n, lo + 8);
      for (let i = lo + 1; i < hi; i++) {
        const x = buf[from + i] as number;
        let j = i;
        while (j > lo && this.less(x, buf[from + j - 1] as number, minOffset, rank)) {
          buf[from + j] = buf[from + j - 1] as number;
          j--;
        }
        buf[from + j] = x;
      }
    }
    let src: Int32Array = buf;
    let srcFrom = from;
    let dst: Int32Array = tmp;
    let dstFrom = 0;
    for (let w = 8; w < n; w *= 2) {
      for (let lo = 0; lo < n; lo += 2 * w) {
        const mid = Math.min(n, lo + w);
        const hi = Math.min(n, lo + 2 * w);
        let i = lo;
        let j = mid;
        let k = lo;
        while (i < mid && j < hi) {
          const a = src[srcFrom + i] as number;
          const b = src[srcFrom + j] as number;
          // Stable: take from the right run only when strictly before.
          if (this.less(b, a, minOffset, rank)) {
            dst[dstFrom + k++] = b;
            j++;
          } else {
            dst[dstFrom + k++] = a;
            i++;
          }
        }
        while (i < mid) dst[dstFrom + k++] = src[srcFrom + i++] as number;
        while (j < hi) dst[dstFrom + k++] = src[srcFrom + j++] as number;
      }
      const s = src;
      const sf = srcFrom;
      src = dst;
      srcFrom = dstFrom;
      dst = s;
      dstFrom = sf;
    }
    if (src !== buf) for (let i = 0; i < n; i++) buf[from + i] = src[srcFrom + i] as number;
  }

  private less(x: number, y: number, minOffset: Float64Array | null, rank: Int32Array | null): boolean {
    if (minOffset === null || rank === null) return this.before(x, y);
    const a = minOffset[x] as number;
    const b = minOffset[y] as number;
    return a < b || (a === b && (rank[x] as number) < (rank[y] as number));
  }
}
