import type { TimeClasses } from './time-classes.js';

/**
 * The indexed placements of a {@link Placement}, in order, for a zero-sized record's walk over the
 * placed records it conflicts with in (offset, placement) order, the order TFLite's
 * `ordered_allocs` keeps. A placement only appends its position and order to a log (in sequence), and
 * a run of steps of the placement order placed by the kernel's loop only its bounds (the steps say
 * which records they placed); each position's offset and order, side by side, are built from the log
 * and the runs when a conflict list is first asked for (greedy-by-size's zero-sized records, last in
 * its order), and kept up to date from then on, so the placement loops of positive sizes never write
 * them.
 */
export class PlacedOrder {
  /** Per indexed placement j, at 2j and 2j + 1: its position and its placement order. */
  private readonly log: Int32Array;
  private logged = 0;
  /** Runs of steps placed in a loop: per run, its first and end step and the placement order of its first, in turn. */
  private runs: number[] = [];
  /** Per run, the placement order its steps are of (see {@link addSteps}). */
  private runSteps: ArrayLike<number>[] = [];
  /** Per position p, at 2p and 2p + 1: its offset and placement order (-1 until placed), once built. */
  private at: Float64Array | null = null;
  /** Placements of the log already in `at`. */
  private applied = 0;
  /** Positions gathered by {@link conflicting}. */
  private out = new Int32Array(64);

  constructor(
    private readonly layout: TimeClasses,
    /** Per record, its offset once placed. */
    private readonly offsets: Float64Array,
    /** Per record, its size: the steps of {@link addSteps} that place a record of none are not indexed. */
    private readonly size: Float64Array,
  ) {
    this.log = new Int32Array(2 * offsets.length);
  }

  /** The record at position p is placed, `order`-th (counting every placement). */
  add(p: number, order: number): void {
    const j = this.logged++;
    this.log[2 * j] = p;
    this.log[2 * j + 1] = order;
  }

  /**
   * Steps [k0, k1) of the placement order `recs` are placed, the first `order`-th; those of positive
   * size (in `size`, per record) are indexed. Only the bounds are kept until a conflict list is asked for.
   */
  addSteps(recs: ArrayLike<number>, k0: number, k1: number, order: number): void {
    if (k1 <= k0) return;
    const n = this.runs.length;
    // A run that goes on from the last one extends it.
    if (n > 0 && this.runSteps[n / 3 - 1] === recs && this.runs[n - 2] === k0 && (this.runs[n - 1] as number) + k0 - (this.runs[n - 3] as number) === order) this.runs[n - 2] = k1;
    else {
      this.runs.push(k0, k1, order);
      this.runSteps.push(recs);
    }
  }

  /**
   * The placed records that meet the window [a, b] of time indices, sorted by (offset, placement
   * order), as a view of an internal buffer that the next call overwrites.
   */
  conflicting(a: number, b: number): Int32Array {
    const L = this.layout;
    const at = this.index();
    let k = 0;
    for (let c = 0; c < L.classCount; c++) {
      const to = L.windowEnd(c, b);
      for (let x = L.windowStart(c, a); x < to; x++) {
        if ((at[2 * x + 1] as number) >= 0 && (L.last[x] as number) >= a && (L.first[x] as number) <= b) {
          if (k === this.out.length) {
            const bigger = new Int32Array(2 * k);
            bigger.set(this.out);
            this.out = bigger;
          }
          this.out[k++] = x;
        }
      }
    }
    const list = this.out.subarray(0, k);
    list.sort((x, y) => (at[2 * x] as number) - (at[2 * y] as number) || (at[2 * x + 1] as number) - (at[2 * y + 1] as number));
    for (let j = 0; j < k; j++) list[j] = L.recAt[list[j] as number] as number;
    return list;
  }

  /** Each position's offset and order, with every placement so far. */
  private index(): Float64Array {
    const at = (this.at ??= new Float64Array(2 * this.layout.positions).fill(-1));
    const recAt = this.layout.recAt;
    const posOf = this.layout.posOf;
    for (let j = 0; j < this.runs.length; j += 3) {
      const k1 = this.runs[j + 1] as number;
      const base = (this.runs[j + 2] as number) - (this.runs[j] as number);
      const steps = this.runSteps[j / 3] as ArrayLike<number>;
      for (let k = this.runs[j] as number; k < k1; k++) {
        const rec = steps[k] as number;
        if (!((this.size[rec] as number) > 0)) continue;
        const p = posOf[rec] as number;
        at[2 * p] = this.offsets[rec] as number;
        at[2 * p + 1] = base + k;
      }
    }
    this.runs = [];
    this.runSteps = [];
    for (; this.applied < this.logged; this.applied++) {
      const p = this.log[2 * this.applied] as number;
      at[2 * p] = this.offsets[recAt[p] as number] as number;
      at[2 * p + 1] = this.log[2 * this.applied + 1] as number;
    }
    return at;
  }
}
