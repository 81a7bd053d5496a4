import { readFileSync } from 'node:fs';
import { TraceError } from '../../errors.js';
import type { TraceReader } from '../readers.js';
import type { ByteSource } from '../source.js';
import { importSnapshot } from './import.js';
import { unpickle } from './pickle.js';
import type { PickleValue } from './pickle-value.js';
import { parseSnapshot } from './snapshot.js';

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

/** JSON starts with `{` or `[` (after a byte-order mark and blanks); a pickle never does with protocol 2+. */
function looksLikeJson(b: Buffer): boolean {
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i++;
  return b[i] === 0x7b || b[i] === 0x5b;
}

function isPickle(head: Buffer): boolean {
  return head[0] === 0x80 && (head[1] ?? 0) >= 2 && (head[1] ?? 0) <= 5;
}

const SNAPSHOT_KEYS = /^\s*\{\s*"(?:segments|device_traces|allocator_settings|external_annotations)"\s*:/;
const SEGMENT_KEYS = /^\s*\[\s*\{\s*"(?:device|address|total_size|allocated_size|active_size|requested_size|stream|segment_type|segment_pool_id|is_expandable|frames|blocks)"\s*:/;

/** True for the JSON form of a snapshot: its first key is a snapshot key, or it is a list of segments. */
function isSnapshotJson(head: Buffer): boolean {
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
  const text = head.subarray(i, i + 4096).toString('utf8');
  if (SNAPSHOT_KEYS.test(text)) return true;
  return SEGMENT_KEYS.test(text) && head.includes('"total_size"');
}

/**
 * PyTorch memory snapshots (`torch.cuda.memory._dump_snapshot`): the pickle as written, or the same
 * structure as JSON (what the official viewer also accepts). See spec/pytorch-snapshot.md.
 */
export const pytorchSnapshotReader: TraceReader = {
  format: 'pytorch-snapshot',
  description: 'PyTorch memory snapshot (torch.cuda.memory._dump_snapshot): pickle, or the same structure as JSON',
  extensions: ['.pickle', '.pkl'],
  sniff(head) {
    return isPickle(head) || isSnapshotJson(head) ? 3 : 0;
  },
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
