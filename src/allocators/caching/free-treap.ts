/**
 * Ordered sets of block ids kept as treaps (the large-set mode of {@link FreeSets}): keys are the
 * (size, address) of the blocks, nodes are the block ids. Nodes keep their parent and their
 * in-order neighbours, so removal needs no search (expected O(1) rotations), next/previous are O(1),
 * and a block whose key changes is placed by walking from its old place (a few steps) or by a root
 * descent. Priorities come from a fixed xorshift sequence: the same operations build the same trees.
 */

import { grown } from '../../util/typed-arrays.js';

/** Steps along the neighbours before a moved block is placed by a descent from the root. */
const MAX_WALK = 8;

/** Block addresses and sizes, and treaps over them. */
export class TreapSets {
  ptr = new Float64Array(256);
  size = new Float64Array(256);
  private left = new Int32Array(256);
  private right = new Int32Array(256);
  private parent = new Int32Array(256);
  protected prevOf = new Int32Array(256);
  protected nextOf = new Int32Array(256);
  private prio = new Int32Array(256);
  protected roots = new Int32Array(8).fill(-1);
  protected firsts = new Int32Array(8).fill(-1);
  protected lasts = new Int32Array(8).fill(-1);
  protected counts = new Int32Array(8);
  private seed = 0x2545f491;

  /** Makes room for set index `k` (sets are numbered from 0). */
  protected growSets(k: number): void {
    if (k < this.roots.length) return;
    const n = k * 2;
    const minus = (a: Int32Array): Int32Array<ArrayBuffer> => {
      const b = new Int32Array(n).fill(-1);
      b.set(a);
      return b;
    };
    this.roots = minus(this.roots);
    this.firsts = minus(this.firsts);
    this.lasts = minus(this.lasts);
    this.counts = grown(this.counts, n);
  }

  /** Grows the per-block arrays to `n` entries. */
  protected growBlocks(n: number): void {
    this.ptr = grown(this.ptr, n);
    this.size = grown(this.size, n);
    this.left = grown(this.left, n);
    this.right = grown(this.right, n);
    this.parent = grown(this.parent, n);
    this.prevOf = grown(this.prevOf, n);
    this.nextOf = grown(this.nextOf, n);
    this.prio = grown(this.prio, n);
  }

  /** Number of blocks in set `s`. */
  count(s: number): number {
    return this.counts[s] as number;
  }

  /** True when (s1, p1) orders before (s2, p2). */
  private static less(s1: number, p1: number, s2: number, p2: number): boolean {
    return s1 < s2 || (s1 === s2 && p1 < p2);
  }

  /** Treap insert: the neighbours by a descent from the root, then a leaf rotated up. */
  protected treapInsert(s: number, id: number): void {
    // The in-order neighbours of the key, by a descent from the root.
    const size = this.size;
    const ptr = this.ptr;
    const ks = size[id] as number;
    const kp = ptr[id] as number;
    let before = -1;
    let after = -1;
    let t = this.roots[s] as number;
    while (t >= 0) {
      const ts = size[t] as number;
      if (ts < ks || (ts === ks && (ptr[t] as number) < kp)) {
        before = t;
        t = this.right[t] as number;
      } else {
        after = t;
        t = this.left[t] as number;
      }
    }
    this.insertBetween(s, id, before, after);
  }

  /** Links `id` between its in-order neighbours as a leaf, then rotates it up to its priority. */
  protected insertBetween(s: number, id: number, before: number, after: number): void {
    const L = this.left;
    const R = this.right;
    const Pa = this.parent;
    let x = this.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.seed = x;
    this.prio[id] = x;
    L[id] = -1;
    R[id] = -1;
    // The leaf position is the right child of the predecessor or the left child of the successor.
    if (before >= 0 && (R[before] as number) < 0) {
      R[before] = id;
      Pa[id] = before;
    } else if (after >= 0) {
      L[after] = id;
      Pa[id] = after;
    } else {
      this.roots[s] = id;
      Pa[id] = -1;
    }
    this.prevOf[id] = before;
    this.nextOf[id] = after;
    if (before >= 0) this.nextOf[before] = id;
    else this.firsts[s] = id;
    if (after >= 0) this.prevOf[after] = id;
    else this.lasts[s] = id;
    this.counts[s] = (this.counts[s] as number) + 1;
    // Rotate up while the priority is higher than the parent's.
    const P = this.prio;
    let p = Pa[id] as number;
    while (p >= 0 && (P[p] as number) < x) {
      const g = Pa[p] as number;
      if (L[p] === id) {
        const c = R[id] as number;
        L[p] = c;
        if (c >= 0) Pa[c] = p;
        R[id] = p;
      } else {
        const c = L[id] as number;
        R[p] = c;
        if (c >= 0) Pa[c] = p;
        L[id] = p;
      }
      Pa[p] = id;
      Pa[id] = g;
      if (g < 0) this.roots[s] = id;
      else if (L[g] === p) L[g] = id;
      else R[g] = id;
      p = g;
    }
  }

