import { lineOf, type Trace } from './model.js';

/** Where an event is in the file it came from. */
export interface EventSource {
  /** 1-based line (null for files without lines, and for reconstructed events). */
  line: number | null;
  /** The path of its entry in a file without lines, e.g. `device_traces[0][4]` (else null). */
  entry: string | null;
}

/** Where event `i` of a trace is in its source: a line, or (snapshots) the path of its entry. */
export function eventSource(trace: Trace, i: number): EventSource {
  const line = i >= 0 && i < trace.length ? lineOf(trace, i) : 0;
  if (trace.entryList !== undefined) return { line: null, entry: line > 0 ? `${trace.entryList}[${line - 1}]` : null };
  return { line: line > 0 ? line : null, entry: null };
}
