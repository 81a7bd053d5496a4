/**
 * The free-block sets of the caching allocator (BlockPool::blocks, a std::set ordered by size then
 * address within a stream), over block ids: keys are read from the block arrays and a block is in
 * at most one set, so there is no node storage to manage.
 *
 * Most free lists are short, and there a sorted array of ids wins: a binary search finds the best
 * fit, and a block whose key changes (the remainder of a split, a block grown by a merge) moves by
 * shifting the few ids it passes. A set that grows past ARRAY_MAX blocks becomes a treap
 * ({@link TreapSets}, O(log n)), and an array again when it shrinks below ARRAY_MIN.
 */
import { grown } from '../../util/typed-arrays.js';
import { TreapSets } from './free-treap.js';

/** A set is a sorted array up to this many blocks, a treap beyond. */
const ARRAY_MAX = 128;
/** A treap that shrinks below this many blocks becomes an array again (hysteresis). */
const ARRAY_MIN = 32;

/** Block addresses and sizes, with any number of ordered free sets over them. */
export class FreeSets extends TreapSets {
  /** Position of a block in its set's array (array mode). */
  private posOf = new Int32Array(256);
  /** Per set: its sorted array of block ids (array mode), and whether it is a treap now. */
  private arrays: Int32Array[] = [];
  private isTreap = new Uint8Array(8);
  /** Number of sets. */
  setCount = 0;
  /** Blocks in all sets. */
  totalCount = 0;
  /**
   * The largest block of every set, as a tournament tree (leaf `leaves + s` for set s, each inner
   * node the larger of its children), so that the largest free block of thousands of streams is
   * read in O(1) and kept in O(log sets) only when a set's largest block changes.
   */
  private maxTree = new Float64Array(2);
  private leaves = 1;

  /** Adds an empty set; returns its index. */
  protected addSet(): number {
    const k = this.setCount++;
    this.growSets(k);
    if (k >= this.isTreap.length) this.isTreap = grown(this.isTreap, k * 2);
    this.arrays.push(new Int32Array(16));
    if (k >= this.leaves) this.growMaxTree();
    return k;
  }

  /** The largest block in any set (0 when all are empty). */
  largestInSets(): number {
    return this.maxTree[1] as number;
  }

  private growMaxTree(): void {
    const old = this.maxTree;
    const oldLeaves = this.leaves;
    this.leaves *= 2;
    this.maxTree = new Float64Array(this.leaves * 2);
    for (let k = 0; k < oldLeaves; k++) this.maxTree[this.leaves + k] = old[oldLeaves + k] as number;
    for (let i = this.leaves - 1; i >= 1; i--) this.maxTree[i] = Math.max(this.maxTree[2 * i] as number, this.maxTree[2 * i + 1] as number);
  }

  /** After a change of set `s`: its largest block into the tree, when it changed. */
  private noteMax(s: number): void {
    const last = this.setLast(s);
    this.putMax(s, last >= 0 ? (this.size[last] as number) : 0);
  }

  /** Set `s`'s largest block is `v` bytes (0: empty). */
  private putMax(s: number, v: number): void {
    const t = this.maxTree;
    let i = this.leaves + s;
    if (t[i] === v) return;
    t[i] = v;
    for (i >>= 1; i >= 1; i >>= 1) {
      const m = Math.max(t[2 * i] as number, t[2 * i + 1] as number);
      if (t[i] === m) return;
      t[i] = m;
    }
  }

  /** Grows the per-block arrays to `n` entries. */
  protected override growBlocks(n: number): void {
    super.growBlocks(n);
    this.posOf = grown(this.posOf, n);
  }