  /** Treap removal (no search: the children are merged into the node's place). */
  protected treapRemove(s: number, id: number): void {
    const L = this.left;
    const R = this.right;
    const Pa = this.parent;
    const P = this.prio;
    let slot = Pa[id] as number;
    let slotLeft = slot >= 0 && L[slot] === id;
    let l = L[id] as number;
    let r = R[id] as number;
    for (;;) {
      // merge(l, r): the higher priority on top, the rest merged under its inner side.
      let top: number;
      if (l < 0) top = r;
      else if (r < 0) top = l;
      else top = (P[l] as number) > (P[r] as number) ? l : r;
      if (slot < 0) this.roots[s] = top;
      else if (slotLeft) L[slot] = top;
      else R[slot] = top;
      if (top < 0) break;
      Pa[top] = slot;
      if (l < 0 || r < 0) break;
      slot = top;
      if (top === l) {
        slotLeft = false;
        l = R[l] as number;
      } else {
        slotLeft = true;
        r = L[r] as number;
      }
    }
    const before = this.prevOf[id] as number;
    const after = this.nextOf[id] as number;
    if (before >= 0) this.nextOf[before] = after;
    else this.firsts[s] = after;
    if (after >= 0) this.prevOf[after] = before;
    else this.lasts[s] = before;
    this.counts[s] = (this.counts[s] as number) - 1;
  }

  /**
   * Treap re-key, after the block's new key is written: in place when the neighbours still bracket
   * it, else a short walk or a descent.
   */
  protected treapRekey(s: number, id: number): void {
    const size = this.size;
    const ptr = this.ptr;
    const less = TreapSets.less;
    const newSize = size[id] as number;
    const newPtr = ptr[id] as number;
    let before = this.prevOf[id] as number;
    let after = this.nextOf[id] as number;
    const fitsBefore = before < 0 || less(size[before] as number, ptr[before] as number, newSize, newPtr);
    const fitsAfter = after < 0 || less(newSize, newPtr, size[after] as number, ptr[after] as number);
    if (fitsBefore && fitsAfter) return;
    this.treapRemove(s, id);
    let steps = 0;
    if (!fitsAfter) {
      // Moving up: past the neighbours that are now below it.
      before = after;
      after = this.nextOf[after] as number;
      while (after >= 0 && less(size[after] as number, ptr[after] as number, newSize, newPtr) && steps++ < MAX_WALK) {
        before = after;
        after = this.nextOf[after] as number;
      }
    } else {
      after = before;
      before = this.prevOf[before] as number;
      while (before >= 0 && less(newSize, newPtr, size[before] as number, ptr[before] as number) && steps++ < MAX_WALK) {
        after = before;
        before = this.prevOf[before] as number;
      }
    }
    if (steps > MAX_WALK) this.treapInsert(s, id);
    else this.insertBetween(s, id, before, after);
  }

  protected treapLowerBound(s: number, ks: number, kp: number): number {
    const size = this.size;
    const ptr = this.ptr;
    let t = this.roots[s] as number;
    let best = -1;
    while (t >= 0) {
      const ts = size[t] as number;
      if (ts > ks || (ts === ks && (ptr[t] as number) >= kp)) {
        best = t;
        t = this.left[t] as number;
      } else {
        t = this.right[t] as number;
      }
    }
    return best;
  }
}
