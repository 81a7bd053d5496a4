import { readFileSync } from 'node:fs';
import { TraceError } from '../../errors.js';
import type { TraceReader } from '../readers.js';
import type { ByteSource } from '../source.js';
import { importSnapshot } from './import.js';
import type { PickleValue } from './pickle-value.js';
import { type DeviceTrace, parseSnapshot } from './snapshot.js';
import { DIRECT_MIN_BYTES, unpickleSnapshot } from './snapshot-unpickler.js';
import { unpickleSnapshotFile } from './file-window.js';
import { formatBytes } from '../../util/bytes.js';
import { isPickle, looksLikeJson, sniffSnapshot, SNAPSHOT_EXTENSIONS, SNAPSHOT_READER_INFO } from './sniff.js';
import { describeSystemError } from '../../util/system-error.js';
import { type SpooledInput, spoolInput } from '../spool.js';

/**
 * The largest snapshot read: a pickle of up to 2 GiB (what one read of a file can hold), its JSON
 * form up to 512 MiB (the longest string JavaScript makes). Larger inputs are refused, not read.
 */
export const MAX_SNAPSHOT_BYTES = 2 ** 31 - 1;
export const MAX_SNAPSHOT_JSON_BYTES = 2 ** 29 - 24;

/**
 * Reads the whole input (a pickle has no line structure to stream by): a file into one buffer in one
 * read (or as the source holds it, read whole already); standard input or a device through the
 * source's chunks, up to {@link MAX_SNAPSHOT_BYTES}, into memory while it is JSON or a pickle
 * under {@link DIRECT_MIN_BYTES}, else into a temporary file (see spool.ts), read then as a file.
 * An input whose first bytes are neither a pickle nor JSON is refused before it is read.
 */
function readAll(src: ByteSource): Buffer | SpooledInput {
  const first = src.buf.subarray(0, Math.min(src.end, 64));
  if (!isPickle(first) && !looksLikeJson(first)) {
    src.close();
    const what = src.end === 0 ? 'an empty input' : `first byte 0x${(src.buf[0] as number).toString(16).padStart(2, '0')}`;
    throw TraceError.at(src.file, undefined, `not a PyTorch snapshot: neither a pickle (protocol 2 to 5) nor JSON (${what})`);
  }
  const limit = `a snapshot larger than ${formatBytes(MAX_SNAPSHOT_BYTES)}, the most memsim reads (pickle; JSON: ${formatBytes(MAX_SNAPSHOT_JSON_BYTES)})`;
  if (src.eof && src.base === 0 && src.totalBytes === src.end) {
    // The whole file, read already (see trace/pipeline/early.ts).
    if (src.end > MAX_SNAPSHOT_BYTES) throw TraceError.at(src.file, undefined, limit);
    return src.buf.subarray(0, src.end);
  }
  if (src.file !== '-' && src.base === 0 && src.totalBytes > 0) {
    if (src.totalBytes > MAX_SNAPSHOT_BYTES) {
      src.close();
      throw TraceError.at(src.file, undefined, limit);
    }
    try {
      return readFileSync(src.file);
    } catch (e) {
      throw TraceError.at(src.file, undefined, `cannot read: ${describeSystemError(e)}`);
    }
  }
  src.maxHeldBytes = MAX_SNAPSHOT_BYTES;
  src.limitMessage = limit;
  let spools = isPickle(first);
  if (spools && src.totalBytes > MAX_SNAPSHOT_BYTES) {
    src.close();
    throw TraceError.at(src.file, undefined, limit);
  }
  // Spooled once DIRECT_MIN_BYTES are held, or at once when the input is a file that large (standard
  // input given `< file`); where no temporary file can be made, read into memory.
  do {
    if (spools && src.base === 0 && (src.totalBytes >= DIRECT_MIN_BYTES || src.end >= DIRECT_MIN_BYTES)) {
      const spooled = spoolInput(src, MAX_SNAPSHOT_BYTES, limit);
      if (spooled) return spooled;
      spools = false;
    }
  } while (src.fill());
  return src.buf.subarray(0, src.end);
}

/**
 * A pickle file large enough for the direct reading and not held in memory already: read through a
 * window (see file-window.ts) rather than whole, so the file's pages need no memory of their own.
 */
function isWindowed(src: ByteSource): boolean {
  if (src.file === '-' || src.base !== 0 || src.eof || src.totalBytes < DIRECT_MIN_BYTES || src.totalBytes > MAX_SNAPSHOT_BYTES) return false;
  return isPickle(src.buf.subarray(0, Math.min(src.end, 64)));
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
    if (isWindowed(src)) {
      options.onProgress?.(src.totalBytes, src.totalBytes);
      const { root, traces } = unpickleSnapshotFile(src.file, src.file);
      return importSnapshot(parseSnapshot(root, src.file, traces), src.file, builder, options.device);
    }
    const bytes = readAll(src);
    if (!(bytes instanceof Uint8Array)) {
      options.onProgress?.(bytes.size, bytes.size);
      try {
        const { root, traces } = unpickleSnapshotFile(bytes.fd, src.file);
        return importSnapshot(parseSnapshot(root, src.file, traces), src.file, builder, options.device);
      } finally {
        bytes.close();
      }
    }
    options.onProgress?.(bytes.length, bytes.length);
    let root: PickleValue;
    let traces: DeviceTrace[] | undefined;
    if (looksLikeJson(bytes)) {
      if (bytes.length > MAX_SNAPSHOT_JSON_BYTES) {
        throw TraceError.at(src.file, undefined, `a snapshot in JSON larger than ${formatBytes(MAX_SNAPSHOT_JSON_BYTES)}, the most memsim reads (save it as a pickle)`);
      }
      try {
        root = JSON.parse(bytes.toString('utf8')) as PickleValue;
      } catch (e) {
        throw TraceError.at(src.file, undefined, `not valid JSON: ${(e as Error).message}`);
      }
    } else {
      ({ root, traces } = unpickleSnapshot(bytes, src.file));
    }
    return importSnapshot(parseSnapshot(root, src.file, traces), src.file, builder, options.device);
  },
};
