import { OrderedSet } from './ordered-set.js';

/**
 * The free ranges of a {@link SegmentLayout}'s segments: address ranges keyed (start, end), and,
 * when asked for, the same keyed (size, start) for the largest one. Ranges never overlap and never
 * reach across a segment's bounds, so the layout says only whether a range may merge with its
 * neighbours (it may not where it starts or ends at its segment's bound: the neighbour there lies
 * in another segment).
 *
 * Cursors (of the (start, end) set) stay valid until the ranges change.
 */
export class FreeRanges {
  /** Free ranges keyed (start, end), and the same keyed (size, start) when kept by size. */
  private readonly gaps = new OrderedSet();
  private readonly gapSizes: OrderedSet | null;
  /**
   * The answer of the last {@link bytesFrom}: the free range at or before `queryAt` (a cursor), reused
   * by the {@link carve} at the same address that follows it; NaN once the ranges change.
   */
  private queryAt = NaN;
  private query = -1;

  /** `bySize`: keep the ranges ordered by size too, for {@link largestBytes} and {@link count}. */
  constructor(bySize: boolean) {
    this.gapSizes = bySize ? new OrderedSet() : null;
  }

  /** Number of free ranges (kept by size only). */
  get count(): number {
    return this.bySize().size;
  }

  /** The largest free range (0 when none; kept by size only). */
  largestBytes(): number {
    const sizes = this.bySize();
    const n = sizes.last();
    return n < 0 ? 0 : sizes.a(n);
  }

  private bySize(): OrderedSet {
    if (!this.gapSizes) throw new Error('SegmentLayout: free ranges are not kept by size');
    return this.gapSizes;
  }

  /** Start of the range at cursor `c`. */
  start(c: number): number {
    return this.gaps.a(c);
  }

  /** End of the range at cursor `c`. */
  end(c: number): number {
    return this.gaps.b(c);
  }

  /** Cursor of the first range starting at or after `addr`, or -1. */
  firstFrom(addr: number): number {
    return this.gaps.lowerBound(addr, -Infinity);
  }

  /** Cursor of the range after `c`, or -1. */
  next(c: number): number {
    return this.gaps.next(c);
  }

  /** Whether [start, end) is one free range as a whole. */
  isRange(start: number, end: number): boolean {
    return this.gaps.find(start, end) >= 0;
  }

  /** Adds [start, end) (nothing when empty), which overlaps no range and merges with none. */
  add(start: number, end: number): void {
    if (end <= start) return;
    this.queryAt = NaN;
    this.gaps.insert(start, end);
    if (this.gapSizes) this.gapSizes.insert(end - start, start);
  }

  /** Removes the range [start, end). */
  remove(start: number, end: number): void {
    this.queryAt = NaN;
    this.gaps.remove(start, end);
    if (this.gapSizes) this.gapSizes.remove(end - start, start);
  }

  /**
   * Moves the start of the range at cursor `g` by `startBy` bytes and its end by `endBy` (in place
   * where the set allows). By how much, not to where: the caller passes small integers, not doubles.
   */
  private move(g: number, startBy: number, endBy: number): void {
    this.queryAt = NaN;
    const gaps = this.gaps;
    const s = gaps.a(g);
    const e = gaps.b(g);
    const ns = s + startBy;
    const ne = e + endBy;
    if (!gaps.shift(g, startBy, endBy)) {
      gaps.remove(s, e);
      gaps.insert(ns, ne);
    }
    if (this.gapSizes) {
      this.gapSizes.remove(e - s, s);
      this.gapSizes.insert(ne - ns, ns);
    }
  }

  /**
   * Marks `size` bytes from `start` free, merging with the free range that ends at `start` (unless
   * `start` is its segment's start) and with the one that begins where they end (unless that is the
   * segment's end).
   */
  free(start: number, size: number, isSegmentStart: boolean, isSegmentEnd: boolean): void {
    // `end` is passed to no call but the last branch's, and no value that may be `end` to one: V8
    // boxes a double passed to a call it does not inline, and may do so before the branches (or
    // where two values meet), whichever branch runs.
    const end = start + size;
    const gaps = this.gaps;
    const left = gaps.predecessor(start, -Infinity);
    const joinLeft = !isSegmentStart && left >= 0 && gaps.b(left) === start;
    // The first free range at or after `end`: the one after `left`, or one after that where ranges
    // start inside [start, end) (none do in a consistent history).
    let right = left >= 0 ? gaps.next(left) : gaps.first();
    while (right >= 0 && gaps.a(right) < end) right = gaps.next(right);
    const joinRight = !isSegmentEnd && right >= 0 && gaps.a(right) === end;
    if (joinLeft && joinRight) {
      const rs = gaps.a(right);
      const e = gaps.b(right);
      this.move(left, 0, e - start);
      this.remove(rs, e);
    } else if (joinLeft) {
      this.move(left, 0, size);
    } else if (joinRight) {
      this.move(right, -size, 0);
    } else {
      this.add(start, end);
    }
  }

  /** Removes `size` bytes from `start` from the free ranges; false (nothing changed) when they are not wholly inside one. */
  carve(start: number, size: number): boolean {
    const end = start + size;
    const g = start === this.queryAt ? this.query : this.gaps.predecessor(start, Infinity);
    if (g < 0) return false;
    const gs = this.gaps.a(g);
    const ge = this.gaps.b(g);
    if (ge < end) return false;
    if (gs < start) {
      this.move(g, 0, start - ge);
      this.add(end, ge);
    } else if (end < ge) {
      this.move(g, size, 0);
    } else {
      this.remove(gs, ge);
    }
    return true;
  }

  /** Removes whatever free ranges overlap [start, end). */
  carveAll(start: number, end: number): void {
    let g = this.gaps.predecessor(end, -Infinity);
    while (g >= 0 && this.gaps.b(g) > start) {
      const gs = this.gaps.a(g);
      const ge = this.gaps.b(g);
      this.remove(gs, ge);
      if (gs < start) this.add(gs, start);
      if (ge > end) this.add(end, ge);
      g = this.gaps.predecessor(Math.min(gs, end), -Infinity);
    }
  }

  /** Removes the free ranges that start in [start, end) (those of a segment that goes). */
  removeFrom(start: number, end: number): void {
    for (let g = this.gaps.lowerBound(start, -Infinity); g >= 0 && this.gaps.a(g) < end; g = this.gaps.lowerBound(start, -Infinity)) {
      this.remove(this.gaps.a(g), this.gaps.b(g));
    }
  }

  /** Size of the free range from `addr` to the end of the range that contains it, or -1. */
  bytesFrom(addr: number): number {
    const g = this.gaps.predecessor(addr, Infinity);
    this.queryAt = addr;
    this.query = g;
    if (g < 0 || this.gaps.b(g) <= addr) return -1;
    return this.gaps.b(g) - addr;
  }
}
