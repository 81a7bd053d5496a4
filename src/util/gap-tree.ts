import { GapTreap } from './gap-treap.js';

/** Above this many gaps the tree takes over; below LOW it hands back to the array. */
const HIGH = 128;
const LOW = 48;

/**
 * Free address ranges of a simulated address space with first fit. Few gaps (the common case) live
 * in a sorted array, where a scan and a short shift beat any tree; past {@link HIGH} gaps they move
 * to a {@link GapTreap}, so that every operation stays O(log n).
 */
export class GapTree {
  private readonly start: Float64Array;
  private readonly len: Float64Array;
  private n = 0;
  private tree: GapTreap | null = null;

  /** @param high gaps beyond which the tree takes over; @param low gaps below which it hands back. */
  constructor(
    private readonly high = HIGH,
    private readonly low = LOW,
  ) {
    this.start = new Float64Array(high + 2);
    this.len = new Float64Array(high + 2);
  }

  /** Number of gaps. */
  get count(): number {
    return this.tree ? this.tree.count : this.n;
  }

  /** Largest gap. */
  get largest(): number {
    if (this.tree) return this.tree.largest;
    let m = 0;
    for (let i = 0; i < this.n; i++) if ((this.len[i] as number) > m) m = this.len[i] as number;
    return m;
  }

  /** Adds a free range, merging with touching neighbours. */
  release(addr: number, size: number): void {
    if (size <= 0) return;
    if (this.tree) {
      this.tree.release(addr, size);
      if (this.tree.count < this.low) this.toArray();
      return;
    }
    const start = this.start;
    const len = this.len;
    // First gap starting after addr.
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((start[mid] as number) <= addr) lo = mid + 1;
      else hi = mid;
    }
    const end = addr + size;
    const joinsPred = lo > 0 && (start[lo - 1] as number) + (len[lo - 1] as number) === addr;
    const joinsSucc = lo < this.n && start[lo] === end;
    if (joinsPred && joinsSucc) {
      len[lo - 1] = (len[lo - 1] as number) + size + (len[lo] as number);
      this.removeAt(lo);
    } else if (joinsPred) {
      len[lo - 1] = (len[lo - 1] as number) + size;
    } else if (joinsSucc) {
      start[lo] = addr;
      len[lo] = (len[lo] as number) + size;
    } else {
      this.insertAt(lo, addr, size);
    }
  }

  /**
   * Takes the lowest-addressed range of `size` bytes whose start is a multiple of `align`.
   * @returns its address, or -1 when no gap fits.
   */
  takeFirstFit(size: number, align: number): number {
    if (this.tree) {
      const a = this.tree.takeFirstFit(size, align);
      if (this.tree.count < this.low) this.toArray();
      return a;
    }
    const start = this.start;
    const len = this.len;
    for (let i = 0; i < this.n; i++) {
      const l = len[i] as number;
      if (l < size) continue;
      const s = start[i] as number;
      const a = align <= 1 ? s : Math.ceil(s / align) * align;
      if (a + size > s + l) continue;
      this.carve(i, a, size);
      return a;
    }
    return -1;
  }

  /** Takes exactly [addr, addr+size) if it is free; false otherwise. */
  takeAt(addr: number, size: number): boolean {
    if (this.tree) return this.tree.takeAt(addr, size);
    for (let i = 0; i < this.n; i++) {
      const s = this.start[i] as number;
      if (s <= addr && addr + size <= s + (this.len[i] as number)) {
        this.carve(i, addr, size);
        return true;
      }
    }
    return false;
  }

  /** Calls fn(start, length) for each gap in address order. */
  forEach(fn: (start: number, length: number) => void): void {
    if (this.tree) return this.tree.forEach(fn);
    for (let i = 0; i < this.n; i++) fn(this.start[i] as number, this.len[i] as number);
  }

  private carve(i: number, a: number, size: number): void {
    const s = this.start[i] as number;
    const tailStart = a + size;
    const tailLen = s + (this.len[i] as number) - tailStart;
    if (a === s) {
      if (tailLen === 0) this.removeAt(i);
      else {
        this.start[i] = tailStart;
        this.len[i] = tailLen;
      }
    } else {
      this.len[i] = a - s;
      if (tailLen > 0) this.insertAt(i + 1, tailStart, tailLen);
    }
  }

  private removeAt(i: number): void {
    const start = this.start;
    const len = this.len;
    for (let k = i; k < this.n - 1; k++) {
      start[k] = start[k + 1] as number;
      len[k] = len[k + 1] as number;
    }
    this.n--;
  }

  private insertAt(i: number, addr: number, size: number): void {
    if (this.n === this.high) {
      this.toTree();
      (this.tree as GapTreap).release(addr, size);
      return;
    }
    const start = this.start;
    const len = this.len;
    for (let k = this.n; k > i; k--) {
      start[k] = start[k - 1] as number;
      len[k] = len[k - 1] as number;
    }
    start[i] = addr;
    len[i] = size;
    this.n++;
  }

  private toTree(): void {
    const t = new GapTreap(this.high * 2);
    for (let i = 0; i < this.n; i++) t.release(this.start[i] as number, this.len[i] as number);
    this.tree = t;
    this.n = 0;
  }

  private toArray(): void {
    const t = this.tree as GapTreap;
    this.n = 0;
    t.forEach((s, l) => {
      this.start[this.n] = s;
      this.len[this.n] = l;
      this.n++;
    });
    this.tree = null;
  }
}
