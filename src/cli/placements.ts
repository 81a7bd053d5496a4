import type { IdTable } from '../trace/id-table.js';
import { writeDecimal } from '../trace/id-decimal.js';
import { OutputClosed } from '../errors.js';
import type { OutputFile } from '../output/index.js';

const HEX = new TextEncoder().encode('0123456789abcdef');
const HEADER = new TextEncoder().encode('event,id,address,sizeBytes,allocatedBytes\n');
/** Bytes buffered before a write. */
const BUFFER_BYTES = 1 << 20;

/**
 * `--placements FILE`: one CSV line `event,id,address,sizeBytes,allocatedBytes` per served allocation,
 * formatted straight into bytes (no string per line: a replay of 10^7 events places millions).
 */
export class PlacementsCsv {
  private buf = new Uint8Array(BUFFER_BYTES);
  private pos = 0;
  /** The reader went away (`--placements - | head`): lines are dropped, the replay and its report go on. */
  private gone = false;

  /** @param ids the trace's ids, read when a line is written (a trace read while replayed grows). */
  constructor(
    private readonly file: OutputFile,
    private readonly ids: () => IdTable,
  ) {
    this.buf.set(HEADER);
    this.pos = HEADER.length;
  }

  /** One served allocation. */
  place(event: number, allocation: number, address: number, sizeBytes: number, allocatedBytes: number): void {
    if (this.gone) return;
    const ids = this.ids();
    // An id of a kilobyte and its quotes at most: the numbers take 16 + 2 + 16 + 16 + 16 + 5 bytes.
    if (this.pos + 256 + 2 * ids.bytesOf(allocation) > this.buf.length) this.flush(ids.bytesOf(allocation));
    const b = this.buf;
    let p = writeDecimal(event, b, this.pos);
    b[p++] = 0x2c;
    p = this.id(ids, allocation, p);
    b[p++] = 0x2c;
    b[p++] = 0x30;
    b[p++] = 0x78;
    p = hex(address, b, p);
    b[p++] = 0x2c;
    p = writeDecimal(sizeBytes, b, p);
    b[p++] = 0x2c;
    p = writeDecimal(allocatedBytes, b, p);
    b[p++] = 0x0a;
    this.pos = p;
  }

  /** Writes what is buffered. */
  close(): void {
    this.flush(0);
  }

  /** The id, quoted as RFC 4180 wants when it holds a quote, comma or line break. */
  private id(ids: IdTable, a: number, p: number): number {
    const b = this.buf;
    const end = ids.writeId(a, b, p);
    let special = false;
    for (let k = p; k < end; k++) {
      const c = b[k] as number;
      if (c === 0x22 || c === 0x2c || c === 0x0a || c === 0x0d) special = true;
    }
    if (!special) return end;
    const raw = b.slice(p, end);
    b[p++] = 0x22;
    for (const c of raw) {
      if (c === 0x22) b[p++] = 0x22;
      b[p++] = c;
    }
    b[p++] = 0x22;
    return p;
  }

  private flush(room: number): void {
    try {
      this.file.bytes(this.buf, this.pos);
    } catch (e) {
      if (!(e instanceof OutputClosed)) throw e;
      this.gone = true;
    }
    this.pos = 0;
    if (room * 2 + 256 > this.buf.length) this.buf = new Uint8Array(room * 2 + 256);
  }
}

/** Writes `v` (a safe integer, at least 0) in lowercase hexadecimal; returns the position after it. */
function hex(v: number, out: Uint8Array, pos: number): number {
  const hi = Math.floor(v / 4294967296);
  const lo = v >>> 0;
  let digits = 0;
  for (let t = hi; t > 0; t = Math.floor(t / 16)) digits++;
  digits = digits > 0 ? digits + 8 : lo === 0 ? 1 : 8 - (Math.clz32(lo) >> 2);
  let k = pos + digits;
  const end = k;
  let l = lo;
  let h = hi;
  for (let n = 0; n < digits; n++) {
    if (n < 8) {
      out[--k] = HEX[l & 15] as number;
      l >>>= 4;
    } else {
      out[--k] = HEX[h % 16] as number;
      h = Math.floor(h / 16);
    }
  }
  return end;
}
