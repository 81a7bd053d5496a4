import { addressSlot } from '../../util/address-hash.js';

/**
 * Per address of a snapshot's trace, the allocation live there (if any) and how many allocations
 * were made there so far (the `n` of their ids), in one open-addressing table: an alloc or a free
 * finds its address once for both, where two maps would each be probed (and each probe of a table of
 * tens of MB is a cache miss). Addresses are never removed: a free leaves its count behind, as the
 * ids of later allocations there need it. A slot is three numbers side by side: the address + 1 (0:
 * an empty slot, so that a new table is ready as the runtime hands it out, zeroed), the live
 * allocation + 1 (0: none) and the count.
 */
export class LiveAddresses {
  private cells: Float64Array;
  /** Slots - 1 (a power of two - 1). */
  private mask: number;
  private count = 0;
  /** Addresses where an allocation is live. */
  private live = 0;

  /** `expected`: about how many addresses it will hold. */
  constructor(expected = 512) {
    let n = 1024;
    while (n < expected * 2) n *= 2;
    this.cells = new Float64Array(3 * n);
    this.mask = n - 1;
  }

  /**
   * The slot of `addr`, added (nothing live, no allocation made) when it is new. A slot stays valid
   * until the next address is added.
   */
  slot(addr: number): number {
    const i = this.probe(addr);
    if (i >= 0) return i;
    const e = -i - 1;
    this.cells[3 * e] = addr + 1;
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
      const k = cells[3 * i] as number;
      if (k === key) return i;
      if (k === 0) return -i - 1;
    }
  }

  /** The allocation live in slot `i`, or -1. */
  liveIn(i: number): number {
    return (this.cells[3 * i + 1] as number) - 1;
  }

  /** Allocation `a` lives in slot `i` from now on (-1: none does). */
  setLive(i: number, a: number): void {
    const was = this.cells[3 * i + 1] as number;
    this.cells[3 * i + 1] = a + 1;
    this.live += (a >= 0 ? 1 : 0) - (was > 0 ? 1 : 0);
  }

  /** How many addresses have an allocation live. */
  get liveCount(): number {
    return this.live;
  }

  /** Allocations made in slot `i` so far. */
  madeIn(i: number): number {
    return this.cells[3 * i + 2] as number;
  }

  /** The allocations made in slot `i` so far, which then become one more. */
  bump(i: number): number {
    const n = this.cells[3 * i + 2] as number;
    this.cells[3 * i + 2] = n + 1;
    return n;
  }

  /** The allocation live at `addr`, or -1. */
  liveAt(addr: number): number {
    const i = this.find(addr);
    return i < 0 ? -1 : this.liveIn(i);
  }

  private resize(n: number): void {
    const old = this.cells;
    const cells = new Float64Array(3 * n);
    const mask = n - 1;
    for (let j = 0; j < old.length; j += 3) {
      const k = old[j] as number;
      if (k === 0) continue;
      let i = addressSlot(k - 1, mask);
      while (cells[3 * i] !== 0) i = (i + 1) & mask;
      cells[3 * i] = k;
      cells[3 * i + 1] = old[j + 1] as number;
      cells[3 * i + 2] = old[j + 2] as number;
    }
    this.cells = cells;
    this.mask = mask;
  }
}
