/**
 * `memsim convert` of a CSV or JSON Lines trace into memsim's text formats without holding the
 * trace: the checks of reading it ({@link TraceChecker}, in memory that follows the allocations alive
 * at once, not the file's length) hand each event they accept to a {@link TraceWriter} as it comes.
 * The text written is the one {@link writeTrace} writes for the whole trace, byte for byte; an input
 * that turns out bad writes nothing more from its first problem on, and ends with the problems as
 * reading it would.
 */
import { fstatSync, statSync } from 'node:fs';
import { TraceError } from '../errors.js';
import { OutputFile } from '../output/index.js';
import { type BuildOptions } from './builder.js';
import { TraceChecker } from './checker.js';
import { CsvScanner } from './csv.js';
import { NOT_DECIMAL } from './id-table.js';
import { DEFAULT_ALIGN_BYTES, type TraceMeta } from './model.js';
import type { OpenedTrace } from './open.js';
import { readCsvHeader } from './read-csv.js';
import type { ReadOptions } from './readers.js';
import { ByteSource } from './source.js';
import { TraceWriter, type WriteFormat } from './write.js';

/** Formats whose events come from the start of the file, after their meta. */
const STREAMED_INPUTS: readonly string[] = ['csv', 'jsonl'];

/**
 * Files smaller than this are read whole before they are written (faster: the builder's paths for
 * the usual records are quicker than the checks'; a 64 MiB CSV holds some 3 million events, some
 * 100 MB as a trace). A pipe or standard input, whose size is not known, is converted as read.
 */
export const CONVERT_AS_READ_MIN_BYTES = 64 * 2 ** 20;

/**
 * Whether `opened` converts to `format` (into `output`, not the input itself) as it is read: a CSV or
 * JSON Lines input of at least `minBytes` (or of a size not known), to JSON or JSON Lines, or to CSV from a CSV whose header row
 * has no `stream`, `time` or `align` column (a CSV written has those columns when any event has
 * them, which is known only at the end otherwise).
 */
export function convertsAsRead(opened: OpenedTrace, format: WriteFormat, output = '-', minBytes = CONVERT_AS_READ_MIN_BYTES): boolean {
  const input = opened.reader.format;
  if (!STREAMED_INPUTS.includes(input) || isInput(opened.path, output)) return false;
  const size = opened.src.totalBytes;
  if (size > 0 && size < minBytes) return false;
  if (format !== 'csv') return true;
  return input === 'csv' && headerHasNoneOf(opened, ['stream', 'time', 'align']);
}

/**
 * Whether `output` is the input file itself (`memsim convert big.csv big.csv`, or a link to it): that
 * one is read whole before it is written, as written as read it would be truncated while being read.
 */
