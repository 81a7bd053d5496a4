import { OutputFile } from '../output/index.js';
import { csvMetaLine } from './csv-meta.js';
import { DEFAULT_ALIGN_BYTES, OP_ALLOC, type Trace, type TraceMeta } from './model.js';

/** Output formats memsim writes. */
export type WriteFormat = 'json' | 'jsonl' | 'csv';

/** Receives events one at a time (generators, converters). */
export interface EventSink {
  /** `alignBytes`: the alignment asked for (default {@link DEFAULT_ALIGN_BYTES}). */
  alloc(id: string, sizeBytes: number, step: number, tag?: string, stream?: number, time?: number, alignBytes?: number): void;
  free(id: string, step: number, stream?: number, time?: number): void;
}

function csvField(s: string): string {
  return /[",\n\r]/.test(s) || s.startsWith('#') ? `"${s.replace(/"/g, '""')}"` : s;
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

  private jsonEvent(obj: string): void {
    if (this.format === 'json') {
      this.out.write(this.first ? obj : `,\n${obj}`);
    } else {
      this.out.write(obj + '\n');
    }
    this.first = false;
  }

  alloc(id: string, sizeBytes: number, step: number, tag?: string, stream?: number, time?: number, alignBytes?: number): void {
    if (this.format === 'csv') {
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
    if (this.format === 'json') this.out.write(this.first ? ']}\n' : '\n]}\n');
    this.out.close();
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
    writeEvents(trace, w);
  } catch (e) {
    w.abandon();
    throw e;
  }
  w.end();
}

function writeEvents(trace: Trace, w: TraceWriter): void {
  for (let i = 0; i < trace.length; i++) {
    const a = trace.alloc[i] as number;
    const id = trace.ids.get(a);
    const step = trace.step[i] as number;
    const stream = trace.stream ? (trace.stream[i] as number) : undefined;
    const t = trace.time ? (trace.time[i] as number) : NaN;
    const time = Number.isNaN(t) ? undefined : t;
    if (trace.op[i] === OP_ALLOC) {
      const tagIndex = trace.tag ? (trace.tag[i] as number) : 0;
      const align = trace.align ? (trace.align[i] as number) : undefined;
      w.alloc(id, trace.size[i] as number, step, tagIndex > 0 ? trace.tags[tagIndex] : undefined, stream, time, align);
    } else {
      w.free(id, step, stream, time);
    }
  }
}
