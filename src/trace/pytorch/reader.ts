import { readFileSync } from 'node:fs';
import { TraceError } from '../../errors.js';
import type { TraceReader } from '../readers.js';
import type { ByteSource } from '../source.js';
import { importSnapshot } from './import.js';
import { unpickle } from './pickle.js';
import type { PickleValue } from './pickle-value.js';
import { parseSnapshot } from './snapshot.js';
import { looksLikeJson, sniffSnapshot, SNAPSHOT_EXTENSIONS, SNAPSHOT_READER_INFO } from './sniff.js';

/**
 * Reads the whole input into one buffer (a pickle has no line structure to stream by): a file in one
 * read, standard input through the source's chunks.
 */
function readAll(src: ByteSource): Buffer {
  if (src.file !== '-' && src.base === 0) {
    try {
      return readFileSync(src.file);
    } catch (e) {
      throw TraceError.at(src.file, undefined, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  while (src.fill()) {
    // fill() appends until the end of the input
  }
  return src.buf.subarray(0, src.end);
}

/**
 * PyTorch memory snapshots (`torch.cuda.memory._dump_snapshot`): the pickle as written, or the same
 * structure as JSON (what the official viewer also accepts). See spec/pytorch-snapshot.md.
 */
export const pytorchSnapshotReader: TraceReader = {
  ...SNAPSHOT_READER_INFO,
  extensions: SNAPSHOT_EXTENSIONS,
  sniff: sniffSnapshot,
  read(src, builder, options) {
    const bytes = readAll(src);
    options.onProgress?.(bytes.length, bytes.length);
    let root: PickleValue;
    if (looksLikeJson(bytes)) {
      try {
        root = JSON.parse(bytes.toString('utf8')) as PickleValue;
      } catch (e) {
        throw TraceError.at(src.file, undefined, `not valid JSON: ${(e as Error).message}`);
      }
    } else {
      root = unpickle(bytes, src.file);
    }
    return importSnapshot(parseSnapshot(root, src.file), src.file, builder, options.device);
  },
};