function isInput(input: string, output: string): boolean {
  if (output === '-') return false;
  try {
    const a = input === '-' ? fstatSync(0) : statSync(input);
    const b = statSync(output);
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}

/** Reads the CSV header in the bytes read so far, as the reader will; false when it is not all there or has problems. */
function headerHasNoneOf(opened: OpenedTrace, fields: readonly ('stream' | 'time' | 'align')[]): boolean {
  const { src } = opened;
  const head = new ByteSource(opened.path, 1 << 16, undefined, src.buf.subarray(0, src.end));
  const sc = new CsvScanner(head);
  const header = readCsvHeader(sc, new TraceChecker(opened.path));
  // A header row cut at the end of the bytes held could name more columns.
  if (!header || (!src.eof && sc.pos >= src.end)) return false;
  return fields.every((f) => header.col[f] < 0);
}

/**
 * Where the output goes when converted as read: standard output; a file written beside its place and
 * renamed onto it at the end, so that a bad input leaves it as it was (and a file being read, named
 * again through a link, is not cut); a device or a pipe, written as it is. Undefined for a file that
 * cannot be so replaced (other hard links, a directory that takes no new file): that one is written
 * once the input is read whole.
 */
function outputAsRead(output: string): OutputFile | undefined {
  if (output === '-') return new OutputFile('-');
  const staged = OutputFile.staged(output);
  if (staged) return staged;
  let st;
  try {
    st = statSync(output);
  } catch {
    return undefined;
  }
  return st.isFile() || st.isDirectory() ? undefined : new OutputFile(output);
}

/**
 * Converts `opened` to `output` (`-`: standard output) in `format` as it is read (see
 * {@link convertsAsRead}) and returns true; returns false, having read and written nothing, where the
 * output is a file that must be written whole (see {@link outputAsRead}). A file output is left as it
 * was when the input is bad; standard output gets the events up to the first problem. Throws the
 * input's problems as reading it would.
 */
export function convertAsRead(opened: OpenedTrace, output: string, format: WriteFormat, options: ReadOptions = {}): boolean {
  const { path, src, reader } = opened;
  const out = outputAsRead(output);
  if (!out) return false;
  // No stream, time or align column in CSV (see convertsAsRead); JSON writes them per event.
  const converter = new ConvertingChecker(path, { ...options, source: src }, (meta) => new TraceWriter(out, format, meta));
  try {
    reader.read(src, converter, options);
    src.close();
    converter.finishCheck(reader.format);
    converter.end();
  } catch (e) {
    // Standard output gets the events before the input's first problem, whole lines (as `cat` gives
    // what it read); a file is left as it was.
    if (e instanceof TraceError && output === '-') converter.flushQuietly(e);
    out.abandon();
    throw e;
  }
  return true;
}

/**
 * A {@link TraceChecker} that writes every event it accepts, with the id, tag, step and stream that
 * the whole trace would hold for it: a step left out is the previous event's, a free without a
 * stream is on its alloc's. Nothing is written once the input has a problem.
 */
class ConvertingChecker extends TraceChecker {
  private writer: TraceWriter | undefined;
  /** The tag of the alloc being read (set by internTag, used by the addAllocId that follows). */
  private tagText: string | undefined;
  private lastStep = 0;
  /** The line of the last event written. */
  private lastLine = 0;
  /** The stream of each live allocation on one other than 0, by id. */
  private readonly streamOf = new Map<string, number>();

  constructor(
    file: string,
    options: BuildOptions,
    private readonly open: (meta: TraceMeta) => TraceWriter,
  ) {
    super(file, options);
  }

  /** The writer, made at the first event (the meta, which comes first, is known then); none once there is a problem. */
  private get out(): TraceWriter | undefined {
    if (!this.problems.isEmpty) return undefined;
    this.writer ??= this.open(this.meta);
    return this.writer;
  }

  override internTag(buf: Uint8Array, s: number, e: number, line: number): number {
    super.internTag(buf, s, e, line);
    if (s === e) return 0;
    this.tagText = utf8Text(buf, s, e);
    return 1;
  }

  override internTagString(tag?: string): number {
    if (tag === undefined || tag === '') return 0;
    // As the builder keeps a tag: its UTF-8 bytes, read back (a lone surrogate becomes U+FFFD).
    this.tagText = Buffer.from(tag, 'utf8').toString('utf8');
    return 1;
  }

  override addAllocId(
    buf: Uint8Array,
    s: number,
    e: number,
    value: number,
    sizeBytes: number,
    step: number,
    stream: number,
    tag: number,
    time: number,
    line: number,
    alignBytes: number = DEFAULT_ALIGN_BYTES,
  ): number {
    const a = super.addAllocId(buf, s, e, value, sizeBytes, step, stream, tag, time, line);
    if (a < 0) return a;
    if (step === step) this.lastStep = step;
    if (stream !== 0) this.streamOf.set(idText(buf, s, e, value), stream);
    const out = this.out;
    if (out) {
      out.allocBytes(buf, s, e, sizeBytes, this.lastStep, tag > 0 ? this.tagText : undefined, stream, time, alignBytes);
      this.lastLine = line;
    }
    return a;
  }

  override addFreeId(buf: Uint8Array, s: number, e: number, value: number, step: number, stream: number, time: number, line: number, givenSize = NaN): number {
    const freed = super.addFreeId(buf, s, e, value, step, stream, time, line, givenSize);
    if (freed < 0) return freed;
    if (step === step) this.lastStep = step;
    let own: number | undefined;
    if (this.streamOf.size > 0) {
      const id = idText(buf, s, e, value);
      own = this.streamOf.get(id);
      if (own !== undefined) this.streamOf.delete(id);
    }
    const out = this.out;
    if (out) {
      out.freeBytes(buf, s, e, this.lastStep, stream >= 0 ? stream : (own ?? 0), time);
      this.lastLine = line;
    }
    return freed;
  }

  /**
   * Writes the lines before the input's first problem, the last one ended (JSON's events end at the
   * next one's comma): an event written before a problem was found on its own line (junk after a JSON
   * Lines object) is taken back. A failure to write them is left unsaid (the input's problems are the
   * error).
   */
  flushQuietly(error: TraceError): void {
    const first = error.problems[0];
    if (this.writer && first !== undefined && first.line === this.lastLine) this.writer.dropLast();
    try {
      this.writer?.flush(true);
    } catch {
      // the reader went away, or the disk is full: nothing more to say than the input's problems
    }
  }

  /** Finishes the output (a trace of no events gets its header and meta). */
  end(): void {
    (this.out as TraceWriter).end();
  }
}

/** Bytes [s, e) of `buf` as text (read as the builder reads ids and tags: UTF-8). */
function utf8Text(buf: Uint8Array, s: number, e: number): string {
  return buf instanceof Buffer ? buf.toString('utf8', s, e) : Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('utf8');
}

/** An id as the trace holds it: a plain decimal one (`value`, see decimalId) as its number's text, which is its bytes. */
function idText(buf: Uint8Array, s: number, e: number, value: number): string {
  return value !== NOT_DECIMAL ? String(value) : utf8Text(buf, s, e);
}
