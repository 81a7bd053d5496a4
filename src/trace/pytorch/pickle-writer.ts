import type { PickleValue } from './pickle-value.js';

/** A Python tuple (an array that pickles as a tuple). */
export class PickleTuple {
  constructor(readonly items: PickleWritable[]) {}
}

/** A Python float whose value is integral (a plain JS number that is an integer pickles as int). */
export class PickleFloat {
  constructor(readonly value: number) {}
}

/** What the writer accepts: plain data, plus tuples and explicit floats. */
export type PickleWritable = PickleValue | PickleTuple | PickleFloat | PickleWritable[] | { [key: string]: PickleWritable };

/** Options of {@link pickle}. */
export interface PickleWriteOptions {
  /** Pickle protocol, 2 to 5 (default 4, what `torch.cuda.memory._dump_snapshot` writes with Python 3.8+). */
  protocol?: 2 | 3 | 4 | 5;
}

/**
 * Writes plain data as a pickle, the way CPython's pickler lays it out (EMPTY_DICT + MARK + SETITEMS,
 * EMPTY_LIST + MARK + APPENDS in batches of 1000, a batch of one as SETITEM or APPEND, memoized
 * containers and strings, so shared objects are written once and referenced with BINGET). memsim uses
 * it to make test fixtures and benchmark inputs; it writes nothing that the safe reader would refuse.
 */
export function pickle(value: PickleWritable, options: PickleWriteOptions = {}): Buffer {
  const w = new Writer(options.protocol ?? 4);
  w.byte(0x80);
  w.byte(w.protocol);
  w.value(value);
  w.byte(0x2e);
  return w.done();
}

const BATCH = 1000;

class Writer {
  private buf = Buffer.allocUnsafe(1 << 16);
  private n = 0;
  private readonly memo = new Map<unknown, number>();
  private readonly strings = new Map<string, number>();
  private memoCount = 0;

  constructor(readonly protocol: number) {}

  private room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.n + k));
    this.buf.copy(next, 0, 0, this.n);
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.n++] = b;
  }

  private u32(v: number): void {
    this.room(4);
    this.buf.writeUInt32LE(v, this.n);
    this.n += 4;
  }

  done(): Buffer {
    return this.buf.subarray(0, this.n);
  }

  /** Stores the value on top of the stack in the memo, as the pickler does after creating it. */
  private put(key: unknown, strings: boolean): void {
    const i = this.memoCount++;
    if (strings) this.strings.set(key as string, i);
    else this.memo.set(key, i);
    if (this.protocol >= 4) {
      this.byte(0x94);
    } else if (i < 256) {
      this.byte(0x71);
      this.byte(i);
    } else {
      this.byte(0x72);
      this.u32(i);
    }
  }

  private get(i: number): void {
    if (i < 256) {
      this.byte(0x68);
      this.byte(i);
    } else {
      this.byte(0x6a);
      this.u32(i);
    }
  }

  value(v: PickleWritable): void {
    if (v === null) return this.byte(0x4e);
    if (v === true) return this.byte(0x88);
    if (v === false) return this.byte(0x89);
    if (typeof v === 'number') return Number.isInteger(v) ? this.int(BigInt(v)) : this.float(v);
    if (typeof v === 'bigint') return this.int(v);
    if (typeof v === 'string') return this.string(v);
    if (v instanceof PickleFloat) return this.float(v.value);
    const seen = this.memo.get(v);
    if (seen !== undefined) return this.get(seen);
    if (v instanceof Uint8Array) {
      this.byte(0x42);
      this.u32(v.length);
      this.room(v.length);
      this.buf.set(v, this.n);
      this.n += v.length;
      return this.put(v, false);
    }
    if (v instanceof PickleTuple) {
      this.byte(0x28);
      for (const x of v.items) this.value(x);
      this.byte(0x74);
      return this.put(v, false);
    }
    if (Array.isArray(v)) {
      this.byte(0x5d);
      this.put(v, false);
      for (let i = 0; i < v.length; i += BATCH) {
        // A batch of one is the item and APPEND, without MARK (CPython's _batch_appends).
        const single = Math.min(v.length, i + BATCH) - i === 1;
        if (!single) this.byte(0x28);
        for (let j = i; j < Math.min(v.length, i + BATCH); j++) this.value(v[j] as PickleWritable);
        this.byte(single ? 0x61 : 0x65);
      }
      return;
    }
    this.byte(0x7d);
    this.put(v, false);
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i += BATCH) {
      // A batch of one is the key, the value and SETITEM, without MARK (CPython's _batch_setitems).
      const single = Math.min(keys.length, i + BATCH) - i === 1;
      if (!single) this.byte(0x28);
      for (let j = i; j < Math.min(keys.length, i + BATCH); j++) {
        const k = keys[j] as string;
        this.string(k);
        this.value((v as Record<string, PickleWritable>)[k] as PickleWritable);
      }
      this.byte(single ? 0x73 : 0x75);
    }
  }

  private string(s: string): void {
    const seen = this.strings.get(s);
    if (seen !== undefined) return this.get(seen);
    const bytes = Buffer.from(s, 'utf8');
    if (this.protocol >= 4 && bytes.length < 256) {
      this.byte(0x8c);
      this.byte(bytes.length);
    } else {
      this.byte(0x58);
      this.u32(bytes.length);
    }
    this.room(bytes.length);
    bytes.copy(this.buf, this.n);
    this.n += bytes.length;
    this.put(s, true);
  }

  private float(x: number): void {
    this.byte(0x47);
    this.room(8);
    this.buf.writeDoubleBE(x, this.n);
    this.n += 8;
  }

  /** BININT1/BININT2/BININT when they fit, else LONG1 with the fewest two's complement bytes. */
  private int(v: bigint): void {
    if (v >= 0n && v < 256n) {
      this.byte(0x4b);
      this.byte(Number(v));
    } else if (v >= 0n && v < 65536n) {
      this.byte(0x4d);
      this.room(2);
      this.buf.writeUInt16LE(Number(v), this.n);
      this.n += 2;
    } else if (v >= -(2n ** 31n) && v < 2n ** 31n) {
      this.byte(0x4a);
      this.room(4);
      this.buf.writeInt32LE(Number(v), this.n);
      this.n += 4;
    } else {
      const bytes: number[] = [];
      let x = v;
      // Little-endian two's complement, stopping once the remaining value is the sign extension.
      for (;;) {
        const b = Number(x & 0xffn);
        bytes.push(b);
        x >>= 8n;
        if ((x === 0n && (b & 0x80) === 0) || (x === -1n && (b & 0x80) !== 0)) break;
      }
      this.byte(0x8a);
      this.byte(bytes.length);
      for (const b of bytes) this.byte(b);
    }
  }
}
