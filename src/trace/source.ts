import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { TraceError } from '../errors.js';

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
  private fd: number;
  private readonly ownsFd: boolean;
  readonly file: string;
  private readonly chunk: number;

  /** Size of the file (0 when unknown, e.g. a pipe). */
  readonly totalBytes: number;
  /** Bytes read so far. */
  readBytes = 0;
  private readonly onRead: ((readBytes: number, totalBytes: number) => void) | undefined;

  constructor(file: string, chunkBytes = 1 << 20, onRead?: (readBytes: number, totalBytes: number) => void) {
    this.file = file;
    this.onRead = onRead;
    this.chunk = chunkBytes;
    this.buf = Buffer.allocUnsafe(chunkBytes * 2);
    if (file === '-') {
      this.fd = 0;
      this.ownsFd = false;
    } else {
      try {
        this.fd = openSync(file, 'r');
      } catch (e) {
        throw TraceError.at(file, undefined, `cannot open: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
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
    if (this.buf.length - this.end < this.chunk) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.end + this.chunk));
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
        throw TraceError.at(this.file, undefined, `cannot read: ${code ?? (e as Error).message}`);
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
    throw TraceError.at(file, undefined, `cannot open: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    const buf = Buffer.alloc(count);
    const got = readSync(fd, buf, 0, count, 0);
    return buf.subarray(0, got);
  } catch (e) {
    throw TraceError.at(file, undefined, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  } finally {
    closeSync(fd);
  }
}
