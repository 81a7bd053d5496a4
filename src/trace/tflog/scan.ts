import type { ByteSource } from '../source.js';

/** What every memory-log line carries, wherever the logging prefix puts it. */
export const LOG_MEMORY_MARKER = Buffer.from('__LOG_MEMORY__', 'latin1');
const MARKER_BYTES = LOG_MEMORY_MARKER.length;
const NONE = Number.POSITIVE_INFINITY;

/** Receives the lines of a log. Positions index `buf`, valid only during the call. */
export interface LineSink {
  /** A line with the marker: `[lineStart, lineEnd)` (no newline, no CR), the marker ending at `afterMarker`. */
  memoryLine(buf: Buffer, lineStart: number, afterMarker: number, lineEnd: number, line: number): void;
  /** Any other line. */
  otherLine(): void;
}

/**
 * Streams the lines of a log from `src` (which holds its first chunk already): only the line being
 * read and the rest of the current chunk are in memory. The marker is searched once per stretch of
 * lines with the native `indexOf`, so a capture that is mostly other output costs little more than
 * counting its newlines.
 * @returns the number of lines.
 */
export function scanLines(src: ByteSource, sink: LineSink): number {
  let buf = src.buf;
  let end = src.end;
  let pos = 0;
  let line = 1;
  // Position of the next marker at or after `pos` in the bytes held; NONE when there is none there;
  // -1 when it must be searched again (after more bytes arrive).
  let marker = -1;
  for (;;) {
    let nl = pos < end ? buf.indexOf(0x0a, pos) : -1;
    if (nl >= end) nl = -1;
    if (nl < 0) {
      if (!src.eof) {
        src.discard(pos);
        pos = 0;
        marker = -1;
        const at = line;
        src.lineOf = () => at;
        src.fill();
        buf = src.buf;
        end = src.end;
        continue;
      }
      if (pos >= end) break;
      nl = end;
    }
    if (marker === -1 || (marker < pos && marker !== NONE)) {
      const m = buf.indexOf(LOG_MEMORY_MARKER, pos);
      marker = m < 0 || m + MARKER_BYTES > end ? NONE : m;
    }
    let lineEnd = nl;
    if (lineEnd > pos && buf[lineEnd - 1] === 0x0d) lineEnd--;
    if (marker < nl) sink.memoryLine(buf, pos, marker + MARKER_BYTES, lineEnd, line);
    else sink.otherLine();
    pos = nl + 1;
    line++;
  }
  return line - 1;
}
