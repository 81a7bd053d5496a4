import { formatCount } from '../../util/bytes.js';
import { IdTable } from '../id-table.js';
import type { RecordedHistory, Trace, TraceStacks } from '../model.js';
import type { ByteSource } from '../source.js';
import { type BinaryHeader, KIND_BYTES, KIND_F64, KIND_I32, KIND_JSON, KIND_NAMES, KIND_U32, KIND_U8, S, type SectionEntry } from './format.js';
import { checkHeader, checkRecorded, checkStringTable } from './header.js';
import { fileError, sectionError, SectionReader } from './sections.js';
import { verifyTrace } from './verify.js';

type Column = Uint8Array | Uint32Array | Int32Array | Float64Array;

function view(bytes: Uint8Array, kind: number): Column {
  const b = bytes.buffer;
  const n = bytes.byteLength / (KIND_BYTES[kind] as number);
  if (kind === KIND_U8) return bytes;
  if (kind === KIND_U32) return new Uint32Array(b, bytes.byteOffset, n);
  if (kind === KIND_I32) return new Int32Array(b, bytes.byteOffset, n);
  return new Float64Array(b, bytes.byteOffset, n);
}

/** The sections of a file by name, read, with what each must be. */
class Sections {
  private readonly byName = new Map<string, SectionEntry>();
  private readonly columns = new Map<string, Column>();
  private readonly texts = new Map<string, unknown>();

