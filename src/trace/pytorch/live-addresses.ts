import { addressSlot } from '../../util/address-hash.js';
import type { AddressMap } from './address-map.js';

/**
 * Per address of a snapshot's trace, the allocation live there (if any) and how many allocations
 * were made there so far (the `n` of their ids), in one open-addressing table: an alloc or a free
 * finds its address once for both, where two maps would each be probed (and each probe of a table of
 * tens of MB is a cache miss). Addresses are never removed: a free leaves its count behind, as the
 * ids of later allocations there need it. A slot is the address + 1 (0: an empty slot, so that a new
 * table is ready as the runtime hands it out, zeroed) and the live allocation + 1 (0: none) side by
 * side, as {@link AddressMap} lays out its keys and values (so that the table of the addresses the
 * trace names, made before, is taken over rather than made again: see {@link adopt}), and the count
 * in a column of its own.
 */
export class LiveAddresses {
  private cells: Float64Array;
  private made: Uint32Array;
  /** Slots - 1 (a power of two - 1). */
  private mask: number;
  private count = 0;
  /** Addresses where an allocation is live. */
  private live = 0;

  /** `expected`: about how many addresses it will hold. */
  constructor(expected = 512) {
    let n = 1024;
    while (n < expected * 2) n *= 2;
    this.cells = new Float64Array(2 * n);
    this.made = new Uint32Array(n);
    this.mask = n - 1;
  }

  /**
   * A table of the addresses of `map` (which is emptied: its memory is the table's now), nothing live
   * and no allocation made at any, with room for `more` addresses besides.
   */
  static adopt(map: AddressMap, more: number): LiveAddresses {
    const t = new LiveAddresses(0);
    const count = map.size;
    const cells = map.release();
    for (let j = 1; j < cells.length; j += 2) cells[j] = 0;
    const n = cells.length >> 1;
    t.cells = cells;
    t.made = new Uint32Array(n);
    t.mask = n - 1;
    t.count = count;
    let size = n;
    while ((count + more) * 2 > size) size *= 2;
    if (size > n) t.resize(size);
    return t;
  }

  /**
   * The slot of `addr`, added (nothing live, no allocation made) when it is new. A slot stays valid
   * until the next address is added.
   */
  slot(addr: number): number {
    const i = this.probe(addr);
    if (i >= 0) return i;
    const e = -i - 1;
    this.cells[2 * e] = addr + 1;
    if (++this.count * 2 <= this.mask + 1) return e;
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
    const cells = this.cells;
    const mask = this.mask;
    for (let i = addressSlot(addr, mask); ; i = (i + 1) & mask) {
      const k = cells[2 * i] as number;
      if (k === key) return i;
      if (k === 0) return -i - 1;
    }
  }

  /** The allocation live in slot `i`, or -1. */
  liveIn(i: number): number {
    return (this.cells[2 * i + 1] as number) - 1;
  }

  /** Allocation `a` lives in slot `i` from now on (-1: none does). */
  setLive(i: number, a: number): void {
    const was = this.cells[2 * i + 1] as number;
    this.cells[2 * i + 1] = a + 1;
    this.live += (a >= 0 ? 1 : 0) - (was > 0 ? 1 : 0);
  }

  /** How many addresses have an allocation live. */
  get liveCount(): number {
    return this.live;
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
    const old = this.cells;
    const oldMade = this.made;
    const cells = new Float64Array(2 * n);
    const made = new Uint32Array(n);
    const mask = n - 1;
    for (let j = 0; j < old.length; j += 2) {
      const k = old[j] as number;
      if (k === 0) continue;
      let i = addressSlot(k - 1, mask);
      while (cells[2 * i] !== 0) i = (i + 1) & mask;
      cells[2 * i] = k;
      cells[2 * i + 1] = old[j + 1] as number;
      made[i] = oldMade[j >> 1] as number;
    }
    this.cells = cells;
    this.made = made;
    this.mask = mask;
  }
}
