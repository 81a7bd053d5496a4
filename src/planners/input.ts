import { detectReader } from '../trace/read.js';
import { TraceBuilder } from '../trace/builder.js';
import type { ReadOptions } from '../trace/readers.js';
import { ByteSource } from '../trace/source.js';
import { type RecordsCsvFormat, readRecordsCsv, sniffRecordsCsv } from './records-csv.js';
import { recordsFromTrace } from './records.js';
import type { UsageRecords } from './types.js';

/** The input formats `plan` reads besides every trace format. */
export const RECORD_FORMATS: readonly RecordsCsvFormat[] = ['minimalloc-csv', 'records-csv'];

/**
 * Reads what `memsim plan` accepts: a usage-record CSV (minimalloc's `id,lower,upper,size`, or
 * `size,first,last`), told by its header row, or any memsim trace (records derived from its
 * allocations). `options.format` forces a format: a record format or a trace reader's. One pass over
 * the file (standard input included), with the validation of every reader.
 */
export function readPlanInput(path: string, options: ReadOptions = {}): UsageRecords {
  const src = new ByteSource(path);
  src.fill();
  const head = src.buf.subarray(0, Math.min(src.end, 64 * 1024));
  const forced = options.format;
  const recordsFormat =
    forced !== undefined ? (RECORD_FORMATS as readonly string[]).includes(forced) ? (forced as RecordsCsvFormat) : null : sniffRecordsCsv(head);
  if (recordsFormat) return readRecordsCsv(path, recordsFormat, src);
  const reader = detectReader(path, head, forced);
  if (reader.loadTrace) return recordsFromTrace(reader.loadTrace(src, options));
  const builder = new TraceBuilder(path, options);
  const recorded = reader.read(src, builder, options);
  src.close();
  return recordsFromTrace(builder.finish(reader.format, recorded ?? undefined));
}
