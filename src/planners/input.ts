import { detectReader } from '../trace/open.js';
import { TraceBuilder } from '../trace/builder.js';
import { loadReader, type ReadOptions, type TraceReader } from '../trace/readers.js';
import { ByteSource } from '../trace/source.js';
import { type RecordsCsvFormat, readRecordsCsv, sniffRecordsCsv } from './records-csv.js';
import { recordsFromTrace } from './records.js';
import type { UsageRecords } from './types.js';

/** The input formats `plan` reads besides every trace format. */
export const RECORD_FORMATS: readonly RecordsCsvFormat[] = ['minimalloc-csv', 'records-csv'];

/** An input of `plan` opened, its first chunk read and its format told: a record format, or a trace reader. */
interface OpenedPlanInput {
  src: ByteSource;
  recordsFormat: RecordsCsvFormat | null;
  reader: TraceReader | null;
}

function openPlanInput(path: string, options: ReadOptions): OpenedPlanInput {
  const src = new ByteSource(path);
  src.fill();
  const head = src.buf.subarray(0, Math.min(src.end, 64 * 1024));
  const forced = options.format;
  const recordsFormat =
    forced !== undefined ? (RECORD_FORMATS as readonly string[]).includes(forced) ? (forced as RecordsCsvFormat) : null : sniffRecordsCsv(head);
  return { src, recordsFormat, reader: recordsFormat ? null : detectReader(path, head, forced) };
}

function readOpenedPlanInput(path: string, { src, recordsFormat, reader }: OpenedPlanInput, options: ReadOptions): UsageRecords {
  if (recordsFormat || !reader) return readRecordsCsv(path, recordsFormat ?? 'records-csv', src);
  if (reader.loadTrace) return recordsFromTrace(reader.loadTrace(src, options));
  const builder = new TraceBuilder(path, options);
  const recorded = reader.read(src, builder, options);
  src.close();
  return recordsFromTrace(builder.finish(reader.format, recorded ?? undefined));
}

/**
 * Reads what `memsim plan` accepts: a usage-record CSV (minimalloc's `id,lower,upper,size`, or
 * `size,first,last`), told by its header row, or any memsim trace (records derived from its
 * allocations). `options.format` forces a format: a record format or a trace reader's. One pass over
 * the file (standard input included), with the validation of every reader. A trace format whose
 * reader is loaded on demand must be loaded already (the library's entry loads them all); see
 * {@link readPlanInputFile}.
 */
export function readPlanInput(path: string, options: ReadOptions = {}): UsageRecords {
  return readOpenedPlanInput(path, openPlanInput(path, options), options);
}

/** {@link readPlanInput}, loading the code of the trace reader it needs first (what the CLI calls). */
export async function readPlanInputFile(path: string, options: ReadOptions = {}): Promise<UsageRecords> {
  const opened = openPlanInput(path, options);
  if (opened.reader) await loadReader(opened.reader);
  return readOpenedPlanInput(path, opened, options);
}
