/**
 * The free-block sets of the caching allocator (BlockPool::blocks, a std::set ordered by size then
 * address within a stream), as treaps whose nodes are the block ids themselves: the keys are read
 * from the block arrays, and a block is in at most one set, so no node storage, copying or lookup
 * is needed. Insert and remove are iterative (no recursion), O(log n) expected; the priorities come
 * from a fixed xorshift sequence, so the same operations always build the same trees.
 */

function grown<T extends Float64Array | Int32Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

/** Block addresses and sizes, with any number of ordered free sets over them. */
export class FreeSets {
  ptr = new Float64Array(256);
  size = new Float64Array(256);
  private left = new Int32Array(256);
  private right = new Int32Array(256);
  private prio = new Int32Array(256);
  private roots = new Int32Array(8).fill(-1);
  private counts = new Int32Array(8);
  private seed = 0x2545f491;
  /** Number of sets. */
  setCount = 0;

  /** Adds an empty set; returns its index. */
  protected addSet(): number {
    const k = this.setCount++;
    if (k === this.roots.length) {
      const r = new Int32Array(k * 2).fill(-1);
      r.set(this.roots);
      this.roots = r;
      this.counts = grown(this.counts, k * 2);
    }
    return k;
  }

  /** Grows the per-block arrays to `n` entries. */
  protected growBlocks(n: number): void {
    this.ptr = grown(this.ptr, n);
    this.size = grown(this.size, n);
    this.left = grown(this.left, n);
    this.right = grown(this.right, n);
    this.prio = grown(this.prio, n);
  }

  /** Number of blocks in set `s`. */
  count(s: number): number {
    return this.counts[s] as number;
  }

  /** Adds block `id` to set `s` under its current (size, address). */
  setInsert(s: number, id: number): void {
    const size = this.size;
    const ptr = this.ptr;
    const L = this.left;
    const R = this.right;
    const P = this.prio;
    const ks = size[id] as number;
    const kp = ptr[id] as number;
    let x = this.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.seed = x;
    P[id] = x;
    // Down to where the new node's priority belongs.
    let parent = -1;
    let parentRight = false;
    let t = this.roots[s] as number;
    while (t >= 0 && (P[t] as number) >= x) {
      parent = t;
      const ts = size[t] as number;
      parentRight = !(ks < ts || (ks === ts && kp < (ptr[t] as number)));
      t = parentRight ? (R[t] as number) : (L[t] as number);
    }
    // Split the subtree at t: keys below go left of the new node, the others right.
    let lo = id;
    let loRight = false;
    let hi = id;
    let hiRight = true;
    while (t >= 0) {
      const ts = size[t] as number;
      if (ts < ks || (ts === ks && (ptr[t] as number) < kp)) {
        if (loRight) R[lo] = t;
        else L[lo] = t;
        lo = t;
        loRight = true;
        t = R[t] as number;
      } else {
        if (hiRight) R[hi] = t;
        else L[hi] = t;
        hi = t;
        hiRight = false;
        t = L[t] as number;
      }
    }
    if (loRight) R[lo] = -1;
    else L[lo] = -1;
    if (hiRight) R[hi] = -1;
    else L[hi] = -1;
    if (parent < 0) this.roots[s] = id;
    else if (parentRight) R[parent] = id;
    else L[parent] = id;
    this.counts[s] = (this.counts[s] as number) + 1;
  }

  /** Removes block `id` from set `s`; its (size, address) must be the ones it was inserted with. */
  setRemove(s: number, id: number): void {
    const size = this.size;
    const ptr = this.ptr;
    const L = this.left;
    const R = this.right;
    const P = this.prio;
    const ks = size[id] as number;
    const kp = ptr[id] as number;
    let parent = -1;
    let slotRight = false;
    let t = this.roots[s] as number;
    while (t !== id) {
      if (t < 0) throw new Error(`block ${id} is not in free set ${s}`);
      parent = t;
      const ts = size[t] as number;
      slotRight = !(ks < ts || (ks === ts && kp < (ptr[t] as number)));
      t = slotRight ? (R[t] as number) : (L[t] as number);
    }
    // Merge the children into the freed slot.
    let l = L[id] as number;
    let r = R[id] as number;
    while (l >= 0 && r >= 0) {
      // merge(l, r): the higher priority on top, the rest merged under its inner side.
      const top = (P[l] as number) > (P[r] as number) ? l : r;
      if (parent < 0) this.roots[s] = top;
      else if (slotRight) R[parent] = top;
      else L[parent] = top;
      parent = top;
      if (top === l) {
        slotRight = true;
        l = R[l] as number;
      } else {
        slotRight = false;
        r = L[r] as number;
      }
    }
    const rest = l >= 0 ? l : r;
    if (parent < 0) this.roots[s] = rest;
    else if (slotRight) R[parent] = rest;
    else L[parent] = rest;
    this.counts[s] = (this.counts[s] as number) - 1;
  }

  /** The first block of set `s` at or after (size, address), or -1 (std::set::lower_bound). */
  setLowerBound(s: number, ks: number, kp: number): number {
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

  /** The block after `id` in set `s`, or -1. */
  setNext(s: number, id: number): number {
    const size = this.size;
    const ptr = this.ptr;
    const ks = size[id] as number;
    const kp = ptr[id] as number;
    let t = this.roots[s] as number;
    let best = -1;
    while (t >= 0) {
      const ts = size[t] as number;
      if (ts > ks || (ts === ks && (ptr[t] as number) > kp)) {
        best = t;
        t = this.left[t] as number;
      } else {
        t = this.right[t] as number;
      }
    }
    return best;
  }

  /** The block before `id` in set `s`, or -1. */
  setPrev(s: number, id: number): number {
    const size = this.size;
    const ptr = this.ptr;
    const ks = size[id] as number;
    const kp = ptr[id] as number;
    let t = this.roots[s] as number;
    let best = -1;
    while (t >= 0) {
      const ts = size[t] as number;
      if (ts < ks || (ts === ks && (ptr[t] as number) < kp)) {
        best = t;
        t = this.right[t] as number;
      } else {
        t = this.left[t] as number;
      }
    }
    return best;
  }

  /** The largest block of set `s`, or -1. */
  setLast(s: number): number {
    let t = this.roots[s] as number;
    if (t < 0) return -1;
    while ((this.right[t] as number) >= 0) t = this.right[t] as number;
    return t;
  }

  /** The blocks of set `s` in order (not on hot paths). */
  setBlocks(s: number): number[] {
    const out: number[] = [];
    const stack: number[] = [];
    let t = this.roots[s] as number;
    while (t >= 0 || stack.length > 0) {
      while (t >= 0) {
        stack.push(t);
        t = this.left[t] as number;
      }
      t = stack.pop() as number;
      out.push(t);
      t = this.right[t] as number;
    }
    return out;
  }
}
