import { addressSlot } from '../../util/address-hash.js';

/**
 * A map from addresses (safe integers, 0 to 2^53 - 1) to non-negative integers, in one typed array:
 * open addressing with linear probing and backward-shift deletion, so that the importer's per-event
 * lookups (which allocation lives at an address, how many were made there) allocate nothing. A
 * slot's key and value lie side by side (`cells[2i]`, `cells[2i + 1]`): a lookup in a table larger
 * than the caches misses once, not once for the key and again for the value. A key is kept as the
 * address + 1 (exact for every safe integer), so that a zero cell is an empty slot: a new table of
 * tens of MB is ready as the runtime hands it out, zeroed, with no pass to mark its slots empty.
 */
export class AddressMap {
  /** Key (address + 1) and value per slot; a key of 0 marks an empty slot. */
  private cells: Float64Array;
  private count = 0;

  /** `expected`: about how many keys it will hold. */
  constructor(expected = 512) {
    let n = 1024;
    while (n < expected * 2) n *= 2;
    this.cells = new Float64Array(2 * n);
  }

  get size(): number {
    return this.count;
  }

  /** The value at `addr`, or -1. */
  get(addr: number): number {
    const key = addr + 1;
    const cells = this.cells;
    const mask = (cells.length >> 1) - 1;
    for (let i = addressSlot(addr, mask); ; i = (i + 1) & mask) {
      const k = cells[2 * i] as number;
      if (k === key) return cells[2 * i + 1] as number;
      if (k === 0) return -1;
    }
  }

  set(addr: number, value: number): void {
    this.exchange(addr, value);
  }

  /** The value at `addr` (0 when there is none), which then becomes one more: one probe for both. */
  increment(addr: number): number {
    const key = addr + 1;
    const cells = this.cells;
    const mask = (cells.length >> 1) - 1;
    for (let i = addressSlot(addr, mask); ; i = (i + 1) & mask) {
      const k = cells[2 * i] as number;
      if (k === key) {
        const v = cells[2 * i + 1] as number;
        cells[2 * i + 1] = v + 1;
        return v;
      }
      if (k === 0) {
        this.insertAt(i, key, 1);
        return 0;
      }
    }
  }

  /** The value at `addr` (-1 when there is none), which then becomes `value`: one probe for both. */
  exchange(addr: number, value: number): number {
    const key = addr + 1;
    const cells = this.cells;
    const mask = (cells.length >> 1) - 1;
    for (let i = addressSlot(addr, mask); ; i = (i + 1) & mask) {
      const k = cells[2 * i] as number;
      if (k === key) {
        const v = cells[2 * i + 1] as number;
        cells[2 * i + 1] = value;
        return v;
      }
      if (k === 0) {
        this.insertAt(i, key, value);
        return -1;
      }
    }
  }

  /** Stores a new key (address + 1) in empty slot `i`, growing the table when it is half full. */
  private insertAt(i: number, key: number, value: number): void {
    const cells = this.cells;
    cells[2 * i] = key;
    cells[2 * i + 1] = value;
    if (++this.count * 2 > cells.length >> 1) this.resize((cells.length >> 1) * 2);
  }

  delete(addr: number): void {
    const key = addr + 1;
    const cells = this.cells;
    const mask = (cells.length >> 1) - 1;
    let i = addressSlot(addr, mask);
    for (; ; i = (i + 1) & mask) {
      const k = cells[2 * i] as number;
      if (k === key) break;
      if (k === 0) return;
    }
    // Shift back the entries after the hole that probed past it.
    let hole = i;
    for (let j = (i + 1) & mask; cells[2 * j] !== 0; j = (j + 1) & mask) {
      const home = addressSlot((cells[2 * j] as number) - 1, mask);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        cells[2 * hole] = cells[2 * j] as number;
        cells[2 * hole + 1] = cells[2 * j + 1] as number;
        hole = j;
      }
    }
    cells[2 * hole] = 0;
    this.count--;
  }

  /**
   * The table itself, handed over (see LiveAddresses.adopt): per slot the key (address + 1, 0: empty)
   * and the value side by side. The map is empty afterwards.
   */
  release(): Float64Array {
    const cells = this.cells;
    this.cells = new Float64Array(2 * 1024);
    this.count = 0;
    return cells;
  }

  /** Every key (in no particular order). */
  forEachKey(fn: (addr: number) => void): void {
    const cells = this.cells;
    for (let i = 0; i < cells.length; i += 2) if (cells[i] !== 0) fn((cells[i] as number) - 1);
  }

  private resize(n: number): void {
    const old = this.cells;
    this.cells = new Float64Array(2 * n);
    this.count = 0;
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0) this.exchange((old[i] as number) - 1, old[i + 1] as number);
  }
}
