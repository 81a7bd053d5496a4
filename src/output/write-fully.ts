import { writeSync } from 'node:fs';
import { OutputClosed, OutputError } from '../errors.js';
import { describeSystemError } from '../util/system-error.js';

/** A word to sleep on while a pipe is full (Atomics.wait blocks the thread without spinning). */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
/** The first and the longest pause, in milliseconds, while a pipe's reader catches up. */
const FIRST_PAUSE_MS = 0.05;
const LONGEST_PAUSE_MS = 10;

/**
 * Writes bytes [start, end) of `bytes` to `fd`, all of them, however slowly the other end reads.
 *
 * A pipe that its reader does not empty fills up (64 KiB on Linux); when the descriptor is in
 * non-blocking mode (Node puts it there once anything touches `process.stdout`, and a parent may have
 * too), the write then fails with EAGAIN instead of waiting. So a full pipe is waited for here, with
 * pauses that grow from 50 µs to 10 ms while nothing moves, as a blocking write would wait.
 *
 * @param name what the user calls the destination (`out.csv`, `standard output`), for messages
 * @throws OutputClosed when the reader has gone (EPIPE): the command stops quietly, as `cat` does
 * @throws OutputError for anything else the system refuses (a full disk: `cannot write /dev/full: no
 *   space left on device`)
 */
export function writeFully(fd: number, bytes: Uint8Array, start: number, end: number, name: string): void {
  let pauseMs = FIRST_PAUSE_MS;
  while (start < end) {
    try {
      start += writeSync(fd, bytes, start, end - start);
      pauseMs = FIRST_PAUSE_MS;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK') {
        Atomics.wait(PAUSE, 0, 0, pauseMs);
        pauseMs = Math.min(LONGEST_PAUSE_MS, pauseMs * 2);
      } else if (code === 'EINTR') {
        continue;
      } else if (code === 'EPIPE') {
        throw new OutputClosed(name);
      } else {
        throw new OutputError(`cannot write ${name}: ${describeSystemError(e)}`);
      }
    }
  }
}
