import { addressSlot } from '../../util/address-hash.js';

/**
 * Per address of a snapshot's trace, the allocation live there (if any) and how many allocations
 * were made there so far (the `n` of their ids), in one open-addressing table: an alloc or a free
 * finds its address once for both, where two maps would each be probed (and each probe of a table of
 * tens of MB is a cache miss). Addresses are never removed: a free leaves its count behind, as the
 * ids of later allocations there need it. A slot is the address + 1 (0: an empty slot, so that a new
 * table is ready as the runtime hands it out, zeroed), the live allocation + 1 (0: none) and the
 * count, each in a column of its own: a probe reads the addresses alone, 8 bytes a slot. The table
 * that finds which allocations were live at the start (reconstruct.ts) is one, which the importer
 * then takes over ({@link clear}) rather than making another.
 */
export class LiveAddresses {
  /**
   * Filled to three quarters before it grows: a probe reads 8-byte keys in a row, so that the longer
   * runs of a fuller table cost few more cache lines, and each doubling is a new table in fresh
   * memory (the smaller the table, the fewer pages are touched to make it).
   */
  private keys: Float64Array;
  private live: Int32Array;
  private made: Uint32Array;
  /** Slots - 1 (a power of two - 1). */
  private mask: number;
  private count = 0;
  /** Addresses where an allocation is live. */
  private liveAddresses = 0;

  /** `expected`: about how many addresses it will hold. */
  constructor(expected = 512) {
    let n = 1024;
    while (n * 3 < expected * 4) n *= 2;
    this.keys = new Float64Array(n);
    this.live = new Int32Array(n);
    this.made = new Uint32Array(n);
    this.mask = n - 1;
  }

  /** How many addresses it holds. */
  get size(): number {
    return this.count;
  }

  /**
   * Nothing live and no allocation made at any address (the addresses stay), with room for `more`
   * addresses besides.
   */
  clear(more: number): void {
    this.live.fill(0);
    // A new column rather than zeros written over pages never written (see resize).
    this.made = new Uint32Array(this.mask + 1);
    this.liveAddresses = 0;
    this.expect(this.count + more);
  }

  /** Room for `n` addresses in all without growing: one table of that size now, instead of doublings. */
  expect(n: number): void {
    let size = this.mask + 1;
    while (n * 4 > size * 3) size *= 2;
    if (size > this.mask + 1) this.resize(size);
  }

  /**
   * The slot of `addr`, added (nothing live, no allocation made) when it is new. A slot stays valid
   * until the next address is added.
   */
  slot(addr: number): number {
    const i = this.probe(addr);
    if (i >= 0) return i;
    const e = -i - 1;
    this.keys[e] = addr + 1;
    if (++this.count * 4 <= (this.mask + 1) * 3) return e;
    this.resize(2 * (this.mask + 1));
    return this.probe(addr);
  }

  /** The slot of `addr`, or -1 when it was never added. */
  find(addr: number): number {
    const i = this.probe(addr);
    return i < 0 ? -1 : i;
  }

  /** The slot of `addr` when it is there, else -(the empty slot where it would go) - 1. */
  private probe(addr: number): number {
    const key = addr + 1;
    const keys = this.keys;
    const mask = this.mask;
    for (let i = addressSlot(addr, mask); ; i = (i + 1) & mask) {
      const k = keys[i] as number;
      if (k === key) return i;
      if (k === 0) return -i - 1;
    }
  }

  /** The allocation live in slot `i`, or -1. */
  liveIn(i: number): number {
    return (this.live[i] as number) - 1;
  }

  /** Allocation `a` lives in slot `i` from now on (-1: none does). */
  setLive(i: number, a: number): void {
    const was = this.live[i] as number;
    this.live[i] = a + 1;
    this.liveAddresses += (a >= 0 ? 1 : 0) - (was > 0 ? 1 : 0);
  }

  /** How many addresses have an allocation live. */
  get liveCount(): number {
    return this.liveAddresses;
  }

  /** Allocations made in slot `i` so far. */
  madeIn(i: number): number {
    return this.made[i] as number;
  }

  /** The allocations made in slot `i` so far, which then become one more. */
  bump(i: number): number {
    const n = this.made[i] as number;
    this.made[i] = n + 1;
    return n;
  }

  /** The allocation live at `addr`, or -1. */
  liveAt(addr: number): number {
    const i = this.find(addr);
    return i < 0 ? -1 : this.liveIn(i);
  }

  private resize(n: number): void {
    const { keys: oldKeys, live: oldLive, made: oldMade } = this;
    const keys = new Float64Array(n);
    const live = new Int32Array(n);
    const made = new Uint32Array(n);
    const mask = n - 1;
    for (let j = 0; j < oldKeys.length; j++) {
      const k = oldKeys[j] as number;
      if (k === 0) continue;
      let i = addressSlot(k - 1, mask);
      while (keys[i] !== 0) i = (i + 1) & mask;
      keys[i] = k;
      // Zeros are left unwritten: pages of a new table that are never written cost no memory.
      const l = oldLive[j] as number;
      if (l !== 0) live[i] = l;
      const m = oldMade[j] as number;
      if (m !== 0) made[i] = m;
    }
    this.keys = keys;
    this.live = live;
    this.made = made;
    this.mask = mask;
  }
}
