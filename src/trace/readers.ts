import { BINARY_READER_INFO, sniffBinary } from './binary/sniff.js';
import type { BuildOptions, TraceBuilder } from './builder.js';
import type { CheckedTrace } from './checker.js';
import type { RecordedHistory, Trace } from './model.js';
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
  /**
   * Formats that hold the columnar trace itself (the binary trace) load it without a builder: the
   * columns as they are, checked against each other. Callers prefer it to `read` when it is there.
   */
  loadTrace?(src: ByteSource, options: ReadOptions): Trace;
  /** With `loadTrace`: checks the input without keeping it (`memsim validate`), in bounded memory. */
  checkTrace?(src: ByteSource, options: ReadOptions): CheckedTrace;
}

function firstNonBlank(head: Buffer): number {
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  return i;
}

/**
 * Whether a file that starts with `{` is JSON Lines rather than one JSON document, from the shape of
 * its first object (scanned, not parsed, so a first line of any length is told apart): a JSON Lines
 * object lies on one line and another object or a `#` comment follows it; a memsim JSON document is
 * spread over lines or holds `events`. When the first object runs past the bytes at hand, its keys
 * decide: a document begins with `format`, `version`, `meta` or `events`; anything else is an event.
 */
function looksLikeJsonl(head: Buffer, start: number): boolean {
  let depth = 0;
  let inString = false;
  let keyStart = -1;
  let sawDocumentKey = false;
  let sawEvents = false;
  let sawOtherKey = false;
  let i = start;
  for (; i < head.length; i++) {
    const c = head[i] as number;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) {
        inString = false;
        if (keyStart >= 0) {
          const key = i - keyStart <= 7 ? head.toString('latin1', keyStart, i) : '';
          if (key === 'events') sawEvents = true;
          if (key === 'events' || key === 'format' || key === 'version' || key === 'meta') sawDocumentKey = true;
          else sawOtherKey = true;
          keyStart = -1;
        }
      }
      continue;
    }
    if (c === 0x22) {
      inString = true;
      // A string right after "{" or "," at depth 1 is a key of the top object.
      let k = i - 1;
      while (k > start && (head[k] === 0x20 || head[k] === 0x09 || head[k] === 0x0d)) k--;
      keyStart = depth === 1 && (head[k] === 0x7b || head[k] === 0x2c) ? i + 1 : -1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) break;
    } else if (c === 0x0a) return false; // an object spread over lines: a JSON document
  }
  if (i >= head.length) return !sawDocumentKey; // the first object runs past what was read
  // What follows the first object: another object or a comment on a later line means JSON Lines.
  let sawNewline = false;
  for (i++; i < head.length; i++) {
    const c = head[i] as number;
    if (c === 0x0a) sawNewline = true;
    else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return sawNewline && (c === 0x7b || c === 0x23);
  }
  // One object alone: a document when it holds the events, or document keys beside others (a
  // document whose events are misnamed, which its reader then says); else one event, or the header
  // line of a trace of none.
  return !sawEvents && !(sawDocumentKey && sawOtherKey);
}

export const jsonReader: TraceReader = {
  format: 'json',
  description: 'memsim JSON: {"format":"memsim-trace","version":1,"meta":{…},"events":[…]} or an array of events',
  extensions: ['.json'],
  sniff(head) {
    const c = head[firstNonBlank(head)];
    if (c === 0x5b) return 2;
    if (c === 0x7b) return looksLikeJsonl(head, firstNonBlank(head)) ? 0 : 2;
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
    return head[i] === 0x7b && looksLikeJsonl(head, i) ? 2 : 0;
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
    // A byte order mark before the first line (an editor's) is not part of it: the reader skips it too.
    const firstLine = head.toString('utf8').replace(/^\uFEFF/, '').split('\n').find((l) => l.trim() !== '' && !l.startsWith('#')) ?? '';
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
  loadTrace?: (src: ByteSource, options: ReadOptions) => Trace;
  checkTrace?: (src: ByteSource, options: ReadOptions) => CheckedTrace;

  constructor(
    info: { format: string; description: string; extensions: readonly string[]; sniff: (head: Buffer) => number; isColumnar?: boolean },
    private readonly loader: () => Promise<TraceReader>,
  ) {
    this.format = info.format;
    this.description = info.description;
    this.extensions = info.extensions;
    this.sniff = info.sniff;
    if (info.isColumnar) {
      this.loadTrace = (src, options) => this.loaded().loadTrace?.(src, options) as Trace;
      this.checkTrace = (src, options) => this.loaded().checkTrace?.(src, options) as CheckedTrace;
    }
  }

  private loaded(): TraceReader {
    if (!this.impl) throw new Error(`the ${this.format} reader is not loaded (await loadReader() first)`);
    return this.impl;
  }

  /** Loads the reading code (once). */
  async load(): Promise<void> {
    this.impl ??= await this.loader();
  }

  read(src: ByteSource, builder: TraceBuilder, options: ReadOptions): RecordedHistory | void {
    return this.loaded().read(src, builder, options);
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

export const binaryTraceLazyReader = new LazyTraceReader(
  { ...BINARY_READER_INFO, sniff: sniffBinary, isColumnar: true },
  async () => (await import('./binary/reader.js')).binaryTraceReader,
);

/** Every registered trace reader; importers add themselves here. */
export const traceReaders: TraceReader[] = [jsonReader, jsonlReader, csvReader, pytorchSnapshotLazyReader, tensorflowLogLazyReader, binaryTraceLazyReader];

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
