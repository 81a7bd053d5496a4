import { closeSync, openSync, readSync } from 'node:fs';
import { TraceError } from '../../errors.js';
import { formatCount } from '../../util/bytes.js';
import { describeSystemError } from '../../util/system-error.js';
import type { CheckedTrace } from '../checker.js';
import type { ByteSource } from '../source.js';
import { crc32 } from './crc32.js';
import { KIND_JSON, S } from './format.js';
import { checkHeader } from './header.js';
import { parseExact } from './json-values.js';
import { loadBinaryTrace } from './load.js';
import { SectionReader, sectionError } from './sections.js';

/** Bytes read at a time by a check: its memory, whatever the size of the file. */
const CHUNK_BYTES = 4 << 20;

/**
 * Checks a binary trace without loading it (`memsim validate`): the preamble and section table, every
 * section's CRC-32 against the table's (each section read in chunks of 4 MiB), and the header. Memory
 * stays at a few MiB at any size. The events themselves were checked when the trace was written from
 * a text trace, and the CRCs say the bytes are those written; loading the trace (any other command)
 * checks its columns against each other as well. Standard input is loaded whole and checked so.
 */
export function checkBinaryTrace(src: ByteSource): CheckedTrace {
  if (src.file === '-') {
    const t = loadBinaryTrace(src);
    return { path: t.path, format: t.format, ...(t.sourceFormat !== undefined ? { sourceFormat: t.sourceFormat } : {}), meta: t.meta, summary: t.summary, skipped: t.skipped, initialEvents: t.initialEvents };
  }
  const reader = new SectionReader(src);
  src.close();
  const file = src.file;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw TraceError.at(file, undefined, `cannot open: ${describeSystemError(e)}`);
  }
  let header: unknown;
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (const e of reader.entries) {
      let crc = 0;
      let text: Buffer[] | null = e.kind === KIND_JSON && e.name === S.header ? [] : null;
      for (let at = 0; at < e.byteLength; ) {
        const want = Math.min(CHUNK_BYTES, e.byteLength - at);
        const got = readSync(fd, chunk, 0, want, e.offset + at);
        if (got === 0) throw sectionError(file, e.name, `truncated: the file ends at byte ${formatCount(e.offset + at)}, inside the section`);
        crc = crc32(chunk.subarray(0, got), crc);
        text?.push(Buffer.from(chunk.subarray(0, got)));
        at += got;
      }
      if (crc !== e.crc) {
        throw sectionError(file, e.name, `damaged: its CRC-32 is ${hex(crc)}, the section table says ${hex(e.crc)} (the bytes changed after the file was written)`);
      }
      if (text) header = parseHeaderText(file, Buffer.concat(text).toString('utf8'));
      text = null;
    }
  } finally {
    closeSync(fd);
  }
  if (header === undefined) throw TraceError.at(file, undefined, `the section "${S.header}" is missing (the file is damaged)`, 'sections');
  const h = checkHeader(file, header);
  // The sections every trace has, as loading it asks for them.
  const names = new Set(reader.entries.map((e) => e.name));
  const ids = h.ids === 'numbers' ? [S.idValue] : [S.idOffsets, S.idBytes];
  for (const name of [S.tags, S.op, S.alloc, S.size, S.step, S.allocEvent, S.freeEvent, ...ids]) {
    if (!names.has(name)) throw TraceError.at(file, undefined, `the section "${name}" is missing (the file is damaged)`, 'sections');
  }
  return { path: file, format: 'mst', sourceFormat: h.sourceFormat, meta: h.meta, summary: h.summary, skipped: h.skipped, initialEvents: h.initialEvents };
}

function hex(n: number): string {
  return n.toString(16).toUpperCase().padStart(8, '0');
}

function parseHeaderText(file: string, text: string): unknown {
  try {
    return parseExact(text);
  } catch (e) {
    throw sectionError(file, S.header, `not valid JSON: ${(e as Error).message}`);
  }
}
