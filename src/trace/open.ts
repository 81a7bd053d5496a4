import { extname, resolve } from 'node:path';
import { TraceError, UsageError } from '../errors.js';
import { TraceBuilder } from './builder.js';
import type { Trace } from './model.js';
import { takeEarlyBytes } from './pipeline/early-slot.js';
import { loadReader, type ReadOptions, type TraceReader, traceReaders } from './readers.js';
import { ByteSource } from './source.js';

/**
 * Picks the reader for a file: `--format` when given; otherwise the content of its first bytes,
 * with the file name's extension breaking ties.
 */
export function detectReader(path: string, head: Buffer, format?: string): TraceReader {
  if (format !== undefined) {
    const r = traceReaders.find((x) => x.format === format);
    if (!r) {
      throw new UsageError(`unknown trace format "${format}" (known: ${traceReaders.map((x) => x.format).join(', ')})`);
    }
    return r;
  }
  const ext = path === '-' ? '' : extname(path).toLowerCase();
  let best: TraceReader | undefined;
  let bestScore = 0;
  for (const r of traceReaders) {
    let score = r.sniff(head) * 2;
    if (r.extensions.includes(ext)) score += 1;
    if (score > bestScore) {
      best = r;
      bestScore = score;
    }
  }
  if (!best) {
    if (head.length === 0) throw TraceError.at(path, undefined, 'empty file: nothing to read');
    throw TraceError.at(
      path,
      1,
      `cannot tell the format of this file (known: ${traceReaders.map((x) => x.format).join(', ')}); name it with --input-format`,
    );
  }
  return best;
}

/** The least of an input's first bytes that its format is told from (all of it when shorter). */
const SNIFF_BYTES = 4096;

/** An input opened, its first chunk read and its format told. */
export interface OpenedTrace {
  path: string;
  src: ByteSource;
  reader: TraceReader;
}

/**
 * Opens a trace file (or `-`), reads its first chunk and picks its reader. `whole`: the file's bytes,
 * read already (then nothing more is read).
 */
export function openTrace(path: string, options: ReadOptions = {}, whole?: Uint8Array): OpenedTrace {
  // Read 256 KiB at a time (into a buffer of twice that): each page of the buffer is fresh memory,
  // a page fault on first touch, and the readers need no more than 64 KiB ahead of a record.
  const src = new ByteSource(path, 1 << 18, options.onProgress, whole);
  // A pipe's first read may bring a few bytes only (a writer that writes a byte at a time): the
  // format is told from at least SNIFF_BYTES, or the whole input when shorter.
  while (src.fill() && src.end < SNIFF_BYTES);
  const head = src.buf.subarray(0, Math.min(src.end, 64 * 1024));
  return { path, src, reader: detectReader(path, head, options.format) };
}

/**
 * Reads an opened trace into the columnar model, checking syntax and semantics in one streaming pass
 * (its reader's code must be loaded). Throws a {@link TraceError} listing the problems.
 */
export function readOpenedTrace(opened: OpenedTrace, options: ReadOptions = {}): Trace {
  const { path, src, reader } = opened;
  if (reader.loadTrace) return reader.loadTrace(src, options);
  const builder = new TraceBuilder(path, { ...options, source: src });
  const recorded = reader.read(src, builder, options);
  src.close();
  return builder.finish(reader.format, recorded ?? undefined);
}

/**
 * Reads a trace file of any known format, loading the code of its reader first when that is loaded
 * on demand: what a command that reads one trace calls, so that it loads no importer it does not use.
 */
export async function readTraceFile(path: string, options: ReadOptions = {}): Promise<Trace> {
  // A binary trace that `bin/memsim.js` began reading before the CLI loaded (see pipeline/early.ts).
  const early = path === '-' ? undefined : takeEarlyBytes(resolve(path));
  const opened = openTrace(path, options, (await early) ?? undefined);
  await loadReader(opened.reader);
  return readOpenedTrace(opened, options);
}
