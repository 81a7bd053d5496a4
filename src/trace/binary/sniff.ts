/**
 * How a binary trace is recognised, apart from how it is read: sniffing runs for every input, the
 * reader's code loads only for binary traces.
 */
import { hasMagic } from './format.js';

export const BINARY_READER_INFO = {
  format: 'mst',
  description: 'memsim binary trace (.mst): the columnar trace, little-endian, written by `memsim convert`',
  extensions: ['.mst'],
} as const;

/** 3 when the file starts with the binary trace's magic bytes, else 0 (see TraceReader.sniff). */
export function sniffBinary(head: Buffer): number {
  return hasMagic(head) ? 3 : 0;
}
