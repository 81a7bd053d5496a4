/**
 * A binary min-heap of (a, b) number pairs ordered lexicographically, in typed arrays.
 *
 * TFLite keeps objects in use in `std::priority_queue<QueueRecord>` whose operator< is reversed, so
 * the top is the smallest (last_task, object_id): objects are released in order of their last task,
 * ties by object id. The release order decides which free object a later record reuses.
 */
import { grown } from '../util/typed-arrays.js';
export class PairHeap {
  private ka: Float64Array;
  private kb: Float64Array;
  private n = 0;

  constructor(capacity = 64) {
    this.ka = new Float64Array(Math.max(4, capacity));
    this.kb = new Float64Array(Math.max(4, capacity));
  }

  get size(): number {
    return this.n;
  }

  /** First key of the smallest pair (the heap must not be empty). */
  get topA(): number {
    return this.ka[0] as number;
  }

  /** Second key of the smallest pair. */
  get topB(): number {
    return this.kb[0] as number;
  }

  private less(i: number, j: number): boolean {
    const ai = this.ka[i] as number;
    const aj = this.ka[j] as number;
    return ai < aj || (ai === aj && (this.kb[i] as number) < (this.kb[j] as number));
  }

  private swap(i: number, j: number): void {
    const a = this.ka[i] as number;
    const b = this.kb[i] as number;
    this.ka[i] = this.ka[j] as number;
    this.kb[i] = this.kb[j] as number;
    this.ka[j] = a;
    this.kb[j] = b;
  }

  push(a: number, b: number): void {
    if (this.n === this.ka.length) {
      this.ka = grown(this.ka, this.n * 2);
      this.kb = grown(this.kb, this.n * 2);
    }
    let i = this.n++;
    this.ka[i] = a;
    this.kb[i] = b;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  /** Removes the smallest pair. */
  pop(): void {
    this.n--;
    if (this.n === 0) return;
    this.ka[0] = this.ka[this.n] as number;
    this.kb[0] = this.kb[this.n] as number;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.n && this.less(l, m)) m = l;
      if (r < this.n && this.less(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
