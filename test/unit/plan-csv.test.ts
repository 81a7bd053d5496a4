/**
 * `plan --format csv` text, written byte by byte, against the plain definition: one template line
 * per record, numbers as String writes them, ids quoted when they hold a quote, comma or line break.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idList, type UsageRecords } from '../../src/planners/index.js';
import type { RecordIds } from '../../src/planners/types.js';
import { renderPlanCsv } from '../../src/report/plan-csv.js';

const quoted = (s: string): string => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** The plain definition of the CSV. */
function plainCsv(r: UsageRecords, offsets: readonly number[]): string {
  let text = '';
  if (r.source.format === 'records-csv' || r.source.format === 'records') {
    text += r.ids ? 'id,size,first,last,offset\n' : 'size,first,last,offset\n';
    for (let i = 0; i < r.count; i++) {
      text += `${r.ids ? `${quoted(r.ids.get(i))},` : ''}${r.size[i]},${r.first[i]},${r.last[i]},${offsets[i]}\n`;
    }
  } else {
    text += 'id,lower,upper,size,offset\n';
    for (let i = 0; i < r.count; i++) {
      text += `${r.ids ? quoted(r.ids.get(i)) : String(i)},${r.first[i]},${(r.last[i] as number) + 1},${r.size[i]},${offsets[i]}\n`;
    }
  }
  return text;
}

/** Integers of every length up to 2^53, the powers of ten and multiples of 10^8 around them, and a few that are not integers. */
const numberArb = fc.oneof(
  fc.integer({ min: 0, max: 20 }),
  fc.integer({ min: 0, max: 2 ** 31 }),
  fc.maxSafeNat(),
  fc.integer({ min: 0, max: 15 }).map((k) => 10 ** k),
  fc.integer({ min: 1, max: 15 }).map((k) => 10 ** k - 1),
  // Around multiples of 10^8 above 2^31, where the last eight digits are written apart.
  fc.tuple(fc.integer({ min: 21, max: 90_071_991 }), fc.integer({ min: -2, max: 2 })).map(([k, d]) => k * 1e8 + d),
  fc.constantFrom(1e9, 1e9 - 1, 1e9 + 1, 9e15 - 1, 8999999999999999, 2 ** 53 - 1, 2 ** 53, 2 ** 60, -1, -123456789012, 0.5, 1e21, 1.5e-7, -0.0000012345678901234567),
);

/** Ids that write their UTF-8 bytes into the CSV's buffer themselves. */
function writingIds(ids: readonly string[]): RecordIds {
  const bytes = ids.map((id) => new TextEncoder().encode(id));
  return {
    get: (i) => ids[i] as string,
    bytesOf: (i) => (bytes[i] as Uint8Array).length,
    writeId: (i, out, pos) => {
      out.set(bytes[i] as Uint8Array, pos);
      return pos + (bytes[i] as Uint8Array).length;
    },
  };
}

/** Ids that are plain decimal numbers, which say so (as a trace's IdTable does while all its ids are). */
function numberIds(values: readonly number[]): RecordIds {
  const column = Uint32Array.from(values);
  return { get: (i) => String(column[i]), plainNumbers: () => column };
}

/** Ids plain, with CSV's special characters, and beyond ASCII. */
const idArb = fc.oneof(
  fc.stringMatching(/^[a-z0-9_.:/-]{0,12}$/),
  fc.string({ maxLength: 8 }),
  fc.constantFrom('a,b', 'say "hi"', 'two\nlines', 'cr\r', 'größe', '张量', '😀', ''),
);

const recordsArb = fc
  .record({
    rows: fc.array(fc.record({ size: numberArb, first: numberArb, last: numberArb, offset: numberArb, id: idArb, num: fc.nat({ max: 2 ** 31 - 1 }) }), { maxLength: 40 }),
    withIds: fc.boolean(),
    // Ids that write their own bytes (as a trace's IdTable does), that are numbers, or strings only.
    idKind: fc.constantFrom('writes', 'numbers', 'strings'),
    format: fc.constantFrom('records', 'records-csv', 'minimalloc-csv', 'trace:csv'),
  })
  .map(({ rows, withIds, idKind, format }) => {
    const r: UsageRecords = {
      count: rows.length,
      size: Float64Array.from(rows, (x) => x.size),
      first: Float64Array.from(rows, (x) => x.first),
      last: Float64Array.from(rows, (x) => x.last),
      ids: !withIds
        ? null
        : idKind === 'writes'
          ? writingIds(rows.map((x) => x.id))
          : idKind === 'numbers'
            ? numberIds(rows.map((x) => x.num))
            : idList(rows.map((x) => x.id)),
      source: { path: 'x', format },
      notes: [],
    };
    return { r, offsets: rows.map((x) => x.offset) };
  });

describe('plan --format csv', () => {
  it('equals one template line per record, for any numbers and ids', () => {
    fc.assert(
      fc.property(recordsArb, ({ r, offsets }) => {
        expect(renderPlanCsv(r, offsets)).toBe(plainCsv(r, offsets));
      }),
      { numRuns: 300 },
    );
  });

  it('across the megabytes it is built in, and with an id longer than one of them', () => {
    const n = 70_000;
    const ids = Array.from({ length: n }, (_, i) => (i === 40_000 ? 'x'.repeat(1_500_000) : i % 7 === 0 ? `t,${i}` : `tensor_${i}`));
    const r: UsageRecords = {
      count: n,
      size: Float64Array.from({ length: n }, (_, i) => i * 7919),
      first: Float64Array.from({ length: n }, (_, i) => i),
      last: Float64Array.from({ length: n }, (_, i) => i + (i % 300)),
      ids: idList(ids),
      source: { path: 'x', format: 'trace:csv' },
      notes: [],
    };
    const offsets = Array.from({ length: n }, (_, i) => i * 1_234_567_891);
    const text = renderPlanCsv(r, offsets);
    expect(text.length).toBeGreaterThan(3_000_000);
    expect(text).toBe(plainCsv(r, offsets));
    // Lines of numbers alone: ids that are numbers, and none.
    for (const numbered of [{ ...r, ids: numberIds(Array.from({ length: n }, (_, i) => 3 * i + 1)) }, { ...r, ids: null }]) {
      const lines = renderPlanCsv(numbered, offsets);
      expect(lines.length).toBeGreaterThan(2_000_000);
      expect(lines).toBe(plainCsv(numbered, offsets));
    }
  });
});
