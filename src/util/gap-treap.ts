import { grown } from './typed-arrays.js';

/**
 * Free address ranges as a treap keyed by start address and augmented
 * with the largest gap in each subtree, so that first fit (lowest address that fits) is O(log n).
 */
export class GapTreap {
  private start: Float64Array;
  private len: Float64Array;
  private mx: Float64Array;
  private left: Int32Array;
  private right: Int32Array;
  private prio: Uint32Array;
  private root = -1;
  private used = 0;
  private freeHead = -1;
  private seed = 0x2545f491;
  /** Number of gaps. */
  count = 0;

  constructor(initialCapacity = 64) {
    const n = Math.max(4, initialCapacity);
    this.start = new Float64Array(n);
    this.len = new Float64Array(n);
    this.mx = new Float64Array(n);
    this.left = new Int32Array(n);
    this.right = new Int32Array(n);
    this.prio = new Uint32Array(n);
  }

  private grow(): void {
    const n = this.start.length * 2;
    this.start = grown(this.start, n);
    this.len = grown(this.len, n);
    this.mx = grown(this.mx, n);
    this.left = grown(this.left, n);
    this.right = grown(this.right, n);
    this.prio = grown(this.prio, n);
  }

  private nextPrio(): number {
    let x = this.seed;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    this.seed = x;
    return x;
  }

  private maxOf(t: number): number {
    return t < 0 ? 0 : (this.mx[t] as number);
  }

  private pull(t: number): void {
    const l = this.left[t] as number;
    const r = this.right[t] as number;
    let m = this.len[t] as number;
    if (l >= 0 && (this.mx[l] as number) > m) m = this.mx[l] as number;
    if (r >= 0 && (this.mx[r] as number) > m) m = this.mx[r] as number;
    this.mx[t] = m;
  }

  /** Largest gap. */
  get largest(): number {
    return this.maxOf(this.root);
  }

  /** Adds a free range, merging with touching neighbours. */
  release(addr: number, size: number): void {
    if (size <= 0) return;
    const end = addr + size;
    // One descent finds both neighbours (floor and ceiling of addr) and the path to them.
    let path = this.pathBuf;
    let depth = 0;
    let pred = -1;
    let predDepth = -1;
    let succ = -1;
    let succDepth = -1;
    let t = this.root;
    const start = this.start;
    const left = this.left;
    const right = this.right;
    while (t >= 0) {
      if (depth === path.length) path = this.pathBuf = grown(path, path.length * 2);
      path[depth] = t;
      if ((start[t] as number) <= addr) {
        pred = t;
        predDepth = depth;
        t = right[t] as number;
      } else {
        succ = t;
        succDepth = depth;
        t = left[t] as number;
      }
      depth++;
    }
    const joinsPred = pred >= 0 && (this.start[pred] as number) + (this.len[pred] as number) === addr;
    const joinsSucc = succ >= 0 && this.start[succ] === end;
    if (joinsPred && joinsSucc) {
      // The two neighbours are adjacent in order, so one is the other's descendant and has at most
      // one child on the side that matters: unlink the deeper one and widen the other.
      const total = (this.len[pred] as number) + size + (this.len[succ] as number);
      if (succDepth > predDepth) {
        this.unlinkAt(path, succDepth, this.right[succ] as number);
        this.len[pred] = total;
        this.pullPath(path, succDepth - 1);
      } else {
        this.unlinkAt(path, predDepth, this.left[pred] as number);
        this.start[succ] = this.start[pred] as number;
        this.len[succ] = total;
        this.pullPath(path, predDepth - 1);
      }
    } else if (joinsPred) {
      const grown = (this.len[pred] as number) + size;
      this.len[pred] = grown;
      this.raisePath(path, predDepth, grown);
    } else if (joinsSucc) {
      // Moving the start down keeps the order: nothing lies between pred and succ.
      const grown = (this.len[succ] as number) + size;
      this.start[succ] = addr;
      this.len[succ] = grown;
      this.raisePath(path, succDepth, grown);
    } else {
      this.insertNew(addr, size);
    }
  }

  /** Replaces the node at path[d] by `child` (its only relevant child) and frees it. */
  private unlinkAt(path: Int32Array, d: number, child: number): void {
    const node = path[d] as number;
    if (d === 0) this.root = child;
    else {
      const parent = path[d - 1] as number;
      if (this.left[parent] === node) this.left[parent] = child;
      else this.right[parent] = child;
    }
    this.left[node] = this.freeHead;
    this.freeHead = node;
    this.count--;
  }