  constructor(
    readonly file: string,
    reader: SectionReader,
  ) {
    // Every section is read, in file order; unknown names are skipped (a later minor addition).
    for (const e of reader.entries) {
      this.byName.set(e.name, e);
      if (!KNOWN.has(e.name)) continue;
      if (e.kind === KIND_JSON) this.texts.set(e.name, reader.json(e));
      else this.columns.set(e.name, view(reader.read(e, true), e.kind));
    }
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  text(name: string): unknown {
    if (!this.byName.has(name)) throw fileError(this.file, `the section "${name}" is missing (the file is damaged)`, 'sections');
    const v = this.texts.get(name);
    if (v === undefined) throw sectionError(this.file, name, 'is a column where JSON text was expected');
    return v;
  }

  /** A column of `kinds` (the first is the usual one) and `count` elements (any count when undefined). */
  column(name: string, kinds: readonly number[], count: number | undefined, what: string): Column {
    const e = this.byName.get(name);
    if (!e) throw fileError(this.file, `the section "${name}" is missing (the file is damaged)`, 'sections');
    if (!kinds.includes(e.kind)) throw sectionError(this.file, name, `holds ${KIND_NAMES[e.kind]} elements where ${kinds.map((k) => KIND_NAMES[k]).join(' or ')} were expected`);
    const c = this.columns.get(name) as Column;
    if (count !== undefined && c.length !== count) throw sectionError(this.file, name, `holds ${formatCount(c.length)} elements, expected ${formatCount(count)} (one per ${what})`);
    return c;
  }

  optional(name: string, kinds: readonly number[], count: number, what: string): Column | null {
    return this.has(name) ? this.column(name, kinds, count, what) : null;
  }
}

const KNOWN = new Set<string>(Object.values(S));

function stacksOf(s: Sections, allocations: number): TraceStacks | undefined {
  if (!s.has(S.stackText)) return undefined;
  const text = s.text(S.stackText) as { frames?: unknown; files?: unknown } | null;
  const frames = checkStringTable(s.file, S.stackText, text?.frames, 'frames');
  const files = checkStringTable(s.file, S.stackText, text?.files, 'files');
  return {
    ofAllocation: s.column(S.stackOf, [KIND_U32], allocations, 'allocation') as Uint32Array,
    runStart: s.column(S.stackRunStart, [KIND_U32], undefined, '') as Uint32Array,
    frameRun: s.column(S.stackFrames, [KIND_U32], undefined, '') as Uint32Array,
    frames,
    frameFile: s.column(S.stackFrameFile, [KIND_U32], frames.length, 'frame') as Uint32Array,
    files,
  };
}

function recordedOf(s: Sections, allocations: number, events: number): RecordedHistory | undefined {
  if (!s.has(S.recorded)) return undefined;
  const r = checkRecorded(s.file, s.text(S.recorded), events) as unknown as Omit<RecordedHistory, 'address' | 'allocatedBytes'>;
  return {
    ...r,
    address: s.column(S.recordedAddress, [KIND_F64], allocations, 'allocation') as Float64Array,
    allocatedBytes: s.column(S.recordedAllocated, [KIND_F64], allocations, 'allocation') as Float64Array,
  };
}

/**
 * Loads a binary trace into the columnar model: each column is read once into its own memory and
 * used as it is; then the columns are checked against each other and against the header (see
 * verify.ts), so that no allocator meets an event the text readers would have refused.
 */
export function loadBinaryTrace(src: ByteSource): Trace {
  const file = src.file;
  const s = new Sections(file, new SectionReader(src));
  src.close();
  const h: BinaryHeader = checkHeader(file, s.text(S.header));
  const n = h.events;
  const a = h.allocations;
  const tags = checkStringTable(file, S.tags, s.text(S.tags));
  const idsValues = h.ids === 'numbers' ? (s.column(S.idValue, [KIND_U32], a, 'allocation') as Uint32Array) : null;
  const idOffsets = h.ids === 'bytes' ? (s.column(S.idOffsets, [KIND_U32], a + 1, 'allocation, and one more') as Uint32Array) : new Uint32Array(0);
  const ids = IdTable.reading({
    values: idsValues,
    prefixOf: idsValues && h.idPrefixes ? (s.column(S.idPrefix, [KIND_U8], a, 'allocation') as Uint8Array) : null,
    prefixes: h.idPrefixes ?? [''],
    bytes: h.ids === 'bytes' ? (s.column(S.idBytes, [KIND_U8], a > 0 ? idOffsets[a] : 0, 'byte the id offsets count') as Uint8Array) : new Uint8Array(0),
    offs: idOffsets,
    length: a,
  });
  const trace: Trace = {
    path: file,
    format: 'mst',
    sourceFormat: h.sourceFormat,
    meta: h.meta,
    length: n,
    op: s.column(S.op, [KIND_U8], n, 'event') as Uint8Array,
    alloc: s.column(S.alloc, [KIND_U32], n, 'event') as Uint32Array,
    size: s.column(S.size, [KIND_F64], n, 'event') as Float64Array,
    step: s.column(S.step, [KIND_I32, KIND_F64], n, 'event') as Int32Array | Float64Array,
    stream: s.optional(S.stream, [KIND_F64], n, 'event') as Float64Array | null,
    tag: s.optional(S.tag, [KIND_U32], n, 'event') as Uint32Array | null,
    time: s.optional(S.time, [KIND_F64], n, 'event') as Float64Array | null,
    align: s.optional(S.align, [KIND_U32], n, 'event') as Uint32Array | null,
    line: s.column(S.line, [KIND_U32], n, 'event') as Uint32Array,
    lineBase: 0,
    tags,
    allocCount: a,
    ids,
    allocEvent: s.column(S.allocEvent, [KIND_U32], a, 'allocation') as Uint32Array,
    freeEvent: s.column(S.freeEvent, [KIND_I32], a, 'allocation') as Int32Array,
    summary: h.summary,
    skipped: h.skipped,
    initialEvents: h.initialEvents,
  };
  if (h.entryList !== undefined) trace.entryList = h.entryList;
  const recorded = recordedOf(s, a, n);
  if (recorded) trace.recorded = recorded;
  const stacks = stacksOf(s, a);
  if (stacks) trace.stacks = stacks;
  verifyTrace(trace, h.idPrefixes?.length ?? 1);
  return trace;
}
