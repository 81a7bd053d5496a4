import { TraceError } from '../../errors.js';
import { formatCount } from '../../util/bytes.js';
import {
  aligned,
  ENTRY_BYTES,
  hasMagic,
  KIND_BYTES,
  KIND_NAMES,
  MAGIC,
  MAX_SECTIONS,
  PREAMBLE_BYTES,
  SECTION_ALIGN,
  type SectionEntry,
  VERSION,
} from './format.js';

/** A problem of the file as a whole, or of its preamble: `file: field "version": message`. */
export function fileError(file: string, message: string, field?: string): TraceError {
  return new TraceError([{ file, message, ...(field !== undefined ? { field } : {}) }]);
}

/** A problem of one section: `file: section "size": message`. */
export function sectionError(file: string, name: string, message: string): TraceError {
  return new TraceError([{ file, entry: `section "${name}"`, message }]);
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
}

/** Bytes the preamble and section table take, from the section count in the preamble. */
export function tableBytes(sections: number): number {
  return aligned(PREAMBLE_BYTES + sections * ENTRY_BYTES);
}

/**
 * Reads the preamble (magic, version, section count) from the first bytes of a file; `fileBytes` is
 * the file's length (0 when unknown: standard input). Returns the section count.
 */
export function readPreamble(file: string, head: Uint8Array, fileBytes: number): number {
  if (head.length < MAGIC.length || !hasMagic(head)) {
    if (head.length === 0) throw fileError(file, 'empty file: nothing to read');
    throw fileError(file, `not a memsim binary trace: it starts with ${hex(head.subarray(0, 8))}, not the magic bytes ${hex(MAGIC)}`, 'magic');
  }
  if (head.length < PREAMBLE_BYTES) {
    throw fileError(file, `truncated: the file ends at byte ${head.length}, inside the ${PREAMBLE_BYTES}-byte preamble (magic, version, section count)`, 'version');
  }
  const view = Buffer.from(head.buffer, head.byteOffset, head.length);
  const version = view.readUInt32LE(8);
  if (version !== VERSION) {
    throw fileError(
      file,
      version > VERSION
        ? `version ${version}: this memsim reads version ${VERSION} (the file was written by a newer memsim: update memsim, or convert the trace again from its source with this one)`
        : `version ${version}: not a version memsim writes (this memsim reads version ${VERSION})`,
      'version',
    );
  }
  const count = view.readUInt32LE(12);
  if (count < 1 || count > MAX_SECTIONS) throw fileError(file, `${count} sections: a binary trace has 1 to ${MAX_SECTIONS} (the file is damaged)`, 'sections');
  const need = PREAMBLE_BYTES + count * ENTRY_BYTES;
  if (head.length < need) {
    throw fileError(file, `truncated: the file ends at byte ${formatCount(head.length)}, inside the section table of ${count} entries (${formatCount(need)} bytes)`, 'sections');
  }
  if (fileBytes > 0 && fileBytes < need) throw fileError(file, `truncated: the section table needs ${formatCount(need)} bytes, the file has ${formatCount(fileBytes)}`, 'sections');
  return count;
}

/**
 * Reads and checks the section table: names, kinds, element-sized lengths, offsets aligned, in order,
 * after the table, not overlapping and, when the file's length is known, within it.
 */
export function readSectionTable(file: string, head: Uint8Array, count: number, fileBytes: number): SectionEntry[] {
  const view = Buffer.from(head.buffer, head.byteOffset, head.length);
  const entries: SectionEntry[] = [];
  let end = tableBytes(count);
  for (let k = 0; k < count; k++) {
    const at = PREAMBLE_BYTES + k * ENTRY_BYTES;
    const raw = view.subarray(at, at + 8);
    const nul = raw.indexOf(0);
    const name = raw.toString('latin1', 0, nul < 0 ? 8 : nul);
    const where = `section table entry ${k + 1}`;
    if (!/^[a-z0-9]{1,8}$/.test(name)) throw fileError(file, `${where}: the name ${JSON.stringify(name)} is not a section name (the file is damaged)`, 'sections');
    if (entries.some((e) => e.name === name)) throw sectionError(file, name, `appears twice in the section table (the file is damaged)`);
    const offset = Number(view.readBigUInt64LE(at + 8));
    const byteLength = Number(view.readBigUInt64LE(at + 16));
    const kind = view.readUInt32LE(at + 24);
    const crc = view.readUInt32LE(at + 28);
    if (kind >= KIND_NAMES.length) throw sectionError(file, name, `element kind ${kind} is not one of 0 to ${KIND_NAMES.length - 1} (${KIND_NAMES.join(', ')})`);
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(byteLength) || offset % SECTION_ALIGN !== 0 || offset < end) {
      throw sectionError(file, name, `offset ${offset} is not a multiple of ${SECTION_ALIGN} at or after byte ${end}, where the previous section ends (the file is damaged)`);
    }
    if (byteLength % (KIND_BYTES[kind] as number) !== 0) {
      throw sectionError(file, name, `${formatCount(byteLength)} bytes is not a whole number of ${KIND_NAMES[kind]} elements`);
    }
    if (fileBytes > 0 && offset + byteLength > fileBytes) {
      throw sectionError(file, name, `truncated: the section ends at byte ${formatCount(offset + byteLength)}, the file at byte ${formatCount(fileBytes)} (an incomplete copy?)`);
    }
    entries.push({ name, offset, byteLength, kind, crc });
    end = offset + byteLength;
  }
  // The file ends where its last section does (a known size: standard input's is not).
  if (fileBytes > end) {
    throw fileError(file, `${formatCount(fileBytes - end)} bytes after the last section, which ends at byte ${formatCount(end)} (the file is damaged, or two files were joined)`, 'sections');
  }
  return entries;
}
