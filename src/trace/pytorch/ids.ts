/** Allocation ids and per-allocation records of the snapshot importer. */

import { growColumn, newColumn } from '../columns.js';

const HEX_DIGITS = [0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66];

/** Writes allocation ids `b<address hex>_<n>` as ASCII bytes into one scratch buffer. */
export class IdWriter {
  readonly buf = new Uint8Array(48);

  /** Writes the id of the `n`-th allocation at `address`; returns its length in bytes. */
  write(address: number, n: number): number {
    const b = this.buf;
    b[0] = 0x62; // b
    // The address in two 32-bit halves: integer digit arithmetic instead of division of doubles.
    const hi = Math.floor(address / 4294967296);
    const lo = address >>> 0;
    let p = hi > 0 ? this.hex(lo, this.hex(hi, 1, 1), 8) : this.hex(lo, 1, 1);
    b[p++] = 0x5f; // _
    p = this.decimal(n, p);
    return p;
  }

  /** `v` (below 2^32) in hexadecimal, at least `minDigits` digits, at `p`; returns the end. */
  private hex(v: number, p: number, minDigits: number): number {
    let digits = 1;
    while (digits < 8 && v >>> (4 * digits) !== 0) digits++;
    if (digits < minDigits) digits = minDigits;
    for (let k = digits - 1; k >= 0; k--) this.buf[p++] = HEX_DIGITS[(v >>> (4 * k)) & 15] as number;
    return p;
  }

  /** `v` (a non-negative integer below 2^31) in decimal at `p`; returns the end. */
  private decimal(v: number, p: number): number {
    let digits = 1;
    for (let x = v; x >= 10; x = (x / 10) | 0) digits++;
    let x = v;
    for (let k = p + digits - 1; k >= p; k--) {
      this.buf[k] = 0x30 + (x % 10);
      x = (x / 10) | 0;
    }
    return p + digits;
  }
}

/**
 * Per-allocation records, grown as allocations are added: columns that grow in place (see
 * columns.ts), so that the recorded history takes views of them (`fitted`) rather than copies.
 */
export class AllocationRecords {
  address: Float64Array;
  allocated: Float64Array;
  count = 0;

  /** `room`: allocations to make room for at once (more grow the tables). */
  constructor(room = 1024) {
    this.address = newColumn(Float64Array, room);
    this.allocated = newColumn(Float64Array, room);
  }

  set(a: number, address: number, bytes: number): void {
    if (a >= this.address.length) {
      const n = Math.max(a + 1, this.address.length * 2);
      this.address = growColumn(this.address, n);
      this.allocated = growColumn(this.allocated, n);
    }
    this.address[a] = address;
    this.allocated[a] = bytes;
    if (a >= this.count) this.count = a + 1;
  }
}

