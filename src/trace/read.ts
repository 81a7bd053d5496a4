import { type CheckedTrace, checkOpenedTrace } from './check.js';
import type { Trace } from './model.js';
import { openTrace, readOpenedTrace } from './open.js';
import { loadAllReaders, type ReadOptions } from './readers.js';

export { detectReader } from './open.js';

// The synchronous API has every reader's code at hand.
await loadAllReaders();

/**
 * Reads a trace file of any known format into the columnar model, checking syntax and semantics in
 * one streaming pass. Throws a {@link TraceError} listing the problems (file, line, field) when the
 * input is invalid.
 */
export function readTrace(path: string, options: ReadOptions = {}): Trace {
  return readOpenedTrace(openTrace(path, options), options);
}

/**
 * Checks a trace file as {@link readTrace} does, without keeping it: memory follows its live
 * allocations, not its length. Returns the figures of its summary.
 */
export function checkTrace(path: string, options: ReadOptions = {}): CheckedTrace {
  return checkOpenedTrace(openTrace(path, options), options);
}
