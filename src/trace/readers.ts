import type { BuildOptions, TraceBuilder } from './builder.js';
import type { RecordedHistory } from './model.js';
import { readCsv } from './read-csv.js';
import { readJson } from './read-json.js';
import { readJsonl } from './read-jsonl.js';
import { sniffSnapshot, SNAPSHOT_EXTENSIONS, SNAPSHOT_READER_INFO } from './pytorch/sniff.js';
import { sniffTfLog, TFLOG_READER_INFO } from './tflog/sniff.js';
import type { ByteSource } from './source.js';

/** Options for reading a trace; importers read the ones that concern them. */
export interface ReadOptions extends BuildOptions {
  /** Force a format instead of detecting it. */
  format?: string;
  /** Device to import, for multi-device sources (PyTorch snapshots). */
  device?: number;
  /** Allocator to import, for sources that log several (TensorFlow logs). */
  allocatorName?: string;
  /** Called as the file is read (bytes so far, file size or 0 when unknown). */
  onProgress?: (readBytes: number, totalBytes: number) => void;
}

/** A trace format: how to recognise it and how to read it into a builder. */
export interface TraceReader {
  /** The name used by `--format` and reported in `trace.format`. */
  format: string;
  description: string;
  /** File name endings that suggest this format (lowercase, with the dot). */
  extensions: readonly string[];
  /**
   * How sure the reader is that a file starting with `head` is in its format: 0 not at all, 1 the
   * extension alone would be enough, 2 the content's syntax says so, 3 the content carries this
   * format's own signature (a magic number, or keys only this format has), which beats a generic
   * syntax match (a PyTorch snapshot saved as JSON is also JSON).
   */
  sniff(head: Buffer): number;
  /** Reads the whole input; may return what a real allocator recorded alongside the events. */
  read(src: ByteSource, builder: TraceBuilder, options: ReadOptions): RecordedHistory | void;
}

function firstNonBlank(head: Buffer): number {
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  return i;
}

/** A JSON Lines file: its first object ends on its first line and another object follows. */
function looksLikeJsonl(head: Buffer): boolean {
  const text = head.toString('utf8');
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  if (lines.length < 2 && !(lines.length === 1 && text.trimEnd().length < head.length)) return false;
  const first = lines[0] ?? '';
  if (!first.startsWith('{') || !first.endsWith('}')) return false;
  try {
    JSON.parse(first);
  } catch {
    return false;
  }
  return lines.length < 2 || (lines[1] ?? '').startsWith('{');
}

export const jsonReader: TraceReader = {
  format: 'json',
  description: 'memsim JSON: {"format":"memsim-trace","version":1,"meta":{…},"events":[…]} or an array of events',
  extensions: ['.json'],
  sniff(head) {
    const c = head[firstNonBlank(head)];
    if (c === 0x5b) return 2;
    if (c === 0x7b) return looksLikeJsonl(head) ? 0 : 2;
    return 0;
  },
  read(src, b) {
    readJson(src, b);
  },
};

export const jsonlReader: TraceReader = {
  format: 'jsonl',
  description: 'JSON Lines: one event object per line, optional header line',
  extensions: ['.jsonl', '.ndjson'],
  sniff(head) {
    const i = firstNonBlank(head);
    if (head[i] === 0x23) return 1;
    return head[i] === 0x7b && looksLikeJsonl(head) ? 2 : 0;
  },
  read(src, b) {
    readJsonl(src, b);
  },
};

export const csvReader: TraceReader = {
  format: 'csv',
  description: 'CSV with a header row: op,id,size[,step,stream,tag,time]',
  extensions: ['.csv'],
  sniff(head) {
    const firstLine = head.toString('utf8').split('\n').find((l) => l.trim() !== '' && !l.startsWith('#')) ?? '';
    const cols = firstLine.toLowerCase().split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
    return cols.includes('op') && cols.includes('id') && cols.includes('size') ? 2 : 0;
  },
  read(src, b) {
    readCsv(src, b);
  },
};

/**
 * An importer known by its name and signature, whose reading code loads on first use: every input is
 * sniffed by every reader, but only the one that reads it needs its code. {@link loadReader} loads it
 * (the library's `readTrace` has them all loaded).
 */
export class LazyTraceReader implements TraceReader {
  readonly format: string;
  readonly description: string;
  readonly extensions: readonly string[];
  readonly sniff: (head: Buffer) => number;
  private impl: TraceReader | undefined;

  constructor(
    info: { format: string; description: string; extensions: readonly string[]; sniff: (head: Buffer) => number },
    private readonly loader: () => Promise<TraceReader>,
  ) {
    this.format = info.format;
    this.description = info.description;
    this.extensions = info.extensions;
    this.sniff = info.sniff;
  }

  /** Loads the reading code (once). */
  async load(): Promise<void> {
    this.impl ??= await this.loader();
  }

  read(src: ByteSource, builder: TraceBuilder, options: ReadOptions): RecordedHistory | void {
    if (!this.impl) throw new Error(`the ${this.format} reader is not loaded (await loadReader() first)`);
    return this.impl.read(src, builder, options);
  }
}

export const pytorchSnapshotLazyReader = new LazyTraceReader(
  { ...SNAPSHOT_READER_INFO, extensions: SNAPSHOT_EXTENSIONS, sniff: sniffSnapshot },
  async () => (await import('./pytorch/reader.js')).pytorchSnapshotReader,
);

export const tensorflowLogLazyReader = new LazyTraceReader(
  { ...TFLOG_READER_INFO, sniff: sniffTfLog },
  async () => (await import('./tflog/reader.js')).tensorflowLogReader,
);

/** Every registered trace reader; importers add themselves here. */
export const traceReaders: TraceReader[] = [jsonReader, jsonlReader, csvReader, pytorchSnapshotLazyReader, tensorflowLogLazyReader];

/** Loads a reader's code when it is loaded on demand (see {@link LazyTraceReader}). */
export async function loadReader(reader: TraceReader): Promise<void> {
  if (reader instanceof LazyTraceReader) await reader.load();
}

/** Loads the code of every reader. */
export async function loadAllReaders(): Promise<void> {
  await Promise.all(traceReaders.map(loadReader));
}

/** Adds a reader (importers call this once at load). */
export function registerReader(reader: TraceReader): void {
  if (traceReaders.some((r) => r.format === reader.format)) return;
  traceReaders.push(reader);
}
