import type { IdTable } from '../trace/id-table.js';
import { OutputClosed } from '../errors.js';
import type { OutputFile } from '../output/index.js';
import { asciiDecimal, asciiHex } from '../output/ascii-numbers.js';

const HEADER = new TextEncoder().encode('event,id,address,sizeBytes,allocatedBytes\n');
/** Bytes buffered before a write. */
const BUFFER_BYTES = 1 << 20;

/**
 * `--placements FILE`: one CSV line `event,id,address,sizeBytes,allocatedBytes` per served allocation,
 * formatted straight into bytes (no string per line: a replay of 10^7 events places millions).
 */
export class PlacementsCsv {
  private buf = new Uint8Array(BUFFER_BYTES);
  private view = new DataView(this.buf.buffer);
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
    if (this.pos > this.buf.length - 256) this.flush(0);
    const idBytes = ids.bytesOf(allocation);
    if (idBytes > 32 && this.pos + 256 + 2 * idBytes > this.buf.length) this.flush(idBytes);
    const b = this.buf;
    const v = this.view;
    let p = asciiDecimal(event, v, this.pos);
    b[p++] = 0x2c;
    p = this.id(ids, allocation, p);
    b[p++] = 0x2c;
    b[p++] = 0x30;
    b[p++] = 0x78;
    p = asciiHex(address, v, p);
    b[p++] = 0x2c;
    p = asciiDecimal(sizeBytes, v, p);
    b[p++] = 0x2c;
    p = asciiDecimal(allocatedBytes, v, p);
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
    if (room * 2 + 256 > this.buf.length) {
      this.buf = new Uint8Array(room * 2 + 256);
      this.view = new DataView(this.buf.buffer);
    }
  }
}
