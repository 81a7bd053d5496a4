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

const ACTIONS = new Set(['alloc', 'free', 'map', 'unmap']);
const BLOCK_STATES = new Set(['allocated', 'pending', 'free']);

/**
 * The `recorded` section's value: the shape the simulators of a recorded history read (segments,
 * their blocks, segment events, recorded OOMs), checked entry by entry, so that a damaged section is
 * refused by name rather than met half-way through a replay.
 */
export function checkRecorded(file: string, v: unknown, events: number): Record<string, unknown> {
  const bad = (where: string, what: string): never => {
    throw sectionError(file, S.recorded, `field "${where}": ${what}`);
  };
  const isNum = (x: unknown): boolean => typeof x === 'number' && !Number.isNaN(x);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return bad('allocator', 'the section is not a JSON object');
  const r = v as Record<string, unknown>;
  if (typeof r.allocator !== 'string') bad('allocator', 'expected the name of the recorded allocator');
  const list = (key: string, optional: boolean): Record<string, unknown>[] => {
    const x = r[key];
    if (x === undefined && optional) return [];
    if (!Array.isArray(x)) return bad(key, 'expected an array');
    x.forEach((e, k) => {
      if (e === null || typeof e !== 'object' || Array.isArray(e)) bad(`${key}[${k}]`, 'expected an object');
    });
    return x as Record<string, unknown>[];
  };
  for (const key of ['initialSegments', 'finalSegments', 'otherSegments'] as const) {
    list(key, key !== 'initialSegments').forEach((seg, k) => {
      for (const f of ['address', 'sizeBytes', 'stream']) if (!isNum(seg[f])) bad(`${key}[${k}].${f}`, 'expected a number');
      if (seg.blocks === undefined) return;
      if (!Array.isArray(seg.blocks)) return bad(`${key}[${k}].blocks`, 'expected an array');
      (seg.blocks as unknown[]).forEach((b, j) => {
        const block = b as Record<string, unknown> | null;
        if (!block || !isNum(block.address) || !isNum(block.sizeBytes) || !BLOCK_STATES.has(block.state as string)) {
          bad(`${key}[${k}].blocks[${j}]`, 'expected { address, sizeBytes, state: allocated|pending|free }');
        }
      });
    });
  }
  list('segmentEvents', false).forEach((e, k) => {
    if (!Number.isSafeInteger(e.beforeEvent) || (e.beforeEvent as number) < 0 || (e.beforeEvent as number) > events) bad(`segmentEvents[${k}].beforeEvent`, `expected an event index from 0 to ${events}`);
    if (!ACTIONS.has(e.action as string)) bad(`segmentEvents[${k}].action`, 'expected alloc, free, map or unmap');
    for (const f of ['address', 'sizeBytes', 'stream']) if (!isNum(e[f])) bad(`segmentEvents[${k}].${f}`, 'expected a number');
  });
  list('ooms', true).forEach((o, k) => {
    if (!Number.isSafeInteger(o.beforeEvent) || (o.beforeEvent as number) < 0 || (o.beforeEvent as number) > events) bad(`ooms[${k}].beforeEvent`, `expected an event index from 0 to ${events}`);
    if (!isNum(o.sizeBytes)) bad(`ooms[${k}].sizeBytes`, 'expected a number');
  });
  if (r.notes !== undefined && (!Array.isArray(r.notes) || !r.notes.every((n) => typeof n === 'string'))) bad('notes', 'expected an array of strings');
  return r;
}
