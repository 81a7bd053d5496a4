/**
 * The first events of a CSV trace, read on the replaying thread while the reading thread starts: a
 * thread takes some tens of milliseconds to boot before it reads anything, which the replay would
 * only wait for. The head is read as the reading thread reads it (the same header, the same
 * plain-record loop, the same builder), so that its events are the very first events of the
 * thread's trace, with the same allocation numbers, steps and tags; the replay takes the thread's
 * events whenever they are more (see feed.ts, `TraceFeed.poll`).
 *
 * Only what that loop takes is read here, from the first {@link HEAD_BYTES} of the file: a record
 * for the general path (a quoted field, a comment, anything invalid), a problem, or the end of those
 * bytes ends the head, and the thread, which reads the whole file, says what there is to say. The
 * bytes pass through a buffer of {@link BUFFER_BYTES}, the parsed ones dropped from its front: fresh
 * memory costs a page fault per 4 KiB on first touch (some microseconds each on a VM), and the whole
 * head in one buffer touched 4 MiB.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { TraceBuilder } from '../builder.js';
import { CsvScanner } from '../csv.js';
import type { Trace } from '../model.js';
import { detectReader } from '../open.js';
import { plainRecords, readCsvHeader } from '../read-csv.js';
import { ByteSource } from '../source.js';

/** The most bytes of the file's start read here (some hundred thousand events). */
const HEAD_BYTES = 4 << 20;
/** Bytes read from the file at a time. */
const READ_BYTES = 1 << 18;
/** The buffer the head's bytes pass through: a read, a step, and the rest of a line. */
const BUFFER_BYTES = 1 << 19;
/** Bytes parsed per {@link HeadReading.advance} (a few thousand events). */
const STEP_BYTES = 1 << 16;

export class HeadReading {
  private fd: number;
  /**
   * Where the next bytes of the file go in the source's buffer, and the end of the last whole line
   * there; the buffer's first byte is the file's byte `src.base`.
   */
  private read = 0;
  private last = 0;
  private ended = false;
  private roles: Uint8Array = new Uint8Array(0);

  private constructor(
    fd: number,
    private readonly sc: CsvScanner,
    private readonly builder: TraceBuilder,
  ) {
    this.fd = fd;
  }

  /**
   * The head of the CSV trace `path`, its header read, or undefined when the file is not a CSV trace
   * whose header is in order (or cannot be read here).
   */
  static open(path: string): HeadReading | undefined {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return undefined;
    }
    const sc = new CsvScanner(new ByteSource(path, READ_BYTES, undefined, Buffer.allocUnsafe(BUFFER_BYTES)));
    const head = new HeadReading(fd, sc, new TraceBuilder(path));
    try {
      head.fill();
      const bytes = sc.src.buf.subarray(0, Math.min(head.read, 64 * 1024));
      if (head.last > 0 && detectReader(path, bytes).format === 'csv') {
        sc.src.end = head.last;
        const header = readCsvHeader(sc, head.builder);
        if (header && head.builder.problems.isEmpty) {
          head.roles = header.roles;
          return head;
        }
      }
    } catch {
      // not read here: the thread says what is wrong
    }
    head.close();
    return undefined;
  }

  /**
   * Reads the file's next bytes, up to {@link HEAD_BYTES} of it, first dropping the parsed bytes from
   * the buffer's front when the rest would not fit.
   */
  private fill(): void {
    const sc = this.sc;
    const src = sc.src;
    const buf = src.buf;
    if (buf.length - this.read < READ_BYTES && sc.pos > 0) {
      const shift = sc.pos;
      buf.copy(buf, 0, shift, this.read);
      src.base += shift;
      sc.pos = 0;
      this.read -= shift;
      this.last -= shift;
    }
    const at = src.base + this.read;
    const want = Math.min(READ_BYTES, buf.length - this.read, HEAD_BYTES - at);
    const n = this.fd < 0 || want <= 0 ? 0 : readSync(this.fd, buf, this.read, want, at);
    this.read += n;
    if (n === 0 || at + n === HEAD_BYTES) this.close();
    this.last = this.read === 0 ? 0 : buf.lastIndexOf(0x0a, this.read - 1) + 1;
  }

  /** Events read so far. */
  get length(): number {
    return this.builder.length;
  }

  /**
   * Reads the records of about {@link STEP_BYTES} more bytes; false when it read none (then and
   * afterwards: the head has ended).
   */
  advance(): boolean {
    const sc = this.sc;
    const src = sc.src;
    if (this.ended) return false;
    try {
      while (this.fd >= 0 && this.last - sc.pos < STEP_BYTES) this.fill();
    } catch {
      this.close();
    }
    if (sc.pos >= this.last) return this.end();
    let to = Math.min(this.last, sc.pos + STEP_BYTES);
    if (to < this.last) to = src.buf.indexOf(0x0a, to) + 1;
    // The loop reads up to the end of the source's bytes, which ends at a line's end here.
    src.end = to;
    const before = this.builder.length;
    plainRecords(sc, this.builder, this.roles);
    // A record that the loop does not take, or a problem, ends the head.
    if (!this.builder.problems.isEmpty) return this.end();
    if (sc.pos < to) this.end();
    return this.builder.length > before;
  }

  private end(): false {
    this.ended = true;
    this.close();
    return false;
  }

  /** The trace so far (see `TraceBuilder.partial`). */
  partial(): Trace {
    return this.builder.partial();
  }

  /** Closes the file (the events read stay). */
  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}