  /** Recomputes subtree maxima from path[d] up to the root. */
  private pullPath(path: Int32Array, d: number): void {
    for (let k = d; k >= 0; k--) this.pull(path[k] as number);
  }

  /** After a gap on the path shrank: recompute maxima upwards until one does not change. */
  private lowerPath(path: Int32Array, d: number): void {
    for (let k = d; k >= 0; k--) {
      const t = path[k] as number;
      const old = this.mx[t] as number;
      this.pull(t);
      if (this.mx[t] === old) return;
    }
  }

  /** After a gap on the path grew to `v`: raise maxima upwards while they are below it. */
  private raisePath(path: Int32Array, d: number, v: number): void {
    for (let k = d; k >= 0; k--) {
      const t = path[k] as number;
      if ((this.mx[t] as number) >= v) return;
      this.mx[t] = v;
    }
  }

  /**
   * Takes the lowest-addressed range of `size` bytes whose start is a multiple of `align`.
   * @returns its address, or -1 when no gap fits.
   */
  takeFirstFit(size: number, align: number): number {
    // Fast path: the first gap long enough, found in one descent that records its path.
    let path = this.pathBuf;
    let depth = 0;
    let t = this.root;
    const mx = this.mx;
    const left = this.left;
    const right = this.right;
    const len = this.len;
    if (t < 0 || (mx[t] as number) < size) return -1;
    while (t >= 0) {
      if (depth === path.length) path = this.pathBuf = grown(path, path.length * 2);
      path[depth++] = t;
      const l = left[t] as number;
      if (l >= 0 && (mx[l] as number) >= size) {
        t = l;
        continue;
      }
      if ((len[t] as number) >= size) break;
      t = right[t] as number;
    }
    const s = this.start[t] as number;
    const a = align <= 1 ? s : Math.ceil(s / align) * align;
    if (a + size <= s + (this.len[t] as number)) {
      this.carveOnPath(path, depth - 1, a, size);
      return a;
    }
    // Alignment pushed it out of that gap: look further right, gap by gap.
    let minStart = s + 1;
    for (;;) {
      const u = this.firstFitFrom(this.root, minStart, size);
      if (u < 0) return -1;
      const us = this.start[u] as number;
      const ua = Math.ceil(us / align) * align;
      if (ua + size <= us + (this.len[u] as number)) {
        this.carve(u, ua, size);
        return ua;
      }
      minStart = us + 1;
    }
  }

  /** Removes [a, a+size) from the gap at path[d], which contains it. */
  private carveOnPath(path: Int32Array, d: number, a: number, size: number): void {
    const t = path[d] as number;
    const s = this.start[t] as number;
    const tailStart = a + size;
    const tailLen = s + (this.len[t] as number) - tailStart;
    if (a === s && tailLen > 0) {
      this.start[t] = tailStart;
      this.len[t] = tailLen;
      this.lowerPath(path, d);
    } else if (a === s) {
      const m = this.merge(this.left[t] as number, this.right[t] as number);
      this.unlinkAt(path, d, m);
      this.pullPath(path, d - 1);
    } else {
      this.len[t] = a - s;
      this.lowerPath(path, d);
      if (tailLen > 0) this.insertNew(tailStart, tailLen);
    }
  }

  /** Takes exactly [addr, addr+size) if it is free; false otherwise. */
  takeAt(addr: number, size: number): boolean {
    const t = this.floorNode(addr);
    if (t < 0) return false;
    const s = this.start[t] as number;
    if (addr + size > s + (this.len[t] as number)) return false;
    this.carve(t, addr, size);
    return true;
  }

  /** Calls fn(start, length) for each gap in address order. */
  forEach(fn: (start: number, length: number) => void): void {
    const stack: number[] = [];
    let t = this.root;
    while (t >= 0 || stack.length > 0) {
      while (t >= 0) {
        stack.push(t);
        t = this.left[t] as number;
      }
      t = stack.pop() as number;
      fn(this.start[t] as number, this.len[t] as number);
      t = this.right[t] as number;
    }
  }

  /** Removes [a, a+size) from gap t, which contains it. */
  private carve(t: number, a: number, size: number): void {
    const s = this.start[t] as number;
    const l = this.len[t] as number;
    const tailStart = a + size;
    const tailLen = s + l - tailStart;
    if (a === s) {
      if (tailLen === 0) {
        this.root = this.removeAt(this.root, s);
      } else {
        this.start[t] = tailStart;
        this.len[t] = tailLen;
        this.refresh(tailStart);
      }
    } else {
      this.len[t] = a - s;
      this.refresh(s);
      if (tailLen > 0) this.insertNew(tailStart, tailLen);
    }
  }

