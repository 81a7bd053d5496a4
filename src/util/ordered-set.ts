/**
 * An ordered set of (a, b) number pairs with an integer payload: a B+ tree whose leaves are sorted
 * runs of up to 64 pairs in typed arrays. Small sets are a single sorted array (a few compares and a
 * short copy per operation); large ones stay O(log n) with a height of 3 for 10^5 elements. No
 * object is allocated per element, and the same operations always build the same tree.
 *
 * Queries return a *cursor* to an element (a small integer, or -1 for none); a cursor is valid until
 * the set is next changed. Allocators use this for free lists ordered by (size, address), as the
 * real ones use std::set.
 */
import { grown } from './typed-arrays.js';

const SHIFT = 6;
const B = 1 << SHIFT; // entries per node
const HALF = B >> 1;
const MAX_DEPTH = 24;

export class OrderedSet {
  // Leaves: B slots each.
  private la: Float64Array;
  private lb: Float64Array;
  private lp: Int32Array;
  private lcount: Int32Array;
  private lnext: Int32Array;
  private lprev: Int32Array;
  private leaves = 0;
  private freeLeaf = -1;
  // Inner nodes: B slots each; key k of child i is the smallest key that may be in child i
  // (slot 0's key is never compared).
  private ia: Float64Array;
  private ib: Float64Array;
  private ichild: Int32Array;
  private icount: Int32Array;
  private inners = 0;
  private freeInner = -1;
  /** Root: a leaf when height is 0, else an inner node. */
  private root: number;
  private height = 0;
  private count = 0;
  // Descent path: node and child slot per level.
  private readonly pathNode = new Int32Array(MAX_DEPTH);
  private readonly pathSlot = new Int32Array(MAX_DEPTH);

  constructor(initialCapacity = 64) {
    const leaves = Math.max(2, Math.ceil((initialCapacity * 2) / B));
    this.la = new Float64Array(leaves * B);
    this.lb = new Float64Array(leaves * B);
    this.lp = new Int32Array(leaves * B);
    this.lcount = new Int32Array(leaves);
    this.lnext = new Int32Array(leaves);
    this.lprev = new Int32Array(leaves);
    this.ia = new Float64Array(B);
    this.ib = new Float64Array(B);
    this.ichild = new Int32Array(B);
    this.icount = new Int32Array(1);
    this.root = this.newLeaf();
  }

  /** Number of elements. */
  get size(): number {
    return this.count;
  }

  /** First key of the element at a cursor. */
  a(cursor: number): number {
    return this.la[cursor] as number;
  }

  /** Second key of the element at a cursor. */
  b(cursor: number): number {
    return this.lb[cursor] as number;
  }

  /** Payload of the element at a cursor. */
  payload(cursor: number): number {
    return this.lp[cursor] as number;
  }

  private newLeaf(): number {
    let l: number;
    if (this.freeLeaf >= 0) {
      l = this.freeLeaf;
      this.freeLeaf = this.lnext[l] as number;
    } else {
      l = this.leaves++;
      if (l === this.lcount.length) this.growLeaves();
    }
    this.lcount[l] = 0;
    this.lnext[l] = -1;
    this.lprev[l] = -1;
    return l;
  }

  private growLeaves(): void {
    const n = this.lcount.length * 2;
    this.la = grown(this.la, n * B);
    this.lb = grown(this.lb, n * B);
    this.lp = grown(this.lp, n * B);
    this.lcount = grown(this.lcount, n);
    this.lnext = grown(this.lnext, n);
    this.lprev = grown(this.lprev, n);
  }

  private newInner(): number {
    let t: number;
    if (this.freeInner >= 0) {
      t = this.freeInner;
      this.freeInner = this.ichild[t << SHIFT] as number;
    } else {
      t = this.inners++;
      if (t === this.icount.length) {
        const n = this.icount.length * 2;
        this.ia = grown(this.ia, n * B);
        this.ib = grown(this.ib, n * B);
        this.ichild = grown(this.ichild, n * B);
        this.icount = grown(this.icount, n);
      }
    }
    this.icount[t] = 0;
    return t;
  }

