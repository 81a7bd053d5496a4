import { type CheckedTrace, TraceChecker } from './checker.js';
import { type OpenedTrace, openTrace } from './open.js';
import { loadReader, type ReadOptions } from './readers.js';

export type { CheckedTrace } from './checker.js';

/** Checks an opened trace without keeping it (its reader's code must be loaded); see {@link TraceChecker}. */
export function checkOpenedTrace(opened: OpenedTrace, options: ReadOptions = {}): CheckedTrace {
  const { path, src, reader } = opened;
  if (reader.checkTrace) return reader.checkTrace(src, options);
  const checker = new TraceChecker(path, { ...options, source: src });
  const recorded = reader.read(src, checker, options);
  src.close();
  return checker.finishCheck(reader.format, recorded ? recorded.notes : undefined);
}

/**
 * Checks a trace file of any known format in one streaming pass, in memory that follows its live
 * allocations rather than its length (`memsim validate`), loading its reader's code first when that
 * is loaded on demand. Throws a {@link TraceError} listing the problems, as reading it would.
 */
export async function checkTraceFile(path: string, options: ReadOptions = {}): Promise<CheckedTrace> {
  const opened = openTrace(path, options);
  await loadReader(opened.reader);
  return checkOpenedTrace(opened, options);
}
