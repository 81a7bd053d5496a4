import { addressSlot } from './address-hash.js';

/**
 * Live blocks keyed by their start address (an integer from 0 to 2^53), each with its end and the
 * caller's id: open addressing with linear probing and backward-shift deletion in typed arrays, so
 * that taking and releasing a block costs one probe and allocates nothing. Blocks in address order
 * come from {@link sorted}, built when asked for and kept until the next change.
 */
export class LiveBlocks {
  /** Start per slot; -1 marks an empty slot. */
  private starts: Float64Array;
  private ends: Float64Array;
  private ids: Int32Array;
  private count = 0;
  /** The blocks in address order (see {@link sorted}); null once a change made them stale. */
  private order: { start: Float64Array; end: Float64Array; id: Int32Array } | null = null;

  constructor(expected = 64) {
    let n = 128;
    while (n < expected * 2) n *= 2;
    this.starts = new Float64Array(n).fill(-1);
    this.ends = new Float64Array(n);
    this.ids = new Int32Array(n);
  }

  /** Whether `start` can be a key: an integer from 0 to 2^53. */
  static holds(start: number): boolean {
    return Number.isSafeInteger(start) && start >= 0;
  }

  get size(): number {
    return this.count;
  }


  /** The slot of the block at `start`, or -1. */
  find(start: number): number {
    if (!(start >= 0)) return -1;
    const starts = this.starts;
    const mask = starts.length - 1;
    for (let i = addressSlot(start, mask); ; i = (i + 1) & mask) {
      const k = starts[i] as number;
      if (k === start) return i;
      if (k === -1) return -1;
    }
  }

  /** End of the block at slot `i` (from {@link find}). */
  endAt(i: number): number {
    return this.ends[i] as number;
  }

  /** Adds the block of `size` bytes at `start` with `id`; no block may start at `start` yet. */
  add(start: number, size: number, id: number): void {
    this.put(start, start + size, id);
  }

  private put(start: number, end: number, id: number): void {
    const starts = this.starts;
    const mask = starts.length - 1;
    let i = addressSlot(start, mask);
    while (starts[i] !== -1) i = (i + 1) & mask;
    starts[i] = start;
    this.ends[i] = end;
    this.ids[i] = id;
    this.order = null;
    if (++this.count * 2 > starts.length) this.resize(starts.length * 2);
  }

  /** Removes the block at slot `i` (from {@link find}). */
  removeAt(i: number): void {
    const starts = this.starts;
    const ends = this.ends;
    const ids = this.ids;
    const mask = starts.length - 1;
    // Shift back the entries after the hole that probed past it.
    let hole = i;
    for (let j = (i + 1) & mask; starts[j] !== -1; j = (j + 1) & mask) {
      const home = addressSlot(starts[j] as number, mask);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        starts[hole] = starts[j] as number;
        ends[hole] = ends[j] as number;
        ids[hole] = ids[j] as number;
        hole = j;
      }
    }
    starts[hole] = -1;
    this.count--;
    this.order = null;
  }

  /** The blocks in address order: start, end and id of each, in three columns of {@link size} entries. */
  sorted(): { start: Float64Array; end: Float64Array; id: Int32Array } {
    if (this.order) return this.order;
    const n = this.count;
    const slots = new Int32Array(n);
    let k = 0;
    for (let i = 0; i < this.starts.length; i++) if (this.starts[i] !== -1) slots[k++] = i;
    const starts = this.starts;
    slots.sort((x, y) => (starts[x] as number) - (starts[y] as number));
    const order = { start: new Float64Array(n), end: new Float64Array(n), id: new Int32Array(n) };
    for (let j = 0; j < n; j++) {
      const i = slots[j] as number;
      order.start[j] = starts[i] as number;
      order.end[j] = this.ends[i] as number;
      order.id[j] = this.ids[i] as number;
    }
    this.order = order;
    return order;
  }

  /** Index in {@link sorted} of the first block starting at or after `start`. */
  firstFrom(start: number): number {
    const o = this.sorted();
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((o.start[mid] as number) < start) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Start of block `k` of {@link sorted} when there is one and it starts before `end`, else Infinity. */
  startOf(k: number, end: number): number {
    const o = this.sorted();
    return k < this.count && (o.start[k] as number) < end ? (o.start[k] as number) : Infinity;
  }

  private resize(n: number): void {
    const starts = this.starts;
    const ends = this.ends;
    const ids = this.ids;
    this.starts = new Float64Array(n).fill(-1);
    this.ends = new Float64Array(n);
    this.ids = new Int32Array(n);
    this.count = 0;
    for (let i = 0; i < starts.length; i++) if (starts[i] !== -1) this.put(starts[i] as number, ends[i] as number, ids[i] as number);
  }
}
