/**
 * An ordered set of (a, b) number pairs with an integer payload, as a treap in typed arrays: no
 * object per element, O(log n) expected per operation, deterministic (priorities come from a fixed
 * xorshift sequence, so the same operations always build the same tree).
 *
 * Allocators use it for free lists ordered by (size, address), as std::set is used in the real ones.
 */
export class OrderedSet {
  private ka: Float64Array;
  private kb: Float64Array;
  private pay: Int32Array;
  private left: Int32Array;
  private right: Int32Array;
  private prio: Uint32Array;
  private root = -1;
  private count = 0;
  private freeHead = -1;
  private used = 0;
  private seed = 0x9e3779b9;

  constructor(initialCapacity = 64) {
    const n = Math.max(4, initialCapacity);
    this.ka = new Float64Array(n);
    this.kb = new Float64Array(n);
    this.pay = new Int32Array(n);
    this.left = new Int32Array(n);
    this.right = new Int32Array(n);
    this.prio = new Uint32Array(n);
  }

  /** Number of elements. */
  get size(): number {
    return this.count;
  }

  /** First key of a node returned by a query. */
  a(node: number): number {
    return this.ka[node] as number;
  }

  /** Second key of a node. */
  b(node: number): number {
    return this.kb[node] as number;
  }

  /** Payload of a node. */
  payload(node: number): number {
    return this.pay[node] as number;
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

  private grow(): void {
    const n = this.ka.length * 2;
    const g64 = (a: Float64Array): Float64Array => {
      const b = new Float64Array(n);
      b.set(a);
      return b;
    };
    const g32 = (a: Int32Array): Int32Array => {
      const b = new Int32Array(n);
      b.set(a);
      return b;
    };
    this.ka = g64(this.ka);
    this.kb = g64(this.kb);
    this.pay = g32(this.pay);
    this.left = g32(this.left);
    this.right = g32(this.right);
    const p = new Uint32Array(n);
    p.set(this.prio);
    this.prio = p;
  }

  private newNode(a: number, b: number, payload: number): number {
    let n: number;
    if (this.freeHead >= 0) {
      n = this.freeHead;
      this.freeHead = this.left[n] as number;
    } else {
      if (this.used === this.ka.length) this.grow();
      n = this.used++;
    }
    this.ka[n] = a;
    this.kb[n] = b;
    this.pay[n] = payload;
    this.left[n] = -1;
    this.right[n] = -1;
    this.prio[n] = this.nextPrio();
    return n;
  }

  private less(a1: number, b1: number, a2: number, b2: number): boolean {
    return a1 < a2 || (a1 === a2 && b1 < b2);
  }

  /** Inserts (a, b) with a payload; the pair must not be present. Returns the node. */
  insert(a: number, b: number, payload = 0): number {
    const n = this.newNode(a, b, payload);
    this.root = this.insertAt(this.root, n);
    this.count++;
    return n;
  }

  private insertAt(t: number, n: number): number {
    if (t < 0) return n;
    const prio = this.prio;
    if ((prio[n] as number) > (prio[t] as number)) {
      this.split(t, this.ka[n] as number, this.kb[n] as number);
      this.left[n] = this.splitL;
      this.right[n] = this.splitR;
      return n;
    }
    if (this.less(this.ka[n] as number, this.kb[n] as number, this.ka[t] as number, this.kb[t] as number)) {
      this.left[t] = this.insertAt(this.left[t] as number, n);
    } else {
      this.right[t] = this.insertAt(this.right[t] as number, n);
    }
    return t;
  }

  private splitL = -1;
  private splitR = -1;

  /** Splits t into keys < (a, b) and keys >= (a, b). */
  private split(t: number, a: number, b: number): void {
    if (t < 0) {
      this.splitL = this.splitR = -1;
      return;
    }
    if (this.less(this.ka[t] as number, this.kb[t] as number, a, b)) {
      this.split(this.right[t] as number, a, b);
      this.right[t] = this.splitL;
      this.splitL = t;
    } else {
      this.split(this.left[t] as number, a, b);
      this.left[t] = this.splitR;
      this.splitR = t;
    }
  }

  private merge(l: number, r: number): number {
    if (l < 0) return r;
    if (r < 0) return l;
    if ((this.prio[l] as number) > (this.prio[r] as number)) {
      this.right[l] = this.merge(this.right[l] as number, r);
      return l;
    }
    this.left[r] = this.merge(l, this.left[r] as number);
    return r;
  }

  /** Removes (a, b); returns false when it was not present. */
  remove(a: number, b: number): boolean {
    let parent = -1;
    let t = this.root;
    let wentLeft = false;
    const ka = this.ka;
    const kb = this.kb;
    while (t >= 0) {
      const ta = ka[t] as number;
      const tb = kb[t] as number;
      if (ta === a && tb === b) break;
      parent = t;
      if (a < ta || (a === ta && b < tb)) {
        t = this.left[t] as number;
        wentLeft = true;
      } else {
        t = this.right[t] as number;
        wentLeft = false;
      }
    }
    if (t < 0) return false;
    const m = this.merge(this.left[t] as number, this.right[t] as number);
    if (parent < 0) this.root = m;
    else if (wentLeft) this.left[parent] = m;
    else this.right[parent] = m;
    this.left[t] = this.freeHead;
    this.freeHead = t;
    this.count--;
    return true;
  }

  /** The node of the smallest pair >= (a, b), or -1. */
  lowerBound(a: number, b: number): number {
    let t = this.root;
    let best = -1;
    const ka = this.ka;
    const kb = this.kb;
    while (t >= 0) {
      const ta = ka[t] as number;
      if (ta > a || (ta === a && (kb[t] as number) >= b)) {
        best = t;
        t = this.left[t] as number;
      } else {
        t = this.right[t] as number;
      }
    }
    return best;
  }

  /** The node of the smallest pair > (a, b), or -1. */
  upperBound(a: number, b: number): number {
    let t = this.root;
    let best = -1;
    const ka = this.ka;
    const kb = this.kb;
    while (t >= 0) {
      const ta = ka[t] as number;
      if (ta > a || (ta === a && (kb[t] as number) > b)) {
        best = t;
        t = this.left[t] as number;
      } else {
        t = this.right[t] as number;
      }
    }
    return best;
  }

  /** The node of the largest pair < (a, b), or -1. */
  predecessor(a: number, b: number): number {
    let t = this.root;
    let best = -1;
    const ka = this.ka;
    const kb = this.kb;
    while (t >= 0) {
      const ta = ka[t] as number;
      if (ta < a || (ta === a && (kb[t] as number) < b)) {
        best = t;
        t = this.right[t] as number;
      } else {
        t = this.left[t] as number;
      }
    }
    return best;
  }

  /** The node of (a, b) itself, or -1. */
  find(a: number, b: number): number {
    const n = this.lowerBound(a, b);
    return n >= 0 && this.ka[n] === a && this.kb[n] === b ? n : -1;
  }

  /** The smallest element's node, or -1. */
  first(): number {
    let t = this.root;
    if (t < 0) return -1;
    while ((this.left[t] as number) >= 0) t = this.left[t] as number;
    return t;
  }

  /** The largest element's node, or -1. */
  last(): number {
    let t = this.root;
    if (t < 0) return -1;
    while ((this.right[t] as number) >= 0) t = this.right[t] as number;
    return t;
  }

  /** The node after `node` in order, or -1. */
  next(node: number): number {
    return this.upperBound(this.ka[node] as number, this.kb[node] as number);
  }

  /** Calls `fn(a, b, payload)` for every element in ascending order (not on hot paths). */
  forEach(fn: (a: number, b: number, payload: number) => void): void {
    const stack: number[] = [];
    let t = this.root;
    while (t >= 0 || stack.length > 0) {
      while (t >= 0) {
        stack.push(t);
        t = this.left[t] as number;
      }
      t = stack.pop() as number;
      fn(this.ka[t] as number, this.kb[t] as number, this.pay[t] as number);
      t = this.right[t] as number;
    }
  }

  /** Removes every element. */
  clear(): void {
    this.root = -1;
    this.count = 0;
    this.freeHead = -1;
    this.used = 0;
  }
}
