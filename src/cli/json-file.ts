/**
 * A JSON file that memsim wrote and reads back (`compare --baseline`, `tune --merge`): read up to a
 * bound, so that a device or an endless pipe named by mistake is refused instead of filling memory,
 * and refused with its line and column when it is not JSON.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { formatBytes } from '../util/bytes.js';
import { describeSystemError } from '../util/system-error.js';

/** The largest such file read: far more than any report memsim writes. */
export const MAX_JSON_FILE_BYTES = 256 * 2 ** 20;

/** The text of `path` (`what` names it in messages: `baseline`), at most `maxBytes`. */
function readBounded(path: string, what: string, maxBytes: number): string {
  const chunks: Buffer[] = [];
  let total = 0;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new UsageError(`cannot read the ${what} ${path}: ${describeSystemError(e)}`);
  }
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total));
      let got: number;
      try {
        got = readSync(fd, chunk, 0, chunk.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        throw new UsageError(`cannot read the ${what} ${path}: ${describeSystemError(e)}`);
      }
      if (got === 0) break;
      chunks.push(chunk.subarray(0, got));
      total += got;
      if (total > maxBytes) throw new UsageError(`${path}: larger than ${formatBytes(maxBytes)}: not a ${what} (a JSON report that memsim wrote)`);
    }
  } finally {
    closeSync(fd);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** Line and column (1-based) of character `at` of `text`. */
function lineAndColumn(text: string, at: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let k = text.indexOf('\n'); k >= 0 && k < at; k = text.indexOf('\n', k + 1)) {
    line++;
    start = k + 1;
  }
  return { line, col: at - start + 1 };
}

/**
 * The JSON value in `path`, which should be a `what` (`baseline`, `tune part`): a usage error
 * that names the file, and the line and column of the first fault, when it cannot be read or is not
 * JSON.
 */
export function readJsonFile(path: string, what: string, maxBytes = MAX_JSON_FILE_BYTES): unknown {
  const text = readBounded(path, what, maxBytes);
  try {
    return JSON.parse(text);
  } catch (e) {
    const first = text.trimStart();
    if (first === '') throw new UsageError(`${path}: empty: not a ${what} (a JSON report that memsim wrote)`);
    if (first[0] !== '{' && first[0] !== '[') {
      const start = JSON.stringify(first.slice(0, 20));
      throw new UsageError(`${path}: not a ${what}: a JSON report that memsim wrote was expected, and the file starts with ${start}`);
    }
    const at = /at position (\d+)/.exec((e as Error).message);
    let where = '';
    if (at) {
      const p = lineAndColumn(text, Number(at[1]));
      where = `:${p.line}:${p.col}`;
    }
    const why = (e as Error).message.replace(/ in JSON at position \d+.*$/, '').replace(/^(Unexpected end of JSON input)$/, 'the JSON ends early');
    throw new UsageError(`${path}${where}: not a ${what}: not valid JSON (${why})`);
  }
}
