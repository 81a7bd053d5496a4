/**
 * The free-block sets of the caching allocator (BlockPool::blocks, a std::set ordered by size then
 * address within a stream), over block ids: keys are read from the block arrays and a block is in
 * at most one set, so there is no node storage to manage.
 *
 * Most free lists are short, and there a sorted array of ids wins: a binary search finds the best
 * fit, and a block whose key changes (the remainder of a split, a block grown by a merge) moves by
 * shifting the few ids it passes. A set that grows past ARRAY_MAX blocks becomes a treap, O(log n):
 * nodes keep their parent and their in-order neighbours, so removal needs no search (expected O(1)
 * rotations), and a moved block is placed by walking from its old place (a few steps) or by a root
 * descent. Priorities come from a fixed xorshift sequence: the same operations build the same trees.
 */

function grown<T extends Float64Array | Int32Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

/** Steps along the neighbours before a moved block is placed by a descent from the root. */
const MAX_WALK = 8;
/** A set is a sorted array up to this many blocks, a treap beyond. */
const ARRAY_MAX = 128;
/** A treap that shrinks below this many blocks becomes an array again (hysteresis). */
const ARRAY_MIN = 32;

/** Block addresses and sizes, with any number of ordered free sets over them. */
export class FreeSets {
  ptr = new Float64Array(256);
  size = new Float64Array(256);
  private left = new Int32Array(256);
  private right = new Int32Array(256);
  private parent = new Int32Array(256);
  private prevOf = new Int32Array(256);
  private nextOf = new Int32Array(256);
  private prio = new Int32Array(256);
  /** Position of a block in its set's array (array mode). */
  private posOf = new Int32Array(256);
  /** Per set: its sorted array of block ids (array mode), and whether it is a treap now. */
  private arrays: Int32Array[] = [];
  private isTreap = new Uint8Array(8);
  private roots = new Int32Array(8).fill(-1);
  private firsts = new Int32Array(8).fill(-1);
  private lasts = new Int32Array(8).fill(-1);
  private counts = new Int32Array(8);
  private seed = 0x2545f491;
  /** Number of sets. */
  setCount = 0;

