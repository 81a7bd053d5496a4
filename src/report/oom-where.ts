import type { OomRecord } from '../sim/replay.js';
import { formatBytes } from '../util/bytes.js';
import { formatCount } from './format.js';

/**
 * Where an OOM is: `at event N, line L, step S`, with the snapshot entry instead of a line, or
 * `before event N, …` for the real run's own OOM from a recorded history.
 */
export function oomWhere(o: OomRecord, withStep = true): string {
  const at = `${o.recorded ? 'before' : 'at'} event ${formatCount(o.event)}`;
  const source = o.entry !== undefined ? o.entry : o.line !== null ? `line ${o.line}` : '';
  return [at, source, withStep ? `step ${formatCount(o.step)}` : ''].filter(Boolean).join(', ');
}

/** What failed: `alloc "id" (tag) of X (rounded to Y)`, or the real run's own request. */
export function oomWhat(o: OomRecord): string {
  if (o.recorded) return `the real run's request of ${formatBytes(o.sizeBytes)} (recorded in the snapshot; no event of the trace)`;
  return `alloc "${o.id}"${o.tag ? ` (${o.tag})` : ''} of ${formatBytes(o.sizeBytes)} (rounded to ${formatBytes(o.roundedBytes)})`;
}

/**
 * The failure in words, as the replay wrote it (with its holders, or the plan's arena); the
 * allocator's own message for a record that has none.
 */
export function oomExplanation(o: OomRecord): string {
  return o.explanation ?? o.native;
}

/** The short form: `at event N (line L)`, `at event N (device_traces[0][4])`, `before event N (…)`. */
export function oomAt(o: OomRecord): string {
  const source = o.entry !== undefined ? o.entry : o.line !== null ? `line ${o.line}` : '';
  return `${o.recorded ? 'before' : 'at'} event ${formatCount(o.event)}${source ? ` (${source})` : ''}`;
}
