import type { BinaryHeader } from './format.js';
import { S } from './format.js';
import { sectionError } from './table.js';

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** The `header` section's value, checked field by field (a message names the first field at fault). */
export function checkHeader(file: string, v: unknown): BinaryHeader {
  const bad = (field: string, what: string): never => {
    throw sectionError(file, S.header, `field "${field}": ${what}`);
  };
  if (v === null || typeof v !== 'object' || Array.isArray(v)) bad('format', 'the header is not a JSON object');
  const h = v as Record<string, unknown>;
  if (h.format !== 'memsim-trace') bad('format', `expected "memsim-trace", got ${JSON.stringify(h.format)}`);
  if (typeof h.sourceFormat !== 'string') bad('sourceFormat', 'expected a string');
  if (h.meta === null || typeof h.meta !== 'object' || Array.isArray(h.meta)) bad('meta', 'expected an object');
  for (const k of ['events', 'allocations', 'initialEvents'] as const) if (!isCount(h[k])) bad(k, 'expected a count (a non-negative integer)');
  if ((h.initialEvents as number) > (h.events as number)) bad('initialEvents', 'more than the events');
  const summary = h.summary as Record<string, unknown> | null;
  if (summary === null || typeof summary !== 'object') bad('summary', 'expected an object');
  for (const k of ['events', 'allocs', 'frees', 'steps', 'peakLiveBytes', 'finalLiveBytes', 'finalLiveAllocs'] as const) {
    if (!isCount(summary?.[k])) bad(`summary.${k}`, 'expected a count (a non-negative integer)');
  }
  if (!Number.isSafeInteger(summary?.peakLiveEvent) || (summary?.peakLiveEvent as number) < -1) bad('summary.peakLiveEvent', 'expected an event index or -1');
  const skipped = h.skipped as Record<string, unknown> | null;
  if (skipped === null || typeof skipped !== 'object') bad('skipped', 'expected an object');
  for (const k of ['unknownFree', 'doubleAlloc'] as const) if (!isCount(skipped?.[k])) bad(`skipped.${k}`, 'expected a count');
  if (h.entryList !== undefined && typeof h.entryList !== 'string') bad('entryList', 'expected a string');
  if (h.ids !== 'numbers' && h.ids !== 'bytes') bad('ids', `expected "numbers" or "bytes", got ${JSON.stringify(h.ids)}`);
  if (h.idPrefixes !== undefined) {
    const p = h.idPrefixes;
    if (!Array.isArray(p) || p.length < 1 || p.length > 256 || p[0] !== '' || !p.every((x) => typeof x === 'string')) {
      bad('idPrefixes', 'expected 1 to 256 strings, the first one empty');
    }
  }
  return h as unknown as BinaryHeader;
}

/** A string table (tags, frames, files): an array of strings whose first is ''. */
export function checkStringTable(file: string, section: string, v: unknown, field?: string): string[] {
  const where = field ? `field "${field}": ` : '';
  if (!Array.isArray(v) || v.length < 1 || v[0] !== '') throw sectionError(file, section, `${where}expected an array of strings whose first is ""`);
  for (let k = 1; k < v.length; k++) {
    if (typeof v[k] !== 'string') throw sectionError(file, section, `${where}entry ${k} is not a string`);
  }
  return v as string[];
}
