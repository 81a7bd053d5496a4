import { formatCount } from '../../util/bytes.js';
import type { ByteSource } from '../source.js';
import { KIND_JSON, type SectionEntry } from './format.js';
import { fileError, readPreamble, readSectionTable, sectionError, tableBytes } from './table.js';
import { parseExact } from './json-values.js';

/** A section as read: JSON sections as their value, columns as bytes in shared memory. */
export interface LoadedSection {
  entry: SectionEntry;
  bytes: Uint8Array;
}

/**
 * Reads a binary trace's sections in file order, each column with one read straight into its own
 * shared memory (posting the trace to worker threads then copies nothing), or, when the whole file
 * is in shared memory already, where it is there. Works on standard input as on a file: nothing is
 * read twice or out of order.
 */
export class SectionReader {
  /** File offset of the next byte not yet taken. */
  private pos = 0;
  /** Bytes of the first chunk (file bytes [0, held)) not yet taken. */
  private readonly held: number;
  readonly entries: SectionEntry[];

  constructor(private readonly src: ByteSource) {
    const file = src.file;
    const total = src.totalBytes;
    // The first chunk holds the section table unless it is larger than the chunk (it never is: 64 entries).
    while (src.end < 16 && src.fill());
    const count = readPreamble(file, src.buf.subarray(0, src.end), total);
    while (src.end < tableBytes(count) && src.fill());
    this.entries = readSectionTable(file, src.buf.subarray(0, src.end), count, total);
    this.held = src.end;
    this.pos = tableBytes(count);
  }

  /** Reads the bytes of `entry` (which must come after those read so far). */
  read(entry: SectionEntry, shared: boolean): Uint8Array {
    const held = this.src.buf;
    if (shared && held.buffer instanceof SharedArrayBuffer && entry.offset >= this.pos && entry.offset + entry.byteLength <= this.held) {
      // The whole file is in shared memory already (read early, see ByteSource): the section where it is.
      this.pos = entry.offset + entry.byteLength;
      return new Uint8Array(held.buffer, held.byteOffset + entry.offset, entry.byteLength);
    }
    let out: Uint8Array;
    try {
      out = shared ? new Uint8Array(new SharedArrayBuffer(entry.byteLength)) : Buffer.allocUnsafe(entry.byteLength);
    } catch {
      // Only a section of standard input can be larger than its file: a length the table made up.
      throw sectionError(this.src.file, entry.name, `${formatCount(entry.byteLength)} bytes: more than this machine can hold (is the file damaged?)`);
    }
    this.skipTo(entry.offset, entry.name);
    let k = 0;
    if (this.pos < this.held) {
      k = Math.min(entry.byteLength, this.held - this.pos);
      out.set(this.src.buf.subarray(this.pos, this.pos + k));
    }
    if (k < entry.byteLength) k += this.src.readInto(out.subarray(k));
    if (k < entry.byteLength) this.truncated(entry, entry.offset + k);
    this.pos = entry.offset + entry.byteLength;
    return out;
  }

  /** Reads a JSON section's value. */
  json(entry: SectionEntry): unknown {
    if (entry.kind !== KIND_JSON) throw sectionError(this.src.file, entry.name, 'is a column where JSON text was expected');
    const text = Buffer.from(this.read(entry, false)).toString('utf8');
    try {
      return parseExact(text);
    } catch (e) {
      throw sectionError(this.src.file, entry.name, `not valid JSON: ${(e as Error).message}`);
    }
  }

  private skipTo(offset: number, name: string): void {
    if (offset <= this.pos) return;
    let gap = offset - this.pos;
    if (this.pos < this.held) {
      const n = Math.min(gap, this.held - this.pos);
      this.pos += n;
      gap -= n;
    }
    if (gap > 0) {
      const scratch = new Uint8Array(Math.min(gap, 1 << 20));
      while (gap > 0) {
        const got = this.src.readInto(scratch.subarray(0, Math.min(gap, scratch.length)));
        if (got === 0) throw sectionError(this.src.file, name, `truncated: the file ends at byte ${formatCount(this.pos)}, before the section starts at byte ${formatCount(offset)}`);
        gap -= got;
        this.pos += got;
      }
    }
  }

  private truncated(entry: SectionEntry, at: number): never {
    throw sectionError(this.src.file, entry.name, `truncated: the file ends at byte ${formatCount(at)}, inside the section (bytes ${formatCount(entry.offset)} to ${formatCount(entry.offset + entry.byteLength)}; an incomplete copy?)`);
  }
}

export { fileError, sectionError };
