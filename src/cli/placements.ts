import type { IdTable } from '../trace/id-table.js';
import { OutputClosed } from '../errors.js';
import type { OutputFile } from '../output/index.js';
import { asciiDecimal, asciiHex } from '../util/ascii-numbers.js';

const HEADER = new TextEncoder().encode('event,id,address,sizeBytes,allocatedBytes\n');
/** Bytes buffered before a write. */
const BUFFER_BYTES = 1 << 20;
/** Placements kept as numbers, then formatted together in one pass. */
const BATCH = 4096;
/**
 * Room for a line whose id is a plain number: four numbers of 16 digits at most, an id of 10,
 * `0x`, four commas, a line break, and the 3 bytes past the end that a number may store.
 */
const PLAIN_LINE_BYTES = 4 * 16 + 10 + 2 + 4 + 1 + 3;
/** Numbers stored per placement. */
const FIELDS = 5;
/** `,0x` as a little-endian word (its fourth byte is overwritten by the address). */
const COMMA_0X = 0x2c | (0x30 << 8) | (0x78 << 16);

/**
 * `--placements FILE`: one CSV line `event,id,address,sizeBytes,allocatedBytes` per served allocation,
 * formatted straight into bytes (no string per line: a replay of 10^7 events places millions).
 *
 * The replay hands each placement over as five numbers, which are stored; every {@link BATCH} of them
 * is formatted in one pass, away from the allocator's code, and ids that are plain numbers (the usual
 * case) are written as numbers with no look at their bytes.
 */
export class PlacementsCsv {
  private buf = new Uint8Array(BUFFER_BYTES);
  private view = new DataView(this.buf.buffer);
  private pos = 0;
  /** The reader went away (`--placements - | head`): lines are dropped, the replay and its report go on. */
  private gone = false;
  /** Per stored placement, {@link FIELDS} numbers: event, allocation, address, size, allocated bytes. */
  private readonly rows = new Float64Array(BATCH * FIELDS);
  /** Placements stored and not formatted yet. */
  private count = 0;

  /** @param ids the trace's ids, read when lines are written (a trace read while replayed grows). */
  constructor(
    private readonly file: OutputFile,
    private readonly ids: () => IdTable,
  ) {
    this.buf.set(HEADER);
    this.pos = HEADER.length;
  }

  /** One served allocation. */
  place(event: number, allocation: number, address: number, sizeBytes: number, allocatedBytes: number): void {
    const k = this.count;
    const rows = this.rows;
    const r = k * FIELDS;
    rows[r] = event;
    rows[r + 1] = allocation;
    rows[r + 2] = address;
    rows[r + 3] = sizeBytes;
    rows[r + 4] = allocatedBytes;
    this.count = k + 1;
    if (k + 1 === BATCH) this.format();
  }

  /** Writes what is stored and buffered. */
  close(): void {
    this.format();
    this.flush(0);
  }

  /** Formats the stored placements into the buffer. */
  private format(): void {
    const count = this.count;
    this.count = 0;
    if (this.gone || count === 0) return;
    const ids = this.ids();
    const plain = ids.plainNumbers();
    if (plain) {
      if (this.pos + count * PLAIN_LINE_BYTES > this.buf.length) this.flush(0);
      this.pos = plainLines(this.view, this.pos, count, plain, this.rows);
      return;
    }
    for (let k = 0; k < count && !this.gone; k++) this.line(ids, k);
  }

  /** Stored placement `k` as a line, its id any bytes. */
  private line(ids: IdTable, k: number): void {
    const rows = this.rows;
    const r = k * FIELDS;
    const allocation = rows[r + 1] as number;
    // An id of a kilobyte and its quotes at most: the numbers take 16 + 2 + 16 + 16 + 16 + 5 bytes.
    if (this.pos > this.buf.length - 256) this.flush(0);
    const idBytes = ids.bytesOf(allocation);
    if (idBytes > 32 && this.pos + 256 + 2 * idBytes > this.buf.length) this.flush(idBytes);
    const b = this.buf;
    const v = this.view;
    let p = asciiDecimal(rows[r] as number, v, this.pos);
    b[p++] = 0x2c;
    p = this.id(ids, allocation, p);
    v.setUint32(p, COMMA_0X, true);
    p = asciiHex(rows[r + 2] as number, v, p + 3);
    b[p++] = 0x2c;
    p = asciiDecimal(rows[r + 3] as number, v, p);
    b[p++] = 0x2c;
    p = asciiDecimal(rows[r + 4] as number, v, p);
    b[p++] = 0x0a;
    this.pos = p;
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

/**
 * Lines [0, count) of stored placements (`rows`) whose ids are the plain numbers `ids` (no byte of
 * them needs quoting), written at `pos` of `view` (room for {@link PLAIN_LINE_BYTES} a line); returns
 * the position after them.
 *
 * V8 inlines only so much code into one function: the event, the id and the address are written
 * here, the two byte counts by {@link sizeFields}, whose arguments are no doubles (a double argument
 * of a call that is not inlined is a new heap number). With the five writers in one function, two
 * were left as calls taking a double each. Writing all of the digits here, with no call, runs
 * faster once optimised but longer before (a larger function is optimised later), and the
 * placements of a replay are formatted once.
 */
function plainLines(view: DataView, pos: number, count: number, ids: Uint32Array, rows: Float64Array): number {
  let p = pos;
  const end = count * FIELDS;
  for (let r = 0; r < end; r += FIELDS) {
    p = asciiDecimal(rows[r] as number, view, p);
    view.setUint8(p, 0x2c);
    p = asciiDecimal(ids[rows[r + 1] as number] as number, view, p + 1);
    view.setUint32(p, COMMA_0X, true);
    p = asciiHex(rows[r + 2] as number, view, p + 3);
    view.setUint8(p, 0x2c);
    p = sizeFields(view, p + 1, rows, r);
  }
  return p;
}

/** The size and allocated bytes of the placement at `rows[r]`, and the line break. */
function sizeFields(view: DataView, pos: number, rows: Float64Array, r: number): number {
  const p = asciiDecimal(rows[r + 3] as number, view, pos);
  view.setUint8(p, 0x2c);
  const end = asciiDecimal(rows[r + 4] as number, view, p + 1);
  view.setUint8(end, 0x0a);
  return end + 1;
}
