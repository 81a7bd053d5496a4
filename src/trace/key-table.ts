import { hashBytes } from './id-table.js';

/**
 * A hash table from byte strings (ids) to two numbers, with removal: what a check of a trace keeps
 * per live allocation, so that its memory follows the allocations alive at once, not the length of
 * the trace. Open addressing with linear probing; a removal shifts the entries after it back (no
 * tombstones). Keys live in one arena, compacted when removed keys make up most of it.
 */
export class KeyTable {
  private mask: number;
  /** Per slot: the key's hash. */
  private hashes: Int32Array;
  private offs: Uint32Array;
  private lens: Uint32Array;
  /** The two numbers kept per key (a line and a size, say). */
  private a: Float64Array;
  private b: Float64Array;
  private arena = new Uint8Array(1 << 12);
  private used = 0;
  /** Bytes of the arena held by keys still in the table. */
  private liveBytes = 0;
  /** Number of keys. */
  size = 0;

  constructor(slots = 1 << 10) {
    const n = 2 ** Math.ceil(Math.log2(Math.max(16, slots)));
    this.mask = n - 1;
    this.hashes = new Int32Array(n);
    this.offs = new Uint32Array(n);
    this.lens = new Uint32Array(n);
    this.a = new Float64Array(n);
    this.b = new Float64Array(n);
  }

  /** Bytes held (for memory figures and tests). */
  get byteLength(): number {
    return this.hashes.byteLength * 2 + this.offs.byteLength * 2 + this.a.byteLength * 2 + this.arena.byteLength;
  }

  /** The slot of key bytes [s, e) of `buf` (hash `h`), or -1. */
  find(buf: Uint8Array, s: number, e: number, h = hashBytes(buf, s, e)): number {
    const hashes = this.hashes;
    const n = e - s;
    let i = h & this.mask;
    for (;;) {
      const off = this.offs[i] as number;
      if (off === 0) return -1;
      if (hashes[i] === h && this.lens[i] === n) {
        const o = off - 1;
        const arena = this.arena;
        let k = 0;
        while (k < n && arena[o + k] === buf[s + k]) k++;
        if (k === n) return i;
      }
      i = (i + 1) & this.mask;
    }
  }

  /** The numbers kept for the key in `slot`. */
  first(slot: number): number {
    return this.a[slot] as number;
  }
  second(slot: number): number {
    return this.b[slot] as number;
  }

  /** Adds key bytes [s, e) of `buf`, which is not in the table, with its two numbers. */
  add(buf: Uint8Array, s: number, e: number, first: number, second: number, h = hashBytes(buf, s, e)): void {
    if ((this.size + 1) * 2 > this.mask + 1) this.resize((this.mask + 1) * 2);
    const n = e - s;
    if (this.used + n > this.arena.length) this.makeRoom(n);
    const at = this.used;
    const arena = this.arena;
    for (let k = 0; k < n; k++) arena[at + k] = buf[s + k] as number;
    this.used += n;
    this.liveBytes += n;
    let i = h & this.mask;
    while (!this.isFree(i)) i = (i + 1) & this.mask;
    this.put(i, h, at, n, first, second);
    this.size++;
  }

  /** Removes the key in `slot`, shifting back the entries of its run that hash before the gap. */
  remove(slot: number): void {
    this.liveBytes -= this.lens[slot] as number;
    this.size--;
    const mask = this.mask;
    let gap = slot;
    let i = slot;
    for (;;) {
      i = (i + 1) & mask;
      if (this.isFree(i)) break;
      const home = (this.hashes[i] as number) & mask;
      // The entry at i may move into the gap when its home is not in (gap, i] (cyclically).
      const between = gap <= i ? home > gap && home <= i : home > gap || home <= i;
      if (!between) {
        this.put(gap, this.hashes[i] as number, (this.offs[i] as number) - 1, this.lens[i] as number, this.a[i] as number, this.b[i] as number);
        gap = i;
      }
    }
    this.vacate(gap);
  }

  /** Removes every key, keeping the table's memory for the next ones. */
  clear(): void {
    this.offs.fill(0);
    this.used = 0;
    this.liveBytes = 0;
    this.size = 0;
  }

  /** Every key with its numbers (tests, small tables). */
  entries(): [Uint8Array, number, number][] {
    const out: [Uint8Array, number, number][] = [];
    for (let i = 0; i <= this.mask; i++) {
      if (this.isFree(i)) continue;
      const o = (this.offs[i] as number) - 1;
      out.push([this.arena.slice(o, o + (this.lens[i] as number)), this.a[i] as number, this.b[i] as number]);
    }
    return out;
  }

  // Slots store the key's arena offset plus one: 0 marks a free slot.
  private isFree(i: number): boolean {
    return this.offs[i] === 0;
  }

  private put(i: number, h: number, off: number, len: number, first: number, second: number): void {
    this.hashes[i] = h;
    this.offs[i] = off + 1;
    this.lens[i] = len;
    this.a[i] = first;
    this.b[i] = second;
  }

  private vacate(i: number): void {
    this.hashes[i] = 0;
    this.offs[i] = 0;
    this.lens[i] = 0;
  }

  private resize(slots: number): void {
    const old = { hashes: this.hashes, offs: this.offs, lens: this.lens, a: this.a, b: this.b };
    this.mask = slots - 1;
    this.hashes = new Int32Array(slots);
    this.offs = new Uint32Array(slots);
    this.lens = new Uint32Array(slots);
    this.a = new Float64Array(slots);
    this.b = new Float64Array(slots);
    for (let j = 0; j < old.offs.length; j++) {
      if (old.offs[j] === 0) continue;
      const h = old.hashes[j] as number;
      let i = h & this.mask;
      while (!this.isFree(i)) i = (i + 1) & this.mask;
      this.hashes[i] = h;
      this.offs[i] = old.offs[j] as number;
      this.lens[i] = old.lens[j] as number;
      this.a[i] = old.a[j] as number;
      this.b[i] = old.b[j] as number;
    }
  }

  /** Room for `n` more key bytes: compacts the arena when removed keys fill most of it, else grows it. */
  private makeRoom(n: number): void {
    const cap = Math.max(this.arena.length, (this.liveBytes + n) * 2, 1 << 12);
    const next = new Uint8Array(cap);
    let at = 0;
    for (let i = 0; i <= this.mask; i++) {
      if (this.isFree(i)) continue;
      const o = (this.offs[i] as number) - 1;
      const len = this.lens[i] as number;
      next.set(this.arena.subarray(o, o + len), at);
      this.offs[i] = at + 1;
      at += len;
    }
    this.arena = next;
    this.used = at;
  }
}
