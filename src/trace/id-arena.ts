/**
 * The byte arena and hash index under {@link IdTable}: each allocation's id as bytes in one arena
 * (offsets per allocation), and an open-addressing index from an id's bytes to its latest allocation.
 * Ids that are plain decimal numbers skip both while they can (the table's number mode).
 */
import { grown, newColumn } from './columns.js';

/** An empty slot, and "no allocation". */
export const EMPTY = -1;

/** FNV-1a over bytes [s, e). */
export function hashBytes(buf: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
  return h | 0;
}

/** Ids as bytes, hashed. */
export class IdArena {
  protected bytes: Uint8Array = new Uint8Array(0);
  protected view: Buffer = Buffer.alloc(0);
  protected used = 0;
  /** offs[a] is where id a starts; offs[a + 1] where it ends. */
  protected offs: Uint32Array = new Uint32Array(0);
  protected hashes: Int32Array = new Int32Array(0);
  protected slots = new Int32Array(1 << 11).fill(EMPTY);
  protected mask = (1 << 11) - 1;
  protected keys = 0;
  /** Slot of the last {@link IdArena.find}, reused by an add of the same key. */
  protected lastSlot = -1;
  /** Allocations from this one on were appended without being put in the hash index yet (-1: none). */
  protected unindexedFrom = -1;
  /** Number of allocations. */
  length = 0;
  /** Allocations the columns reserve room for (address space only, see columns.ts). */
  protected readonly reserveAllocs: number;

  constructor(reserveAllocs: number) {
    this.reserveAllocs = reserveAllocs;
  }

  /** Stores the bytes of a new allocation's id; returns its number. */
  protected append(buf: Uint8Array, s: number, e: number, h: number): number {
    const a = this.length++;
    const n = e - s;
    if (this.used + n > this.bytes.length) {
      this.bytes = grown(this.bytes.length === 0 ? newColumn(Uint8Array, 1 << 12, this.reserveAllocs * 12) : this.bytes, this.used + n, this.reserveAllocs * 12);
      this.view = Buffer.from(this.bytes.buffer, 0, this.bytes.length);
    }
    const bytes = this.bytes;
    const at = this.used;
    for (let k = 0; k < n; k++) bytes[at + k] = buf[s + k] as number;
    if (a + 2 > this.offs.length) this.offs = grown(this.offs, a + 2, this.reserveAllocs + 1);
    if (a + 1 > this.hashes.length) this.hashes = grown(this.hashes, a + 1, this.reserveAllocs);
    this.offs[a] = at;
    this.used = at + n;
    this.offs[a + 1] = this.used;
    this.hashes[a] = h;
    return a;
  }

  /** The latest allocation whose id is bytes [s, e) of `buf`, or -1 (hash index only). */
  find(buf: Uint8Array, s: number, e: number, h: number): number {
    if (this.unindexedFrom >= 0) this.indexAll();
    const slot = this.slotOf(buf, s, e, h);
    this.lastSlot = slot;
    return this.slots[slot] as number;
  }

  /** Adds an allocation whose id is bytes [s, e) of `buf` to the arena and the hash index (see `IdTable.add`). */
  protected addHashed(buf: Uint8Array, s: number, e: number, h: number, afterFind: boolean): number {
    if (this.unindexedFrom >= 0) this.indexAll();
    const a = this.append(buf, s, e, h);
    const slot = afterFind ? this.lastSlot : this.slotOf(buf, s, e, h);
    if (this.slots[slot] === EMPTY) {
      this.slots[slot] = a;
      if (++this.keys * 2 > this.slots.length) this.rehash();
    } else {
      this.slots[slot] = a;
    }
    return a;
  }

  /** Puts the ids appended unindexed (`IdTable.appendNew`) in the hash index, in order (each one is new). */
  protected indexAll(): void {
    const from = this.unindexedFrom;
    this.unindexedFrom = -1;
    for (let a = from; a < this.length; a++) {
      const s = this.offs[a] as number;
      const e = this.offs[a + 1] as number;
      const h = hashBytes(this.bytes, s, e);
      this.hashes[a] = h;
      const slot = this.slotOf(this.bytes, s, e, h);
      if (this.slots[slot] === EMPTY && ++this.keys * 2 > this.slots.length) {
        this.slots[slot] = a;
        this.rehash();
      } else {
        this.slots[slot] = a;
      }
    }
  }

  protected slotOf(buf: Uint8Array, s: number, e: number, h: number): number {
    const slots = this.slots;
    const mask = this.mask;
    const n = e - s;
    let i = h & mask;
    for (;;) {
      const a = slots[i] as number;
      if (a === EMPTY) return i;
      if (this.hashes[a] === h) {
        const o = this.offs[a] as number;
        if ((this.offs[a + 1] as number) - o === n) {
          let k = 0;
          const bytes = this.bytes;
          while (k < n && bytes[o + k] === buf[s + k]) k++;
          if (k === n) return i;
        }
      }
      i = (i + 1) & mask;
    }
  }

  protected rehash(): void {
    const size = this.slots.length * 2;
    const slots = new Int32Array(size).fill(EMPTY);
    const mask = size - 1;
    for (const a of this.slots) {
      if (a === EMPTY) continue;
      let i = (this.hashes[a] as number) & mask;
      while (slots[i] !== EMPTY) i = (i + 1) & mask;
      slots[i] = a;
    }
    this.slots = slots;
    this.mask = mask;
  }
}
