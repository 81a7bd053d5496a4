import { OutputFile } from '../output/index.js';
import { csvMetaLine } from './csv-meta.js';
import { DEFAULT_ALIGN_BYTES, OP_ALLOC, type Trace, type TraceMeta } from './model.js';
import { EventBytes, type WriteFormat } from './write-bytes.js';

export type { WriteFormat } from './write-bytes.js';

/** Receives events one at a time (generators, converters). */
export interface EventSink {
  /** `alignBytes`: the alignment asked for (default {@link DEFAULT_ALIGN_BYTES}). */
  alloc(id: string, sizeBytes: number, step: number, tag?: string, stream?: number, time?: number, alignBytes?: number): void;
  free(id: string, step: number, stream?: number, time?: number): void;
}

/**
 * Writes a trace in memsim's own formats, one event per line (also in JSON, so that error lines
 * point at events), streaming to a file or standard output.
 */
export class TraceWriter implements EventSink {
  private readonly out: OutputFile;
  /** The event lines, written as bytes (see write-bytes.ts). */
  private readonly lines: EventBytes;
  /** An id given as text, as UTF-8 bytes. */
  private idBytes = Buffer.alloc(256);

  /**
   * @param path file to write, or `-` for standard output (or an output already open)
   * @param columns optional columns to include in CSV (stream, time, align)
   */
  constructor(
    path: string | OutputFile,
    readonly format: WriteFormat,
    meta: TraceMeta,
    columns: { stream?: boolean; time?: boolean; align?: boolean } = {},
  ) {
    this.out = typeof path === 'string' ? new OutputFile(path) : path;
    const cols = { stream: columns.stream ?? false, time: columns.time ?? false, align: columns.align ?? false };
    const header = { format: 'memsim-trace', version: 1, meta };
    if (format === 'json') {
      this.out.write(`{"format":"memsim-trace","version":1,"meta":${JSON.stringify(meta)},"events":[\n`);
    } else if (format === 'jsonl') {
      this.out.write(JSON.stringify(header) + '\n');
    } else {
      if (Object.keys(meta).length > 0) this.out.write(csvMetaLine(meta));
      this.out.write(`op,id,size,step,tag${cols.stream ? ',stream' : ''}${cols.time ? ',time' : ''}${cols.align ? ',align' : ''}\n`);
    }
    this.lines = new EventBytes(this.out, format, cols);
  }

  /**
   * An alloc whose id is the UTF-8 bytes [s, e) of `id` (a reader's, say), `time` NaN when it has
   * none: written without a string.
   */
  allocBytes(id: Uint8Array, s: number, e: number, sizeBytes: number, step: number, tag: string | undefined, stream: number, time: number, alignBytes: number): void {
    this.lines.line(true, id, s, e, sizeBytes, step, tag, stream, time, alignBytes);
  }

  /** A free, as {@link allocBytes} writes an alloc. */
  freeBytes(id: Uint8Array, s: number, e: number, step: number, stream: number, time: number): void {
    this.lines.line(false, id, s, e, 0, step, undefined, stream, time, DEFAULT_ALIGN_BYTES);
  }

  /** Writes every event of a whole trace, as {@link allocBytes} and {@link freeBytes} do. */
  events(trace: Trace): void {
    const lines = this.lines;
    const { ids, op, alloc, size, step, stream, tag, time, align, tags } = trace;
    let id = new Uint8Array(64);
    for (let i = 0; i < trace.length; i++) {
      const a = alloc[i] as number;
      const need = ids.bytesOf(a);
      if (need > id.length) id = new Uint8Array(need * 2);
      const e = ids.writeId(a, id, 0);
      const isAlloc = op[i] === OP_ALLOC;
      const tagIndex = isAlloc && tag ? (tag[i] as number) : 0;
      lines.line(
        isAlloc,
        id,
        0,
        e,
        size[i] as number,
        step[i] as number,
        tagIndex > 0 ? tags[tagIndex] : undefined,
        stream ? (stream[i] as number) : 0,
        time ? (time[i] as number) : NaN,
        isAlloc && align ? (align[i] as number) : DEFAULT_ALIGN_BYTES,
      );
    }
  }

  /** The UTF-8 bytes of `id` in {@link idBytes}; returns their end (a lone surrogate is written as U+FFFD, as it is read back). */
  private encodeId(id: string): number {
    let buf = this.idBytes;
    const n = id.length;
    if (n * 3 > buf.length) buf = this.idBytes = Buffer.alloc(n * 3);
    for (let k = 0; k < n; k++) {
      const c = id.charCodeAt(k);
      if (c >= 0x80) return buf.write(id, 0, 'utf8');
      buf[k] = c;
    }
    return n;
  }

  alloc(id: string, sizeBytes: number, step: number, tag?: string, stream?: number, time?: number, alignBytes?: number): void {
    const e = this.encodeId(id);
    this.lines.line(true, this.idBytes, 0, e, sizeBytes, step, tag, stream ?? 0, time ?? NaN, alignBytes ?? DEFAULT_ALIGN_BYTES);
  }

  free(id: string, step: number, stream?: number, time?: number): void {
    const e = this.encodeId(id);
    this.lines.line(false, this.idBytes, 0, e, 0, step, undefined, stream ?? 0, time ?? NaN, DEFAULT_ALIGN_BYTES);
  }

  /** Finishes the document and closes the file. */
  end(): void {
    this.lines.flush();
    if (this.format === 'json') this.out.write(this.lines.first ? ']}\n' : '\n]}\n');
    this.out.close();
  }

  /**
   * Writes what is gathered (the lines so far, whole). `endLine`: a JSON document cut here ends its
   * last line (its events end at the next one's comma otherwise).
   */
  flush(endLine = false): void {
    this.lines.flush();
    if (endLine && this.format === 'json' && !this.lines.first) this.out.write('\n');
    this.out.flush();
  }

  /**
   * Takes back the last event written, before anything else is written (see EventBytes.dropLast).
   */
  dropLast(): void {
    this.lines.dropLast();
  }

  /** Gives the output up without finishing it (the input turned out bad half-way). */
  abandon(): void {
    this.out.abandon();
  }
}

/** Writes a whole in-memory trace (for `memsim convert`). */
export function writeTrace(trace: Trace, path: string, format: WriteFormat): void {
  // A file is written beside its place and put there when whole (see OutputFile's `replace`).
  const w = new TraceWriter(new OutputFile(path, { replace: true }), format, trace.meta, { stream: trace.stream !== null, time: trace.time !== null, align: trace.align !== null });
  try {
    w.events(trace);
  } catch (e) {
    w.abandon();
    throw e;
  }
  w.end();
}
