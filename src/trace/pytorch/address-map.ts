import { addressSlot } from '../../util/address-hash.js';

/**
 * A map from addresses (integers from 0 to 2^53) to non-negative integers, in typed arrays: open
 * addressing with linear probing and backward-shift deletion, so that the importer's per-event
 * lookups (which allocation lives at an address, how many were made there) allocate nothing.
 */
export class AddressMap {
  /** Key per slot; -1 marks an empty slot. */
  private keys: Float64Array;
  private values: Int32Array;
  private count = 0;

  /** `expected`: about how many keys it will hold. */
  constructor(expected = 512) {
    let n = 1024;
    while (n < expected * 2) n *= 2;
    this.keys = new Float64Array(n).fill(-1);
    this.values = new Int32Array(n);
  }

  get size(): number {
    return this.count;
  }


  /** The value at `addr`, or -1. */
  get(addr: number): number {
    const keys = this.keys;
    const mask = keys.length - 1;
    for (let i = addressSlot(addr, mask); ; i = (i + 1) & mask) {
      const k = keys[i] as number;
      if (k === addr) return this.values[i] as number;
      if (k === -1) return -1;
    }
  }

  set(addr: number, value: number): void {
    const keys = this.keys;
    const mask = keys.length - 1;
    for (let i = addressSlot(addr, mask); ; i = (i + 1) & mask) {
      const k = keys[i] as number;
      if (k === addr) {
        this.values[i] = value;
        return;
      }
      if (k === -1) {
        keys[i] = addr;
        this.values[i] = value;
        if (++this.count * 2 > keys.length) this.resize(keys.length * 2);
        return;
      }
    }
  }

  /** The value at `addr` (0 when there is none), which then becomes one more: one probe for both. */
  increment(addr: number): number {
    const keys = this.keys;
    const mask = keys.length - 1;
    for (let i = addressSlot(addr, mask); ; i = (i + 1) & mask) {
      const k = keys[i] as number;
      if (k === addr) {
        const v = this.values[i] as number;
        this.values[i] = v + 1;
        return v;
      }
      if (k === -1) {
        keys[i] = addr;
        this.values[i] = 1;
        if (++this.count * 2 > keys.length) this.resize(keys.length * 2);
        return 0;
      }
    }
  }

  delete(addr: number): void {
    const keys = this.keys;
    const values = this.values;
    const mask = keys.length - 1;
    let i = addressSlot(addr, mask);
    for (; ; i = (i + 1) & mask) {
      const k = keys[i] as number;
      if (k === addr) break;
      if (k === -1) return;
    }
    // Shift back the entries after the hole that probed past it.
    let hole = i;
    for (let j = (i + 1) & mask; keys[j] !== -1; j = (j + 1) & mask) {
      const home = addressSlot(keys[j] as number, mask);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        keys[hole] = keys[j] as number;
        values[hole] = values[j] as number;
        hole = j;
      }
    }
    keys[hole] = -1;
    this.count--;
  }

  /** Every key (in no particular order). */
  forEachKey(fn: (addr: number) => void): void {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== -1) fn(keys[i] as number);
  }

  private resize(n: number): void {
    const keys = this.keys;
    const values = this.values;
    this.keys = new Float64Array(n).fill(-1);
    this.values = new Int32Array(n);
    this.count = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== -1) this.set(keys[i] as number, values[i] as number);
  }
}
