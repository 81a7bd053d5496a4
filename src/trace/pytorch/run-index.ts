/**
 * Runs of 32-bit numbers stored once each: run `r` is `data[start[r] .. start[r + 1])`, found again by
 * content through an open-addressing table of run numbers (no Map, no object per run). Used for the
 * frames lists of a snapshot (frame numbers) and for the stacks (interned frame numbers).
 */
import { grown } from '../../util/typed-arrays.js';
import { growColumn, newColumn } from '../columns.js';
export class RunIndex {
  /**
   * The numbers of the runs: 16-bit while every number written is below 2^16 (half the memory, and
   * each page of a table of tens of MB costs a page fault to touch first), else 32-bit (see {@link widen}).
   */
  data: Uint16Array | Uint32Array;
  start = new Uint32Array(1024);
  count = 0;
  private hashes = new Int32Array(1024);
  /** Slot -> run + 1 (0: empty). */
  private slots = new Int32Array(1 << 12);

  /**
   * `narrow`: numbers are held in 16 bits until {@link widen} is called (before any number of 2^16 or
   * more is written). `shared`: {@link data} grows in place in a growable SharedArrayBuffer (see
   * columns.ts), so that a view of it can be kept whatever room is left unwritten, and goes to another
   * thread without a copy.
   */
  constructor(
    narrow = false,
    private readonly shared = false,
  ) {
    if (narrow) this.data = shared ? newColumn(Uint16Array, 1 << 12) : new Uint16Array(1 << 12);
    else this.data = shared ? newColumn(Uint32Array, 1 << 12) : new Uint32Array(1 << 12);
  }

  /**
   * Numbers of 2^16 and more may be written from now on; `used`: how many numbers are written (those
   * of the stored runs and any written after them), the rest of the room is left unwritten.
   */
  widen(used: number): void {
    if (!(this.data instanceof Uint16Array)) return;
    const data = this.shared ? newColumn(Uint32Array, this.data.length) : new Uint32Array(this.data.length);
    data.set(this.data.subarray(0, used));
    this.data = data;
  }

  /** The numbers are `data` from now on (another index's, whose runs it writes over: see StackTable.ofRaw). */
  adopt(data: Uint16Array | Uint32Array): void {
    this.data = data;
  }

  /** The numbers of the runs stored, copied into an array of their own with room for `n` in all. */
  detach(n: number): void {
    const end = this.end;
    const data = this.data instanceof Uint16Array ? new Uint16Array(Math.max(n, end)) : new Uint32Array(Math.max(n, end));
    data.set(this.data.subarray(0, end));
    this.data = data;
  }

  /** Whether a view of the stored runs keeps no more memory than they take (see {@link shared}). */
  get viewable(): boolean {
    const b = this.data.buffer;
    return (b instanceof SharedArrayBuffer && (b as SharedArrayBuffer & { growable: boolean }).growable) || this.data.length - this.end <= this.end >> 3;
  }

  /** The end of the stored runs: a new run is written from here (see {@link add}). */
  get end(): number {
    return this.start[this.count] as number;
  }

  /** Makes room for data up to `n` entries. */
  reserve(n: number): void {
    if (n <= this.data.length) return;
    const length = Math.max(n, this.data.length * 2);
    this.data = this.shared ? growColumn(this.data, length, this.data.length, length * 2) : grown(this.data, length);
  }

  /**
   * Makes room for `runs` runs in all without growing the run table or rehashing (an estimate: a
   * larger count still grows as usual).
   */
  reserveRuns(runs: number): void {
    if (runs + 2 > this.start.length) {
      this.start = growU32(this.start, runs + 2);
      this.hashes = grown(this.hashes, this.start.length);
    }
    let size = this.slots.length;
    while (runs * 2 > size) size *= 2;
    if (size > this.slots.length) this.rehashTo(size);
  }

  /**
   * The run equal to the `n` numbers written at {@link end}: an existing one (the written numbers are
   * then dropped) or a new one made of them.
   */
  add(n: number): number {
    const s = this.end;
    const data = this.data;
    let h = HASH_START;
    for (let k = s; k < s + n; k++) h = Math.imul(h ^ (data[k] as number), 16777619);
    return this.addHashed(n, h);
  }

  /**
   * {@link add} with the hash of the numbers already made: from {@link HASH_START}, `h =
   * Math.imul(h ^ x, 16777619)` for each number x (written out where the numbers are made).
   */
  addHashed(n: number, hash: number): number {
    const s = this.end;
    const h = Math.imul(hash ^ n, 16777619);
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = (h ^ (h >>> 15)) & mask;
    for (let r = slots[i] as number; r !== 0; r = slots[i] as number) {
      if (this.hashes[r - 1] === h && this.same(r - 1, s, n)) return r - 1;
      i = (i + 1) & mask;
    }
    const r = this.count++;
    if (r + 2 > this.start.length) {
      this.start = growU32(this.start, r + 2);
      const hs = new Int32Array(this.start.length);
      hs.set(this.hashes);
      this.hashes = hs;
    }
    this.start[r + 1] = s + n;
    this.hashes[r] = h;
    slots[i] = r + 1;
    if (this.count * 2 > slots.length) this.rehash();
    return r;
  }

  private same(r: number, s: number, n: number): boolean {
    const a = this.start[r] as number;
    if ((this.start[r + 1] as number) - a !== n) return false;
    const data = this.data;
    for (let k = 0; k < n; k++) if (data[a + k] !== data[s + k]) return false;
    return true;
  }

  private rehash(): void {
    this.rehashTo(this.slots.length * 2);
  }

  private rehashTo(size: number): void {
    const slots = new Int32Array(size);
    const mask = slots.length - 1;
    for (let r = 0; r < this.count; r++) {
      const h = this.hashes[r] as number;
      let i = (h ^ (h >>> 15)) & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = r + 1;
    }
    this.slots = slots;
  }
}

/** The hash of a run: FNV-1a over its numbers from HASH_START, then over its length. */
export const HASH_START = 0x811c9dc5 | 0;

export function growU32(a: Uint32Array<ArrayBuffer>, n: number): Uint32Array<ArrayBuffer> {
  return grown(a, Math.max(n, a.length * 2));
}