  /** Descends to the leaf that holds (or would hold) (a, b), recording the path. */
  private descend(a: number, b: number): number {
    let t = this.root;
    const ia = this.ia;
    const ib = this.ib;
    for (let d = 0; d < this.height; d++) {
      const base = t << SHIFT;
      const n = this.icount[t] as number;
      // Largest slot i >= 1 whose key <= (a, b); slot 0 otherwise.
      let lo = 1;
      let hi = n - 1;
      let slot = 0;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const ka = ia[base + mid] as number;
        if (ka < a || (ka === a && (ib[base + mid] as number) <= b)) {
          slot = mid;
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      this.pathNode[d] = t;
      this.pathSlot[d] = slot;
      t = this.ichild[base + slot] as number;
    }
    return t;
  }

  /** First index in leaf l with key >= (a, b) (strict: > (a, b)). */
  private leafSearch(l: number, a: number, b: number, strict: boolean): number {
    const base = l << SHIFT;
    const la = this.la;
    const lb = this.lb;
    let lo = 0;
    let hi = this.lcount[l] as number;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const ka = la[base + mid] as number;
      const kb = lb[base + mid] as number;
      const before = strict ? ka < a || (ka === a && kb <= b) : ka < a || (ka === a && kb < b);
      if (before) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Cursor of the first element at or after index i of leaf l, or -1. */
  private cursorFrom(l: number, i: number): number {
    while (l >= 0 && i >= (this.lcount[l] as number)) {
      l = this.lnext[l] as number;
      i = 0;
    }
    return l < 0 ? -1 : (l << SHIFT) + i;
  }

  /** Inserts (a, b) with a payload; the pair must not be present. Returns its cursor. */
  insert(a: number, b: number, payload = 0): number {
    let l = this.descend(a, b);
    let i = this.leafSearch(l, a, b, false);
    if ((this.lcount[l] as number) === B) {
      const right = this.splitLeaf(l);
      if (i > HALF) {
        l = right;
        i -= HALF;
      }
    }
    const base = l << SHIFT;
    const n = this.lcount[l] as number;
    // Short shifts: a loop beats three native copyWithin calls.
    const la = this.la;
    const lb = this.lb;
    const lp = this.lp;
    for (let k = base + n; k > base + i; k--) {
      la[k] = la[k - 1] as number;
      lb[k] = lb[k - 1] as number;
      lp[k] = lp[k - 1] as number;
    }
    this.la[base + i] = a;
    this.lb[base + i] = b;
    this.lp[base + i] = payload;
    this.lcount[l] = n + 1;
    this.count++;
    return base + i;
  }

  /** Splits a full leaf (on the recorded path) into two halves; returns the right one. */
  private splitLeaf(l: number): number {
    const r = this.newLeaf();
    const lb0 = l << SHIFT;
    const rb0 = r << SHIFT;
    this.la.copyWithin(rb0, lb0 + HALF, lb0 + B);
    this.lb.copyWithin(rb0, lb0 + HALF, lb0 + B);
    this.lp.copyWithin(rb0, lb0 + HALF, lb0 + B);
    this.lcount[l] = HALF;
    this.lcount[r] = B - HALF;
    const next = this.lnext[l] as number;
    this.lnext[r] = next;
    this.lprev[r] = l;
    if (next >= 0) this.lprev[next] = r;
    this.lnext[l] = r;
    this.insertChild(this.height - 1, this.la[rb0] as number, this.lb[rb0] as number, r);
    return r;
  }

  /** Adds child `c` with smallest key (a, b) right after the path's slot at depth d. */
  private insertChild(d: number, a: number, b: number, c: number): void {
    if (d < 0) {
      // The root split: a new root over the old one and c.
      const t = this.newInner();
      const base = t << SHIFT;
      this.ichild[base] = this.root;
      this.ia[base + 1] = a;
      this.ib[base + 1] = b;
      this.ichild[base + 1] = c;
      this.icount[t] = 2;
      this.root = t;
      // Keep recorded paths valid for callers below: shift them down one level.
      this.pathNode.copyWithin(1, 0, MAX_DEPTH - 1);
      this.pathSlot.copyWithin(1, 0, MAX_DEPTH - 1);
      this.pathNode[0] = t;
      this.pathSlot[0] = 0;
      this.height++;
      if (this.height >= MAX_DEPTH) throw new Error('ordered set too deep');
      return;
    }
    let t = this.pathNode[d] as number;
    let slot = (this.pathSlot[d] as number) + 1;
    if ((this.icount[t] as number) === B) {
      const right = this.splitInner(d);
      if (slot > HALF) {
        t = right;
        slot -= HALF;
      }
    }
    const base = t << SHIFT;
    const n = this.icount[t] as number;
    this.ia.copyWithin(base + slot + 1, base + slot, base + n);
    this.ib.copyWithin(base + slot + 1, base + slot, base + n);
    this.ichild.copyWithin(base + slot + 1, base + slot, base + n);
    this.ia[base + slot] = a;
    this.ib[base + slot] = b;
    this.ichild[base + slot] = c;
    this.icount[t] = n + 1;
  }

  /** Splits the full inner node on the path at depth d; returns the right half. */
  private splitInner(d: number): number {
    const t = this.pathNode[d] as number;
    const r = this.newInner();
    const tb = t << SHIFT;
    const rb = r << SHIFT;
    this.ia.copyWithin(rb, tb + HALF, tb + B);
    this.ib.copyWithin(rb, tb + HALF, tb + B);
    this.ichild.copyWithin(rb, tb + HALF, tb + B);
    this.icount[t] = HALF;
    this.icount[r] = B - HALF;
    this.insertChild(d - 1, this.ia[rb] as number, this.ib[rb] as number, r);
    return r;
  }

  /**
   * Moves the element at `cursor` by `aBy` and `bBy`, to (a + aBy, b + bBy), in place, where that keeps
   * the leaf sorted and within its bounds in the tree: the new pair lies strictly between the
   * element's neighbours in its leaf (at the leaf's first slot it may not decrease, at its last it
   * may not increase, unless the leaf is the first, or the last, of the set: nothing bounds it
   * there). Returns false, changing nothing, otherwise (the caller removes and inserts instead). The
   * new pair must not be present. By how much, not to where: callers pass small integers, which V8
   * passes to a call it does not inline as they are, where new keys would be doubles boxed on the heap.
   */
  shift(cursor: number, aBy: number, bBy: number): boolean {
    const la = this.la;
    const lb = this.lb;
    const a = (la[cursor] as number) + aBy;
    const b = (lb[cursor] as number) + bBy;
    const l = cursor >> SHIFT;
    const i = cursor & (B - 1);
    const n = this.lcount[l] as number;
    // Above the lower bound (strictly above a neighbour, at least the old pair at the first slot).
    if (i > 0) {
      const lowA = la[cursor - 1] as number;
      if (a < lowA || (a === lowA && b <= (lb[cursor - 1] as number))) return false;
    } else if (this.lprev[l] !== -1 && (aBy < 0 || (aBy === 0 && bBy < 0))) {
      return false;
    }
    // Below the upper bound likewise (the end of the set at the last leaf's last slot: a tail that grows).
    if (i < n - 1) {
      const highA = la[cursor + 1] as number;
      if (a > highA || (a === highA && b >= (lb[cursor + 1] as number))) return false;
    } else if (this.lnext[l] !== -1 && (aBy > 0 || (aBy === 0 && bBy > 0))) {
      return false;
    }
    la[cursor] = a;
    lb[cursor] = b;
    return true;
  }

  /** Removes (a, b); returns false when it was not present. */
  remove(a: number, b: number): boolean {
    const l = this.descend(a, b);
    const i = this.leafSearch(l, a, b, false);
    const base = l << SHIFT;
    const n = this.lcount[l] as number;
    const la = this.la;
    const lb = this.lb;
    const lp = this.lp;
    if (i >= n || la[base + i] !== a || lb[base + i] !== b) return false;
    for (let k = base + i; k < base + n - 1; k++) {
      la[k] = la[k + 1] as number;
      lb[k] = lb[k + 1] as number;
      lp[k] = lp[k + 1] as number;
    }
    this.lcount[l] = n - 1;
    this.count--;
    if (n === 1 && this.height > 0) this.dropLeaf(l);
    return true;
  }

  /** Unlinks an empty leaf from its parent (and empty ancestors). */
  private dropLeaf(l: number): void {
    const prev = this.lprev[l] as number;
    const next = this.lnext[l] as number;
    if (prev >= 0) this.lnext[prev] = next;
    if (next >= 0) this.lprev[next] = prev;
    this.lnext[l] = this.freeLeaf;
    this.freeLeaf = l;
    for (let d = this.height - 1; d >= 0; d--) {
      const t = this.pathNode[d] as number;
      const slot = this.pathSlot[d] as number;
      const base = t << SHIFT;
      const n = this.icount[t] as number;
      this.ia.copyWithin(base + slot, base + slot + 1, base + n);
      this.ib.copyWithin(base + slot, base + slot + 1, base + n);
      this.ichild.copyWithin(base + slot, base + slot + 1, base + n);
      this.icount[t] = n - 1;
      if (n - 1 > 0) {
        // A root with a single child gives way to it.
        if (d === 0 && n - 1 === 1) {
          this.root = this.ichild[base] as number;
          this.ichild[base] = this.freeInner;
          this.freeInner = t;
          this.height--;
        }
        return;
      }
      this.ichild[base] = this.freeInner;
      this.freeInner = t;
    }
  }

  /** Cursor of the smallest pair >= (a, b), or -1. */
  lowerBound(a: number, b: number): number {
    const l = this.descend(a, b);
    return this.cursorFrom(l, this.leafSearch(l, a, b, false));
  }

  /** Cursor of the smallest pair > (a, b), or -1. */
  upperBound(a: number, b: number): number {
    const l = this.descend(a, b);
    return this.cursorFrom(l, this.leafSearch(l, a, b, true));
  }

  /** Cursor of the largest pair < (a, b), or -1. */
  predecessor(a: number, b: number): number {
    let l = this.descend(a, b);
    const i = this.leafSearch(l, a, b, false);
    if (i > 0) return (l << SHIFT) + i - 1;
    for (l = this.lprev[l] as number; l >= 0; l = this.lprev[l] as number) {
      const n = this.lcount[l] as number;
      if (n > 0) return (l << SHIFT) + n - 1;
    }
    return -1;
  }

  /** Cursor of (a, b) itself, or -1. */
  find(a: number, b: number): number {
    const c = this.lowerBound(a, b);
    return c >= 0 && this.la[c] === a && this.lb[c] === b ? c : -1;
  }

  /** Cursor of the smallest element, or -1. */
  first(): number {
    let t = this.root;
    for (let d = 0; d < this.height; d++) t = this.ichild[t << SHIFT] as number;
    return this.cursorFrom(t, 0);
  }

  /** Cursor of the largest element, or -1. */
  last(): number {
    let t = this.root;
    for (let d = 0; d < this.height; d++) t = this.ichild[(t << SHIFT) + (this.icount[t] as number) - 1] as number;
    const n = this.lcount[t] as number;
    return n > 0 ? (t << SHIFT) + n - 1 : -1;
  }

  /** Cursor of the element after the one at `cursor`, or -1. */
  next(cursor: number): number {
    return this.cursorFrom(cursor >> SHIFT, (cursor & (B - 1)) + 1);
  }

  /** Calls `fn(a, b, payload)` for every element in ascending order (not on hot paths). */
  forEach(fn: (a: number, b: number, payload: number) => void): void {
    for (let c = this.first(); c >= 0; c = this.next(c)) fn(this.la[c] as number, this.lb[c] as number, this.lp[c] as number);
  }

  /** Removes every element. */
  clear(): void {
    this.leaves = 0;
    this.inners = 0;
    this.freeLeaf = -1;
    this.freeInner = -1;
    this.height = 0;
    this.count = 0;
    this.root = this.newLeaf();
  }
}
