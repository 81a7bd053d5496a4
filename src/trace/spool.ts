/**
 * Standard input held in a temporary file instead of memory: an input that must be read whole before
 * it is parsed (a PyTorch snapshot pickle has no lines to stream by) comes through a pipe
 * (`zcat snapshot.pickle.gz | memsim replay -`) with no file to read it from again. Held in memory, it
 * took buffers that doubled as it came (some 4.8 GB of memory for 2 GiB of input); spooled, it takes
 * the disk's room, as `sort` takes it, and is then read as a file is, through a window.
 *
 * The file is removed from its directory as soon as it is made: it goes away with its descriptor,
 * however memsim ends (an interrupt, a crash). Where the system refuses that while it is open
 * (Windows), it is removed when closed.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemsimError, TraceError } from '../errors.js';
import { describeSystemError } from '../util/system-error.js';
import type { ByteSource } from './source.js';

/** The rest of an input written to a temporary file: open for reading at any position. */
export interface SpooledInput {
  /** The file's descriptor, open for reading and writing. */
  readonly fd: number;
  /** How many bytes it holds: the input from its first byte. */
  readonly size: number;
  /** Closes (and so removes) the file. */
  close(): void;
}

/**
 * Writes what `src` holds and everything that follows, to its end, into a new temporary file in `dir`
 * (default: the system's, `TMPDIR`), and leaves `src` at its end. `src` must hold its input from the
 * first byte (`base` 0). Returns undefined, having read nothing more, where no file can be made in
 * `dir` (the input is then read into memory, as it was before). Past `maxBytes` the input is refused
 * with `limitMessage`; a file that cannot be written to its end (a full disk) is an error naming the
 * directory and what to do instead.
 */
export function spoolInput(src: ByteSource, maxBytes: number, limitMessage: string, dir: string = tmpdir()): SpooledInput | undefined {
  const path = join(dir, `memsim-input-${process.pid}-${randomBytes(6).toString('hex')}`);
  const cannot = (e: unknown): MemsimError =>
    new MemsimError(
      `${src.file === '-' ? 'standard input' : src.file}: cannot hold it in a temporary file in ${dir} (${describeSystemError(e)}): save it to a file and name the file instead, or set TMPDIR to a directory with room`,
    );
  let fd: number;
  try {
    fd = openSync(path, 'wx+', 0o600);
  } catch {
    return undefined;
  }
  let linked = true;
  try {
    unlinkSync(path);
    linked = false;
  } catch {
    // removed when closed (below)
  }
  const close = (): void => {
    closeSync(fd);
    if (linked) {
      try {
        unlinkSync(path);
      } catch {
        // gone already
      }
    }
  };
  let size = 0;
  try {
    for (;;) {
      if (size + src.end > maxBytes) {
        src.close();
        throw TraceError.at(src.file, undefined, limitMessage);
      }
      for (let at = 0; at < src.end; ) {
        let n: number;
        try {
          n = writeSync(fd, src.buf, at, src.end - at, size + at);
        } catch (e) {
          src.close();
          throw cannot(e);
        }
        at += n;
      }
      size += src.end;
      src.discard(src.end);
      if (!src.fill()) break;
    }
  } catch (e) {
    close();
    throw e;
  }
  return { fd, size, close };
}
