import { OutputFile } from '../output/index.js';
import { csvMetaLine } from './csv-meta.js';
import { DEFAULT_ALIGN_BYTES, OP_ALLOC, type Trace, type TraceMeta } from './model.js';
import { csvField, EventBytes, type WriteFormat } from './write-bytes.js';

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
  private first = true;
  private readonly hasStream: boolean;
  private readonly hasTime: boolean;
  private readonly hasAlign: boolean;

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
    this.hasStream = columns.stream ?? false;
    this.hasTime = columns.time ?? false;
    this.hasAlign = columns.align ?? false;
    const header = { format: 'memsim-trace', version: 1, meta };
    if (format === 'json') {
      this.out.write(`{"format":"memsim-trace","version":1,"meta":${JSON.stringify(meta)},"events":[\n`);
    } else if (format === 'jsonl') {
      this.out.write(JSON.stringify(header) + '\n');
    } else {
      if (Object.keys(meta).length > 0) this.out.write(csvMetaLine(meta));
      this.out.write(`op,id,size,step,tag${this.hasStream ? ',stream' : ''}${this.hasTime ? ',time' : ''}${this.hasAlign ? ',align' : ''}\n`);
    }
  }

  /** The lines written as bytes (see write-bytes.ts), made when first asked for. */
  private lines: EventBytes | undefined;

  private get bytes(): EventBytes {
    if (!this.lines) {
      this.lines = new EventBytes(this.out, this.format, { stream: this.hasStream, time: this.hasTime, align: this.hasAlign });
      this.lines.first = this.first;
    }
    return this.lines;
  }

  /** Writes the lines gathered as bytes, before text (the two kinds of call may take turns). */
  private sync(): void {
    if (!this.lines) return;
    this.lines.flush();
    this.first = this.lines.first;
    this.lines = undefined;
  }

  /**
   * {@link alloc} with the id as the UTF-8 bytes [s, e) of `id` (a reader's, say) and `time` NaN when
   * there is none: the same line, written without a string.
   */
  allocBytes(id: Uint8Array, s: number, e: number, sizeBytes: number, step: number, tag: string | undefined, stream: number, time: number, alignBytes: number): void {
    this.bytes.line(true, id, s, e, sizeBytes, step, tag, stream, time, alignBytes);
  }

  /** {@link free} as {@link allocBytes} writes an alloc. */
  freeBytes(id: Uint8Array, s: number, e: number, step: number, stream: number, time: number): void {
    this.bytes.line(false, id, s, e, 0, step, undefined, stream, time, DEFAULT_ALIGN_BYTES);
  }

  /** Writes every event of a whole trace, as {@link allocBytes} and {@link freeBytes} do. */
  events(trace: Trace): void {
    const lines = this.bytes;
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

  private jsonEvent(obj: string): void {
    this.sync();
    if (this.format === 'json') {
      this.out.write(this.first ? obj : `,\n${obj}`);
    } else {
      this.out.write(obj + '\n');
    }
    this.first = false;
  }

  alloc(id: string, sizeBytes: number, step: number, tag?: string, stream?: number, time?: number, alignBytes?: number): void {
    if (this.format === 'csv') {
      this.sync();
      let row = `alloc,${csvField(id)},${sizeBytes},${step},${tag === undefined ? '' : csvField(tag)}`;
      if (this.hasStream) row += `,${stream ?? 0}`;
      if (this.hasTime) row += `,${time ?? ''}`;
      if (this.hasAlign) row += `,${alignBytes ?? DEFAULT_ALIGN_BYTES}`;
      this.out.write(row + '\n');
      return;
    }
    let s = `{"op":"alloc","id":${JSON.stringify(id)},"size":${sizeBytes},"step":${step}`;
    if (tag !== undefined) s += `,"tag":${JSON.stringify(tag)}`;
    if (stream !== undefined && stream !== 0) s += `,"stream":${stream}`;
    if (time !== undefined) s += `,"time":${time}`;
    if (alignBytes !== undefined && alignBytes !== DEFAULT_ALIGN_BYTES) s += `,"align":${alignBytes}`;
    this.jsonEvent(s + '}');
  }

  free(id: string, step: number, stream?: number, time?: number): void {
    if (this.format === 'csv') {
      this.sync();
      let row = `free,${csvField(id)},,${step},`;
      if (this.hasStream) row += `,${stream ?? 0}`;
      if (this.hasTime) row += `,${time ?? ''}`;
      if (this.hasAlign) row += ',';
      this.out.write(row + '\n');
      return;
    }
    let s = `{"op":"free","id":${JSON.stringify(id)},"step":${step}`;
    if (stream !== undefined && stream !== 0) s += `,"stream":${stream}`;
    if (time !== undefined) s += `,"time":${time}`;
    this.jsonEvent(s + '}');
  }

  /** Finishes the document and closes the file. */
  end(): void {
    this.sync();
    if (this.format === 'json') this.out.write(this.first ? ']}\n' : '\n]}\n');
    this.out.close();
  }

  /**
   * Writes what is gathered (the lines so far, whole). `endLine`: a JSON document cut here ends its
   * last line (its events end at the next one's comma otherwise).
   */
  flush(endLine = false): void {
    this.sync();
    if (endLine && this.format === 'json' && !this.first) this.out.write('\n');
    this.out.flush();
  }

  /**
   * Takes back the last event written by {@link allocBytes} or {@link freeBytes}, before anything
   * else is written (see EventBytes.dropLast).
   */
  dropLast(): void {
    this.lines?.dropLast();
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
