import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { TraceError } from '../../errors.js';
import { describeSystemError } from '../../util/system-error.js';
import { unpickle } from './pickle.js';
import { DIRECT_MIN_BYTES, type SnapshotPickle, SnapshotUnpickler } from './snapshot-unpickler.js';

/**
 * How much of a large snapshot pickle is held at once, and how many bytes at least lie ahead of the
 * opcode being read before the window moves on. A file read whole needs memory as large as the file,
 * and on a host where fresh memory is dear (each 4 KiB page faulted in costs microseconds: 0.35-0.45 s
 * of system time for the 105 MB benchmark snapshot, against 20-30 ms to read it through one buffer
 * of 1 MiB) that is a sixth of the read. An opcode or trace entry longer than the margin makes the
 * file be read whole after all (see {@link unpickleSnapshotFile}).
 */
export const WINDOW_BYTES = 2 * 2 ** 20;
export const WINDOW_MARGIN_BYTES = 2 ** 19;

/**
 * A file read through a buffer that moves along it: {@link bytes} are the file's bytes from offset
 * {@link base}, and {@link advance} drops those before a position and reads on.
 */
export class FileWindow {
  readonly size: number;
  base = 0;
  bytes: Uint8Array;
  private readonly store: Uint8Array;
  private fd: number;

  /** Whether {@link close} closes the file (not when it was given open). */
  private readonly ownsFd: boolean;

  /** `source`: a path, or a file open for reading at any position, which {@link close} leaves open. */
  constructor(
    source: string | number,
    capacity = WINDOW_BYTES,
    readonly margin = WINDOW_MARGIN_BYTES,
  ) {
    this.ownsFd = typeof source === 'string';
    this.fd = typeof source === 'string' ? openSync(source, 'r') : source;
    try {
      this.size = fstatSync(this.fd).size;
      this.store = new Uint8Array(Math.min(capacity, this.size));
      this.bytes = this.store.subarray(0, this.fill(0));
    } catch (e) {
      this.close();
      throw e;
    }
  }

  /** Whether {@link bytes} reach the end of the file. */
  get isLast(): boolean {
    return this.base + this.bytes.length === this.size;
  }

  /**
   * The position in {@link bytes} past which the reading moves the window on; where the file's end is
   * held, the end of {@link bytes}, which no position passes. Always a small integer: a limit that
   * became Infinity at the last window would change the representation of the reader's field that
   * holds it and throw away the reader's optimized code near the end of the file.
   */
  get limit(): number {
    return this.isLast ? this.bytes.length : this.bytes.length - this.margin;
  }

  /** Drops the bytes before position `keep` and reads on: positions in {@link bytes} move down by `keep`. */
  advance(keep: number): Uint8Array {
    const held = this.bytes.length - keep;
    this.store.copyWithin(0, keep, this.bytes.length);
    this.base += keep;
    this.bytes = this.store.subarray(0, this.fill(held));
    return this.bytes;
  }

  /** Bytes [from, to) of the file (a copy). */
  read(from: number, to: number): Uint8Array {
    const out = new Uint8Array(to - from);
    let at = 0;
    while (at < out.length) {
      const n = readSync(this.fd, out, at, out.length - at, from + at);
      if (n === 0) throw new Error('the file ended early');
      at += n;
    }
    return out;
  }

  close(): void {
    if (this.fd >= 0 && this.ownsFd) closeSync(this.fd);
    this.fd = -1;
  }

  /** Fills the store from position `held` with the bytes that follow; returns how many it holds. */
  private fill(held: number): number {
    let at = held;
    const want = Math.min(this.store.length, this.size - this.base);
    while (at < want) {
      const n = readSync(this.fd, this.store, at, want - at, this.base + at);
      // A file that shrank while it was read: the reading stops, and the file is read whole instead.
      if (n === 0) throw new Error('the file ended early');
      at += n;
    }
    return at;
  }
}

/**
 * A snapshot pickle file (a path, or a file open for reading: see {@link FileWindow}) read as {@link unpickleSnapshot} reads its bytes, but through
 * a {@link FileWindow} rather than the whole file in memory. Where the direct reading does not take
 * the file (or the file changes meanwhile), it is read whole by the plain unpickler, whose result
 * and errors are the reference. A file under {@link DIRECT_MIN_BYTES} is read whole and plainly.
 */
export function unpickleSnapshotFile(
  source: string | number,
  file: string,
  windowBytes = WINDOW_BYTES,
  marginBytes = WINDOW_MARGIN_BYTES,
  minDirectBytes = DIRECT_MIN_BYTES,
): SnapshotPickle {
  let window: FileWindow | undefined;
  try {
    window = new FileWindow(source, windowBytes, marginBytes);
    // Throws where the file must be read again the plain way.
    if (window.size >= minDirectBytes) return new SnapshotUnpickler(window.bytes, file, window).read();
  } catch {
    // read again below
  } finally {
    window?.close();
  }
  let bytes: Uint8Array;
  try {
    bytes = typeof source === 'string' ? readFileSync(source) : readWhole(source);
  } catch (e) {
    throw TraceError.at(file, undefined, `cannot read: ${describeSystemError(e)}`);
  }
  return { root: unpickle(bytes, file) };
}

/** The whole of an open file, from its start whatever its position (a copy). */
function readWhole(fd: number): Uint8Array {
  const out = new Uint8Array(fstatSync(fd).size);
  for (let at = 0; at < out.length; ) {
    const n = readSync(fd, out, at, out.length - at, at);
    if (n === 0) throw new Error('the file ended early');
    at += n;
  }
  return out;
}