  /** Adds block `id` to set `s` under its current (size, address). */
  setInsert(s: number, id: number): void {
    this.totalCount++;
    if (this.isTreap[s] === 0) {
      const n = this.counts[s] as number;
      if (n < ARRAY_MAX) {
        // Array mode, in place here rather than in a function of its own (which V8 would compile on
        // its own and again inlined here): the ids above the key's place shift up one.
        let a = this.arrays[s] as Int32Array;
        if (n === a.length) {
          a = grown(a, n * 2);
          this.arrays[s] = a;
        }
        const lo = this.arrayPosition(a, n, this.size[id] as number, this.ptr[id] as number);
        const pos = this.posOf;
        for (let k = n; k > lo; k--) {
          const t = a[k - 1] as number;
          a[k] = t;
          pos[t] = k;
        }
        a[lo] = id;
        pos[id] = lo;
        this.counts[s] = n + 1;
        if (lo === n) this.putMax(s, this.size[id] as number);
        return;
      }
      this.toTreap(s);
    }
    this.treapInsert(s, id);
    this.noteMax(s);
  }

  /** Removes block `id` from set `s`. */
  setRemove(s: number, id: number): void {
    this.totalCount--;
    if (this.isTreap[s] === 0) {
      // Array mode (in place, as in setInsert): the ids above it shift down one.
      const a = this.arrays[s] as Int32Array;
      const n = (this.counts[s] as number) - 1;
      const pos = this.posOf;
      const p = pos[id] as number;
      for (let k = p; k < n; k++) {
        const t = a[k + 1] as number;
        a[k] = t;
        pos[t] = k;
      }
      this.counts[s] = n;
      if (p === n) this.putMax(s, n > 0 ? (this.size[a[n - 1] as number] as number) : 0);
      return;
    }
    this.treapRemove(s, id);
    if ((this.counts[s] as number) < ARRAY_MIN) this.toArray(s);
    this.noteMax(s);
  }

  /**
   * Moves block `id` of set `s` to the place of the key (size, address) just written to it. The key
   * is read from the block arrays, not passed: an address is a double, which a call that V8 does not
   * inline passes as a new heap number (some 6 MB of garbage per 10^6 events of a replay).
   */
  setRekeyed(s: number, id: number): void {
    if (this.isTreap[s] !== 0) {
      this.treapRekey(s, id);
      this.noteMax(s);
      return;
    }
    // Array mode (in place, as in setInsert): up past the blocks that now order below it, or down
    // past those that order above it. The largest block changes only when the last place does.
    const a = this.arrays[s] as Int32Array;
    const n = this.counts[s] as number;
    const size = this.size;
    const ptr = this.ptr;
    const pos = this.posOf;
    const ks = size[id] as number;
    const kp = ptr[id] as number;
    const p0 = pos[id] as number;
    let p = p0;
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
    if (p0 === n - 1 || p === n - 1) this.putMax(s, size[a[n - 1] as number] as number);
  }

  /** The first block of set `s` at or after (size, address), or -1 (std::set::lower_bound). */
  setLowerBound(s: number, ks: number, kp: number): number {
    if (this.isTreap[s] !== 0) return this.treapLowerBound(s, ks, kp);
    const a = this.arrays[s] as Int32Array;
    const lo = this.arrayPosition(a, this.counts[s] as number, ks, kp);
    return lo < (this.counts[s] as number) ? (a[lo] as number) : -1;
  }

  /**
   * The first block of set `s` of at least `ks` bytes, or -1: {@link setLowerBound} at (ks, -1),
   * which no address orders below, so that only sizes are compared.
   */
  setFirstAtLeast(s: number, ks: number): number {
    if (this.isTreap[s] !== 0) return this.treapLowerBound(s, ks, -1);
    const a = this.arrays[s] as Int32Array;
    const n = this.counts[s] as number;
    const size = this.size;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if ((size[a[m] as number] as number) < ks) lo = m + 1;
      else hi = m;
    }
    return lo < n ? (a[lo] as number) : -1;
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

  // Array mode: the set's block ids sorted by (size, address); moves shift the ids in between. The
  // largest block changes only when the last place of the array does: only then is the tree told.
  // Insert, remove and re-key do it in place (setInsert, setRemove, setRekeyed).

  /** The first index of `a[0, n)` whose block is at or after (ks, kp) in (size, address) order. */
  private arrayPosition(a: Int32Array, n: number, ks: number, kp: number): number {
    const size = this.size;
    const ptr = this.ptr;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      const t = a[m] as number;
      const ts = size[t] as number;
      if (ts < ks || (ts === ks && (ptr[t] as number) < kp)) lo = m + 1;
      else hi = m;
    }
    return lo;
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
