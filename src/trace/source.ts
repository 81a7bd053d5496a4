import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { TraceError } from '../errors.js';
import { formatBytes } from '../util/bytes.js';
import { describeSystemError } from '../util/system-error.js';

/**
 * The longest line, CSV record or JSON element (an event, the header) that the streaming readers
 * hold: a longer one is refused with exit 2 rather than read into memory without end (`/dev/zero`,
 * a binary file forced with `--input-format`, a line with no end).
 */
export const MAX_RECORD_BYTES = 16 * 2 ** 20;
/** What a reader may hold besides its longest record: consumed bytes not yet dropped, and a chunk read ahead. */
const HELD_SLACK_BYTES = 4 * 2 ** 20;

/** A record longer than this many chunks makes the buffer grow to {@link LONG_RECORD_BYTES} at once. */
const LONG_RECORD_CHUNKS = 8;
const LONG_RECORD_BYTES = 64 << 20;

/**
 * A file read in chunks into a growable buffer, so that readers stream: only the unparsed tail and
 * the element being parsed are held in memory, never the whole file.
 *
 * Positions are offsets into {@link ByteSource.buf}. `fill()` only appends (it may replace `buf` by a
 * larger copy, so callers re-read `buf` after it), and `discard()` drops consumed bytes from the
 * front and returns the shift to apply to held positions; readers call it only between elements.
 */
export class ByteSource {
  buf: Buffer;
  /** Valid bytes are `buf[0, end)`. */
  end = 0;
  /** True once the file is exhausted. */
  eof = false;
  /** Bytes discarded so far (file offset of `buf[0]`). */
  base = 0;
  private fd = -1;
  private readonly ownsFd: boolean = false;
  readonly file: string;
  private readonly chunk: number;

  /** Size of the file (0 when unknown, e.g. a pipe). */
  readonly totalBytes: number = 0;
  /** Bytes read so far. */
  readBytes = 0;
  private readonly onRead: ((readBytes: number, totalBytes: number) => void) | undefined;
  /**
   * The most bytes held at once: {@link ByteSource.fill} refuses to hold more. Readers that need a
   * whole input in memory (a pickle) raise it to their own documented limit, with `limitMessage`.
   */
  maxHeldBytes = MAX_RECORD_BYTES + HELD_SLACK_BYTES;
  /** What is refused past `maxHeldBytes` (default: a line longer than {@link MAX_RECORD_BYTES}). */
  limitMessage = `a line longer than ${formatBytes(MAX_RECORD_BYTES)}: memsim reads lines, CSV records and JSON events of up to ${formatBytes(MAX_RECORD_BYTES)} (is the file a trace in this format?)`;
  /** The line being read, for the message of a refused one (scanners set it). */
  lineOf: (() => number) | undefined;

  constructor(file: string, chunkBytes = 1 << 20, onRead?: (readBytes: number, totalBytes: number) => void, whole?: Uint8Array) {
    this.file = file;
    this.onRead = onRead;
    this.chunk = chunkBytes;
    if (whole) {
      // The whole file, read already (see trace/pipeline/early.ts): held from the start, nothing to read.
      this.buf = Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength);
      this.end = this.readBytes = this.totalBytes = whole.byteLength;
      this.eof = true;
      this.fd = -1;
      this.ownsFd = false;
      this.maxHeldBytes = Math.max(this.maxHeldBytes, whole.byteLength);
      return;
    }
    this.buf = Buffer.allocUnsafe(chunkBytes * 2);
    if (file === '-') {
      this.fd = 0;
      this.ownsFd = false;
    } else {
      try {
        this.fd = openSync(file, 'r');
      } catch (e) {
        throw TraceError.at(file, undefined, `cannot open: ${describeSystemError(e)}`);
      }
      this.ownsFd = true;
    }
    let total = 0;
    try {
      const st = fstatSync(this.fd);
      if (st.isFile()) total = st.size;
    } catch {
      total = 0;
    }
    this.totalBytes = total;
  }

  /** Reads at least one more chunk; false at end of file. */
  fill(): boolean {
    if (this.eof) return false;
    if (this.end >= this.maxHeldBytes) {
      this.close();
      throw TraceError.at(this.file, this.lineOf?.(), this.limitMessage);
    }
    if (this.buf.length - this.end < this.chunk) {
      // Never more than the limit: the check above then stops a record that does not end. Past a few
      // chunks the record is a long one: the buffer grows to 64 MiB (or the limit) at once, memory
      // that costs nothing until written, rather than through each doubling, a copy that stays in
      // memory until the collector frees it (`validate /dev/zero --input-format csv` peaked at 103 MB).
      const want = Math.max(this.buf.length * 2, this.end + this.chunk);
      const next = Buffer.allocUnsafe(Math.min(want > LONG_RECORD_CHUNKS * this.chunk ? Math.max(want, LONG_RECORD_BYTES) : want, this.maxHeldBytes));
      this.buf.copy(next, 0, 0, this.end);
      this.buf = next;
    }
    let got: number;
    for (;;) {
      try {
        got = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, null);
        break;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') continue; // a non-blocking stdin pipe: try again
        if (code === 'EOF') {
          got = 0;
          break;
        }
        throw TraceError.at(this.file, undefined, `cannot read: ${describeSystemError(e)}`);
      }
    }
    if (got === 0) {
      this.eof = true;
      this.close();
      return false;
    }
    this.end += got;
    this.readBytes += got;
    this.onRead?.(this.readBytes, this.totalBytes);
    return true;
  }

  /**
   * Reads the bytes that follow those read so far straight into `target` (readers of binary columns:
   * no copy through {@link ByteSource.buf}, which keeps what it holds); returns how many it got, fewer
   * than `target.length` only at the end of the file.
   */
  readInto(target: Uint8Array): number {
    let got = 0;
    while (got < target.length && !this.eof) {
      let n: number;
      try {
        n = readSync(this.fd, target, got, Math.min(target.length - got, 1 << 30), null);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') continue;
        if (code !== 'EOF') throw TraceError.at(this.file, undefined, `cannot read: ${describeSystemError(e)}`);
        n = 0;
      }
      if (n === 0) {
        this.eof = true;
        this.close();
        break;
      }
      got += n;
      this.readBytes += n;
      this.onRead?.(this.readBytes, this.totalBytes);
    }
    return got;
  }

  /** Drops bytes before `pos`; returns how far positions moved (subtract it from held positions). */
  discard(pos: number): number {
    if (pos === 0) return 0;
    this.buf.copy(this.buf, 0, pos, this.end);
    this.end -= pos;
    this.base += pos;
    return pos;
  }

  /** Closes the file early (readers call it when they stop on a fatal error). */
  close(): void {
    if (this.ownsFd && this.fd >= 0) {
      closeSync(this.fd);
      this.fd = -1;
    }
  }
}

/** Reads the first bytes of a file (for format detection) without consuming a stream. */
export function peekBytes(file: string, count: number): Buffer {
  if (file === '-') return Buffer.alloc(0);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw TraceError.at(file, undefined, `cannot open: ${describeSystemError(e)}`);
  }
  try {
    const buf = Buffer.alloc(count);
    const got = readSync(fd, buf, 0, count, 0);
    return buf.subarray(0, got);
  } catch (e) {
    throw TraceError.at(file, undefined, `cannot read: ${describeSystemError(e)}`);
  } finally {
    closeSync(fd);
  }
}
