import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputFile } from '../../src/output/index.js';
import { PlacementsCsv } from '../../src/cli/placements.js';
import { IdTable } from '../../src/trace/id-table.js';
import { tempDir } from '../helpers.js';

const enc = new TextEncoder();
/** The line as plain string formatting writes it. */
const expected = (event: number, id: string, address: number, size: number, allocated: number): string =>
  `${event},${/[",\n\r]/.test(id) ? `"${id.replace(/"/g, '""')}"` : id},0x${address.toString(16)},${size},${allocated}`;

describe('--placements CSV written as bytes', () => {
  it('writes what string formatting writes, for any ids and numbers up to 2^53 (fast-check)', () => {
    const dir = tempDir();
    const id = fc.oneof(fc.nat(3000).map(String), fc.string({ maxLength: 12 }).filter((s) => s !== ''), fc.constantFrom('a,b', 'q"x', 'l\nm', 'é', 'w17'));
    const big = fc.oneof(fc.nat(1000), fc.integer({ min: 0, max: 2 ** 31 + 5 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));
    let k = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(id, big, big, big, big), { minLength: 1, maxLength: 200 }), fc.boolean(), (rows, small) => {
        const path = join(dir, `p${k++}.csv`);
        const ids = new IdTable();
        const file = new OutputFile(path);
        // A small buffer size is not settable: long runs of rows cross the 1 MiB buffer in the test below.
        const csv = new PlacementsCsv(file, () => ids);
        const lines = ['event,id,address,sizeBytes,allocatedBytes'];
        rows.forEach(([s, event, address, size, allocated]) => {
          const b = enc.encode(s);
          const a = ids.insert(b, 0, b.length);
          const ev = small ? event % 1000 : event;
          csv.place(ev, a, address, size, allocated);
          lines.push(expected(ev, s, address, size, allocated));
        });
        csv.close();
        file.close();
        expect(readFileSync(path, 'utf8')).toBe(lines.join('\n') + '\n');
      }),
      { numRuns: 200 },
    );
  });

  it('writes plain-number ids as numbers across batches, and the same lines once a later id is not a number', () => {
    const dir = tempDir();
    for (const last of ['9', 'x,y']) {
      const path = join(dir, `plain-${last.length}.csv`);
      const ids = new IdTable();
      const file = new OutputFile(path);
      const csv = new PlacementsCsv(file, () => ids);
      const lines = ['event,id,address,sizeBytes,allocatedBytes'];
      // 3 * 4096 + 5 lines: whole batches and a part of one; numbers at the edges of the digit groups.
      const numbers = [0, 9, 10, 9999, 10_000, 99_999_999, 100_000_000, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 1, 2 ** 53 - 1];
      for (let k = 0; k < 3 * 4096 + 5; k++) {
        const s = k === 3 * 4096 + 4 ? last : String(k * 7919);
        const b = enc.encode(s);
        const a = ids.insert(b, 0, b.length);
        const event = k % 3 === 0 ? (numbers[k % numbers.length] as number) : k;
        const address = k % 5 === 0 ? (numbers[(k >> 2) % numbers.length] as number) : 2 ** 40 + k * 256;
        const size = numbers[(k >> 1) % numbers.length] as number;
        csv.place(event, a, address, size, size + 1);
        lines.push(expected(event, s, address, size, size + 1));
      }
      csv.close();
      file.close();
      expect(readFileSync(path, 'utf8')).toBe(lines.join('\n') + '\n');
    }
  });

  it('writes a file larger than its buffer, with an id longer than the buffer', () => {
    const path = join(tempDir(), 'big.csv');
    const ids = new IdTable();
    const file = new OutputFile(path);
    const csv = new PlacementsCsv(file, () => ids);
    const long = 'x'.repeat(3 << 20);
    const lines = ['event,id,address,sizeBytes,allocatedBytes'];
    for (let k = 0; k < 100_000; k++) {
      const s = k === 50_000 ? long : `t${k}`;
      const b = enc.encode(s);
      const a = ids.insert(b, 0, b.length);
      csv.place(k, a, 2 ** 40 + k * 256, k, k + 1);
      lines.push(expected(k, s, 2 ** 40 + k * 256, k, k + 1));
    }
    csv.close();
    file.close();
    expect(readFileSync(path, 'utf8')).toBe(lines.join('\n') + '\n');
  });
});
