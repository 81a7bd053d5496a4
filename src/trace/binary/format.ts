/**
 * The memsim binary trace (`.mst`): the columnar trace model as it is in memory, written so that a
 * reader loads each column with one read and no per-event parsing. See docs/trace-binary.md.
 *
 * Layout, little-endian throughout:
 *
 * ```
 * 0   magic        8 bytes  89 4D 53 54 0D 0A 1A 0A  ("\x89MST\r\n\x1a\n")
 * 8   version      u32      1
 * 12  sections     u32      number of entries in the section table
 * 16  table        sections x 32 bytes: name (8 bytes ASCII, NUL-padded), offset (u64), byteLength (u64),
 *                  kind (u32: 0 JSON text, 1 u8, 2 u32, 3 i32, 4 f64), crc32 (u32, of the section's bytes)
 * ... sections, each starting at a multiple of 64 bytes (zero padding between them)
 * ```
 */

import type { SkippedCounts, TraceSummary } from '../model.js';

/** The first 8 bytes of every binary trace: a non-text byte, the name, and line endings a text transfer would mangle. */
export const MAGIC = Buffer.from([0x89, 0x4d, 0x53, 0x54, 0x0d, 0x0a, 0x1a, 0x0a]);
/** The version this code writes and reads. */
export const VERSION = 1;
/** Bytes before the section table: magic, version, section count. */
export const PREAMBLE_BYTES = 16;
/** Bytes of one entry of the section table. */
export const ENTRY_BYTES = 32;
/** Every section starts at a multiple of this (so that any column can be viewed in place). */
export const SECTION_ALIGN = 64;
/** More sections than this is not a file this version wrote. */
export const MAX_SECTIONS = 64;

/** The element type of a section. */
export const KIND_JSON = 0;
export const KIND_U8 = 1;
export const KIND_U32 = 2;
export const KIND_I32 = 3;
export const KIND_F64 = 4;

export const KIND_NAMES: readonly string[] = ['JSON', 'u8', 'u32', 'i32', 'f64'];
export const KIND_BYTES: readonly number[] = [1, 1, 4, 4, 8];

/** Section names (at most 8 ASCII characters). */
export const S = {
  /** JSON: {@link BinaryHeader}. */
  header: 'header',
  /** JSON: the tag strings (index 0 is ''). */
  tags: 'tags',
  op: 'op',
  alloc: 'alloc',
  size: 'size',
  /** i32, or f64 when a step does not fit 32 bits. */
  step: 'step',
  stream: 'stream',
  tag: 'tag',
  time: 'time',
  align: 'align',
  line: 'line',
  allocEvent: 'allocev',
  freeEvent: 'freeev',
  /** u32 per allocation: the id as a number (ids in number mode). */
  idValue: 'idnum',
  /** u8 per allocation: index of the id's prefix in the header's `idPrefixes`. */
  idPrefix: 'idpfx',
  /** u8: the ids' UTF-8 bytes, one after the other (ids in byte mode). */
  idBytes: 'idbytes',
  /** u32, allocations + 1: where each id starts in `idbytes` (and where the last ends). */
  idOffsets: 'idoffs',
  /** JSON: { frames, files } of the call stacks. */
  stackText: 'stacktxt',
  stackOf: 'stackof',
  stackRunStart: 'stackrun',
  stackFrames: 'stackfrm',
  stackFrameFile: 'stackfil',
  /** JSON: the recorded history without its two columns. */
  recorded: 'recorded',
  recordedAddress: 'recaddr',
  recordedAllocated: 'recalloc',
} as const;

/** What the `header` section holds. */
export interface BinaryHeader {
  /** Always `memsim-trace`, as the JSON formats' header. */
  format: 'memsim-trace';
  /** The format the trace was read from before it was written in binary (`csv`, `pytorch-snapshot`, …). */
  sourceFormat: string;
  meta: Record<string, unknown>;
  events: number;
  allocations: number;
  summary: TraceSummary;
  skipped: SkippedCounts;
  initialEvents: number;
  entryList?: string;
  /** `numbers`: sections idnum (and idpfx); `bytes`: sections idbytes and idoffs. */
  ids: 'numbers' | 'bytes';
  /** Id prefixes in number mode (index 0 is ''). */
  idPrefixes?: string[];
}

/** One entry of the section table. */
export interface SectionEntry {
  name: string;
  offset: number;
  byteLength: number;
  kind: number;
  crc: number;
}

/** The next multiple of {@link SECTION_ALIGN}. */
export function aligned(n: number): number {
  return Math.ceil(n / SECTION_ALIGN) * SECTION_ALIGN;
}

/** True when `head` starts with the {@link MAGIC} bytes. */
export function hasMagic(head: Uint8Array): boolean {
  if (head.length < MAGIC.length) return false;
  for (let i = 0; i < MAGIC.length; i++) if (head[i] !== MAGIC[i]) return false;
  return true;
}
