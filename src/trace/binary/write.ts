import { endianness } from 'node:os';
import { UsageError } from '../../errors.js';
import { OutputFile } from '../../output/index.js';
import { lineColumn, originFormat, type Trace } from '../model.js';
import { crc32 } from './crc32.js';
import {
  aligned,
  type BinaryHeader,
  ENTRY_BYTES,
  KIND_F64,
  KIND_I32,
  KIND_JSON,
  KIND_U32,
  KIND_U8,
  MAGIC,
  PREAMBLE_BYTES,
  S,
  VERSION,
} from './format.js';
import { stringifyExact } from './json-values.js';

/** A section about to be written: its bytes are a view of the trace's memory, not a copy. */
interface Section {
  name: string;
  kind: number;
  bytes: Uint8Array;
}

function bytesOf(a: Uint8Array | Uint32Array | Int32Array | Float64Array, length: number): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, length * a.BYTES_PER_ELEMENT);
}

function json(name: string, value: unknown): Section {
  return { name, kind: KIND_JSON, bytes: Buffer.from(stringifyExact(value), 'utf8') };
}

function column(name: string, a: Uint8Array | Uint32Array | Int32Array | Float64Array, length: number): Section {
  const kind = a instanceof Uint8Array ? KIND_U8 : a instanceof Uint32Array ? KIND_U32 : a instanceof Int32Array ? KIND_I32 : KIND_F64;
  return { name, kind, bytes: bytesOf(a, length) };
}

/** The sections of a trace, in the order they are written. */
export function sectionsOf(trace: Trace): Section[] {
  const n = trace.length;
  const a = trace.allocCount;
  const ids = trace.ids.shareable();
  const header: BinaryHeader = {
    format: 'memsim-trace',
    sourceFormat: originFormat(trace),
    meta: trace.meta,
    events: n,
    allocations: a,
    summary: { ...trace.summary },
    skipped: { ...trace.skipped },
    initialEvents: trace.initialEvents,
    ...(trace.entryList !== undefined ? { entryList: trace.entryList } : {}),
    ids: ids.values ? 'numbers' : 'bytes',
    ...(ids.values && ids.prefixOf ? { idPrefixes: ids.prefixes } : {}),
  };
  const out: Section[] = [json(S.header, header), json(S.tags, trace.tags)];
  out.push(column(S.op, trace.op, n), column(S.alloc, trace.alloc, n), column(S.size, trace.size, n), column(S.step, trace.step, n));
  if (trace.stream) out.push(column(S.stream, trace.stream, n));
  if (trace.tag) out.push(column(S.tag, trace.tag, n));
  if (trace.time) out.push(column(S.time, trace.time, n));
  if (trace.align) out.push(column(S.align, trace.align, n));
  out.push(column(S.line, lineColumn(trace), n), column(S.allocEvent, trace.allocEvent, a), column(S.freeEvent, trace.freeEvent, a));
  if (ids.values) {
    out.push(column(S.idValue, ids.values, a));
    if (ids.prefixOf) out.push(column(S.idPrefix, ids.prefixOf, a));
  } else {
    out.push(column(S.idBytes, ids.bytes, a > 0 ? (ids.offs[a] as number) : 0), column(S.idOffsets, ids.offs, a + 1));
  }
  const st = trace.stacks;
  if (st) {
    out.push(
      json(S.stackText, { frames: st.frames, files: st.files }),
      column(S.stackOf, st.ofAllocation, st.ofAllocation.length),
      column(S.stackRunStart, st.runStart, st.runStart.length),
      // Written as 32-bit numbers whatever their width in memory.
      column(S.stackFrames, st.frameRun instanceof Uint16Array ? Uint32Array.from(st.frameRun) : st.frameRun, st.frameRun.length),
      column(S.stackFrameFile, st.frameFile, st.frameFile.length),
    );
  }
  const rec = trace.recorded;
  if (rec) {
    const { address, allocatedBytes, ...rest } = rec;
    out.push(json(S.recorded, rest), column(S.recordedAddress, address, address.length), column(S.recordedAllocated, allocatedBytes, allocatedBytes.length));
  }
  return out;
}

/**
 * Writes a trace as a memsim binary trace (`.mst`, see format.ts and docs/trace-binary.md) to a file
 * or standard output (`-`). The columns are written from the trace's memory as they are.
 */
export function writeBinaryTrace(trace: Trace, path: string): void {
  if (endianness() !== 'LE') throw new UsageError('memsim writes binary traces on little-endian machines only; use --format csv');
  const sections = sectionsOf(trace);
  const table = Buffer.alloc(aligned(PREAMBLE_BYTES + sections.length * ENTRY_BYTES));
  MAGIC.copy(table, 0);
  table.writeUInt32LE(VERSION, 8);
  table.writeUInt32LE(sections.length, 12);
  let offset = table.length;
  sections.forEach((s, k) => {
    const at = PREAMBLE_BYTES + k * ENTRY_BYTES;
    table.write(s.name, at, 8, 'latin1');
    table.writeBigUInt64LE(BigInt(offset), at + 8);
    table.writeBigUInt64LE(BigInt(s.bytes.length), at + 16);
    table.writeUInt32LE(s.kind, at + 24);
    table.writeUInt32LE(crc32(s.bytes), at + 28);
    offset = aligned(offset + s.bytes.length);
  });
  const out = new OutputFile(path);
  try {
    out.bytes(table);
    const padding = new Uint8Array(64);
    // No padding after the last section: the file ends where its data does.
    sections.forEach((s, k) => {
      out.bytes(s.bytes);
      const pad = aligned(s.bytes.length) - s.bytes.length;
      if (pad > 0 && k < sections.length - 1) out.bytes(padding, pad);
    });
  } catch (e) {
    out.abandon();
    throw e;
  }
  out.close();
}
