/** Allocation ids and per-allocation records of the snapshot importer. */

const HEX_DIGITS = [0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66];

/** Writes allocation ids `b<address hex>_<n>` as ASCII bytes into one scratch buffer. */
export class IdWriter {
  readonly buf = new Uint8Array(48);
  private readonly digits = new Uint8Array(16);

  /** Writes the id of the `n`-th allocation at `address`; returns its length in bytes. */
  write(address: number, n: number): number {
    const b = this.buf;
    b[0] = 0x62; // b
    let p = this.number(address, 16, 1);
    b[p++] = 0x5f; // _
    p = this.number(n, 10, p);
    return p;
  }

  private number(v: number, radix: number, p: number): number {
    const d = this.digits;
    let k = 0;
    let x = v;
    do {
      d[k++] = x % radix;
      x = Math.floor(x / radix);
    } while (x > 0);
    while (k > 0) this.buf[p++] = HEX_DIGITS[d[--k] as number] as number;
    return p;
  }
}

/** Per-allocation records, grown as allocations are added. */
export class AllocationRecords {
  address = new Float64Array(1024);
  allocated = new Float64Array(1024);
  count = 0;

  set(a: number, address: number, bytes: number): void {
    if (a >= this.address.length) {
      const n = Math.max(a + 1, this.address.length * 2);
      const x = new Float64Array(n);
      x.set(this.address);
      this.address = x;
      const y = new Float64Array(n);
      y.set(this.allocated);
      this.allocated = y;
    }
    this.address[a] = address;
    this.allocated[a] = bytes;
    if (a >= this.count) this.count = a + 1;
  }
}

