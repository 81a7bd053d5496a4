/**
 * How a TensorFlow memory log is recognised, apart from how it is read: sniffing runs for every
 * input, the reader's code loads only for logs.
 */
import { LOG_MEMORY_MARKER } from './scan.js';

/** The reader's name, description and file name endings. */
export const TFLOG_READER_INFO = {
  format: 'tflog',
  description: 'TensorFlow __LOG_MEMORY__ log lines (stderr of a run with TF_CPP_VMODULE=log_memory=2); other lines ignored',
  extensions: ['.log'] as readonly string[],
} as const;

/** 3 when the first bytes hold a `__LOG_MEMORY__` line, else 0 (see TraceReader.sniff). */
export function sniffTfLog(head: Buffer): number {
  return head.includes(LOG_MEMORY_MARKER) ? 3 : 0;
}