  /** Adds an empty set; returns its index. */
  protected addSet(): number {
    const k = this.setCount++;
    if (k === this.roots.length) {
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
      const t = new Uint8Array(n);
      t.set(this.isTreap);
      this.isTreap = t;
    }
    this.arrays.push(new Int32Array(16));
    return k;
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
    this.posOf = grown(this.posOf, n);
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
  private treapInsert(s: number, id: number): void {
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
  private insertBetween(s: number, id: number, before: number, after: number): void {
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
  private treapRemove(s: number, id: number): void {
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

  /** Treap re-key: in place when the neighbours still bracket it, else a short walk or a descent. */
  private treapRekey(s: number, id: number, newSize: number, newPtr: number): void {
    const size = this.size;
    const ptr = this.ptr;
    const less = FreeSets.less;
    let before = this.prevOf[id] as number;
    let after = this.nextOf[id] as number;
    const fitsBefore = before < 0 || less(size[before] as number, ptr[before] as number, newSize, newPtr);
    const fitsAfter = after < 0 || less(newSize, newPtr, size[after] as number, ptr[after] as number);
    size[id] = newSize;
    ptr[id] = newPtr;
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

  private treapLowerBound(s: number, ks: number, kp: number): number {
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

  /** Adds block `id` to set `s` under its current (size, address). */
  setInsert(s: number, id: number): void {
    if (this.isTreap[s] === 0) {
      if ((this.counts[s] as number) < ARRAY_MAX) {
        this.arrayInsert(s, id);
        return;
      }
      this.toTreap(s);
    }
    this.treapInsert(s, id);
  }

  /** Removes block `id` from set `s`. */
  setRemove(s: number, id: number): void {
    if (this.isTreap[s] === 0) {
      this.arrayRemove(s, id);
      return;
    }
    this.treapRemove(s, id);
    if ((this.counts[s] as number) < ARRAY_MIN) this.toArray(s);
  }

  /** Gives block `id` of set `s` the key (newSize, newPtr) and moves it to its new place. */
  setRekey(s: number, id: number, newSize: number, newPtr: number): void {
    if (this.isTreap[s] === 0) this.arrayRekey(s, id, newSize, newPtr);
    else this.treapRekey(s, id, newSize, newPtr);
  }

  /** The first block of set `s` at or after (size, address), or -1 (std::set::lower_bound). */
  setLowerBound(s: number, ks: number, kp: number): number {
    if (this.isTreap[s] !== 0) return this.treapLowerBound(s, ks, kp);
    const a = this.arrays[s] as Int32Array;
    const size = this.size;
    const ptr = this.ptr;
    let lo = 0;
    let hi = this.counts[s] as number;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      const t = a[m] as number;
      const ts = size[t] as number;
      if (ts < ks || (ts === ks && (ptr[t] as number) < kp)) lo = m + 1;
      else hi = m;
    }
    return lo < (this.counts[s] as number) ? (a[lo] as number) : -1;
  }

  /** The block after `id` in set `s`, or -1. */
  setNext(s: number, id: number): number {
    if (this.isTreap[s] !== 0) return this.nextOf[id] as number;
    const p = (this.posOf[id] as number) + 1;
    return p < (this.counts[s] as number) ? ((this.arrays[s] as Int32Array)[p] as number) : -1;
  }

  /** The block before `id` in set `s`, or -1. */
  setPrev(s: number, id: number): number {
    if (this.isTreap[s] !== 0) return this.prevOf[id] as number;
    const p = (this.posOf[id] as number) - 1;
    return p >= 0 ? ((this.arrays[s] as Int32Array)[p] as number) : -1;
  }

  /** The largest block of set `s`, or -1. */
  setLast(s: number): number {
    if (this.isTreap[s] !== 0) return this.lasts[s] as number;
    const n = this.counts[s] as number;
    return n > 0 ? ((this.arrays[s] as Int32Array)[n - 1] as number) : -1;
  }

  /** The blocks of set `s` in order (not on hot paths). */
  setBlocks(s: number): number[] {
    const out: number[] = [];
    if (this.isTreap[s] === 0) {
      const a = this.arrays[s] as Int32Array;
      for (let k = 0; k < (this.counts[s] as number); k++) out.push(a[k] as number);
    } else {
      for (let t = this.firsts[s] as number; t >= 0; t = this.nextOf[t] as number) out.push(t);
    }
    return out;
  }

  // Array mode: the set's block ids sorted by (size, address); moves shift the ids in between.

  private arrayInsert(s: number, id: number): void {
    let a = this.arrays[s] as Int32Array;
    const n = this.counts[s] as number;
    if (n === a.length) {
      a = grown(a, n * 2);
      this.arrays[s] = a;
    }
    const size = this.size;
    const ptr = this.ptr;
    const ks = size[id] as number;
    const kp = ptr[id] as number;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      const t = a[m] as number;
      const ts = size[t] as number;
      if (ts < ks || (ts === ks && (ptr[t] as number) < kp)) lo = m + 1;
      else hi = m;
    }
    const pos = this.posOf;
    for (let k = n; k > lo; k--) {
      const t = a[k - 1] as number;
      a[k] = t;
      pos[t] = k;
    }
    a[lo] = id;
    pos[id] = lo;
    this.counts[s] = n + 1;
  }

  private arrayRemove(s: number, id: number): void {
    const a = this.arrays[s] as Int32Array;
    const n = (this.counts[s] as number) - 1;
    const pos = this.posOf;
    for (let k = pos[id] as number; k < n; k++) {
      const t = a[k + 1] as number;
      a[k] = t;
      pos[t] = k;
    }
    this.counts[s] = n;
  }

  private arrayRekey(s: number, id: number, ks: number, kp: number): void {
    const a = this.arrays[s] as Int32Array;
    const n = this.counts[s] as number;
    const size = this.size;
    const ptr = this.ptr;
    const pos = this.posOf;
    size[id] = ks;
    ptr[id] = kp;
    let p = pos[id] as number;
    // Up past the blocks that now order below it, or down past those that order above it.
    while (p + 1 < n) {
      const t = a[p + 1] as number;
      const ts = size[t] as number;
      if (!(ts < ks || (ts === ks && (ptr[t] as number) < kp))) break;
      a[p] = t;
      pos[t] = p;
      p++;
    }
    while (p > 0) {
      const t = a[p - 1] as number;
      const ts = size[t] as number;
      if (!(ks < ts || (ks === ts && kp < (ptr[t] as number)))) break;
      a[p] = t;
      pos[t] = p;
      p--;
    }
    a[p] = id;
    pos[id] = p;
  }

  /** A set that outgrew its array becomes a treap (built by appending in order). */
  private toTreap(s: number): void {
    const a = this.arrays[s] as Int32Array;
    const n = this.counts[s] as number;
    this.isTreap[s] = 1;
    this.counts[s] = 0;
    this.roots[s] = -1;
    this.firsts[s] = -1;
    this.lasts[s] = -1;
    for (let k = 0; k < n; k++) this.insertBetween(s, a[k] as number, k > 0 ? (a[k - 1] as number) : -1, -1);
  }

  /** A treap that shrank becomes an array again. */
  private toArray(s: number): void {
    const n = this.counts[s] as number;
    let a = this.arrays[s] as Int32Array;
    if (a.length < n) a = this.arrays[s] = new Int32Array(ARRAY_MAX);
    let k = 0;
    for (let t = this.firsts[s] as number; t >= 0; t = this.nextOf[t] as number) {
      a[k] = t;
      this.posOf[t] = k++;
    }
    this.isTreap[s] = 0;
    this.roots[s] = -1;
  }
}