  /**
   * Recomputes the subtree maxima along the path to the node keyed `key`. A node whose start moved
   * keeps its place (nothing lies between it and its neighbours), so routing by the new key works.
   */
  private refresh(key: number): void {
    let path = this.pathBuf;
    let depth = 0;
    let t = this.root;
    while (t >= 0) {
      if (depth === path.length) path = this.pathBuf = grown(path, path.length * 2);
      path[depth++] = t;
      const s = this.start[t] as number;
      if (s === key) break;
      t = key < s ? (this.left[t] as number) : (this.right[t] as number);
    }
    for (let d = depth - 1; d >= 0; d--) this.pull(path[d] as number);
  }

  private pathBuf: Int32Array = new Int32Array(128);

  private insertNew(addr: number, size: number): void {
    let n: number;
    if (this.freeHead >= 0) {
      n = this.freeHead;
      this.freeHead = this.left[n] as number;
    } else {
      if (this.used === this.start.length) this.grow();
      n = this.used++;
    }
    this.start[n] = addr;
    this.len[n] = size;
    this.mx[n] = size;
    this.left[n] = -1;
    this.right[n] = -1;
    this.prio[n] = this.nextPrio();
    this.root = this.insertAt(this.root, n);
    this.count++;
  }

  private insertAt(t: number, n: number): number {
    if (t < 0) return n;
    if ((this.prio[n] as number) > (this.prio[t] as number)) {
      this.split(t, this.start[n] as number);
      this.left[n] = this.splitL;
      this.right[n] = this.splitR;
      this.pull(n);
      return n;
    }
    if ((this.start[n] as number) < (this.start[t] as number)) this.left[t] = this.insertAt(this.left[t] as number, n);
    else this.right[t] = this.insertAt(this.right[t] as number, n);
    this.pull(t);
    return t;
  }

  private splitL = -1;
  private splitR = -1;

  private split(t: number, key: number): void {
    if (t < 0) {
      this.splitL = this.splitR = -1;
      return;
    }
    if ((this.start[t] as number) < key) {
      this.split(this.right[t] as number, key);
      this.right[t] = this.splitL;
      this.pull(t);
      this.splitL = t;
    } else {
      this.split(this.left[t] as number, key);
      this.left[t] = this.splitR;
      this.pull(t);
      this.splitR = t;
    }
  }

  private merge(l: number, r: number): number {
    if (l < 0) return r;
    if (r < 0) return l;
    if ((this.prio[l] as number) > (this.prio[r] as number)) {
      this.right[l] = this.merge(this.right[l] as number, r);
      this.pull(l);
      return l;
    }
    this.left[r] = this.merge(l, this.left[r] as number);
    this.pull(r);
    return r;
  }

  private removeAt(t: number, key: number): number {
    if (t < 0) return t;
    const s = this.start[t] as number;
    if (s === key) {
      const m = this.merge(this.left[t] as number, this.right[t] as number);
      this.left[t] = this.freeHead;
      this.freeHead = t;
      this.count--;
      return m;
    }
    if (key < s) this.left[t] = this.removeAt(this.left[t] as number, key);
    else this.right[t] = this.removeAt(this.right[t] as number, key);
    this.pull(t);
    return t;
  }

  /** First gap in address order with start >= minStart and length >= need. */
  private firstFitFrom(t: number, minStart: number, need: number): number {
    while (t >= 0) {
      if ((this.mx[t] as number) < need) return -1;
      if ((this.start[t] as number) >= minStart) {
        const l = this.left[t] as number;
        if (l >= 0 && (this.mx[l] as number) >= need) {
          const r = this.firstFitFrom(l, minStart, need);
          if (r >= 0) return r;
        }
        if ((this.len[t] as number) >= need) return t;
      }
      t = this.right[t] as number;
    }
    return -1;
  }

  /** The gap with the largest start <= addr, or -1. */
  private floorNode(addr: number): number {
    let t = this.root;
    let best = -1;
    while (t >= 0) {
      if ((this.start[t] as number) <= addr) {
        best = t;
        t = this.right[t] as number;
      } else {
        t = this.left[t] as number;
      }
    }
    return best;
  }

}
