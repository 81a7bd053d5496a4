import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../../src/errors.js';
import { FREED_WINDOW, TraceChecker } from '../../src/trace/checker.js';
import { KeyTable } from '../../src/trace/key-table.js';
import { readCsv } from '../../src/trace/read-csv.js';
import { ByteSource } from '../../src/trace/source.js';
import { checkTrace, readTrace } from '../../src/trace/read.js';
import { StepSet } from '../../src/trace/step-set.js';
import { tempDir } from '../helpers.js';

const enc = new TextEncoder();

describe('step set', () => {
  it('counts distinct values as a Set does (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -20, max: 40 }), { maxLength: 200 }), (xs) => {
        const s = new StepSet();
        xs.forEach((x) => s.add(x));
        expect(s.count).toBe(new Set(xs).size);
      }),
      { numRuns: 500 },
    );
  });

  it('holds consecutive steps as one run', () => {
    const s = new StepSet();
    for (let k = 0; k < 100_000; k++) s.add(k);
    expect(s.count).toBe(100_000);
    expect(s.byteLength).toBe(16);
  });
});

describe('key table', () => {
  it('adds, finds and removes byte keys as a Map does (fast-check)', () => {
    const op = fc.tuple(fc.boolean(), fc.oneof(fc.integer({ min: 0, max: 60 }).map(String), fc.string({ maxLength: 3 })));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const t = new KeyTable(16);
        const model = new Map<string, number>();
        ops.forEach(([isAdd, key], k) => {
          const b = enc.encode(key);
          const slot = t.find(b, 0, b.length);
          expect(slot >= 0).toBe(model.has(key));
          if (slot >= 0) expect(t.first(slot)).toBe(model.get(key));
          if (isAdd && slot < 0) {
            t.add(b, 0, b.length, k, -k);
            model.set(key, k);
          } else if (!isAdd && slot >= 0) {
            t.remove(slot);
            model.delete(key);
          }
          expect(t.size).toBe(model.size);
        });
        const dec = new TextDecoder();
        expect(new Map(t.entries().map(([key, a]) => [dec.decode(key), a]))).toEqual(model);
      }),
      { numRuns: 300 },
    );
  });
});

describe('checking a trace without keeping it (validate)', () => {
  const dir = tempDir();
  const write = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const messages = (f: () => unknown): string[] => {
    try {
      f();
    } catch (e) {
      return (e as TraceError).message.split('\n');
    }
    return [];
  };

  it('finds the figures that reading the whole trace finds (fast-check)', () => {
    const id = fc.oneof(fc.integer({ min: 0, max: 30 }).map(String), fc.constantFrom('w1', 'a b'));
    const row = fc.tuple(fc.boolean(), id, fc.nat(1000), fc.nat(3));
    fc.assert(
      fc.property(fc.array(row, { maxLength: 80 }), fc.boolean(), (rows, lenient) => {
        const lines = ['op,id,size,step'];
        let step = 0;
        for (const [isAlloc, i, size, d] of rows) {
          step += d === 3 ? -1 : d === 2 ? 1 : 0;
          lines.push(isAlloc ? `alloc,${i},${size},${step}` : `free,${i},,${step}`);
        }
        const p = write('t.csv', lines.join('\n') + '\n');
        const read = (): unknown => readTrace(p, { lenient });
        const check = (): unknown => checkTrace(p, { lenient });
        const expected = messages(read);
        expect(messages(check)).toEqual(expected);
        if (expected.length === 0) {
          const t = readTrace(p, { lenient });
          const c = checkTrace(p, { lenient });
          expect(c.summary).toEqual(t.summary);
          expect(c.skipped).toEqual(t.skipped);
          expect(c.format).toBe('csv');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('holds the live allocations and a window of freed ids, not the trace: 400,000 events', () => {
    const lines = ['op,id,size,step'];
    for (let k = 0; k < 200_000; k++) lines.push(`alloc,t${k},${k},${k >> 8}`, `free,t${k},,${k >> 8}`);
    lines.push('free,t7,,782', 'free,t199990,,782', 'free,nope,,782');
    const p = write('long.csv', lines.join('\n') + '\n');
    const src = new ByteSource(p);
    src.fill();
    const checker = new TraceChecker(p, { source: src, lenient: true });
    readCsv(src, checker);
    const c = checker.finishCheck('csv');
    expect(c.summary).toMatchObject({ events: 400_000, allocs: 200_000, frees: 200_000, steps: 783 - 1, peakLiveBytes: 199_999, finalLiveBytes: 0 });
    expect(c.skipped.unknownFree).toBe(3);
    // Two windows of freed ids at most (2 x 2^16 keys) and the few live ones: a few MiB.
    expect(checker.heldBytes).toBeLessThan(12 * 2 ** 20);
    expect(messages(() => checkTrace(p))).toEqual([
      `${p}:400002: field "id": free of id "t7" which is not live (never allocated, or freed before the last ${FREED_WINDOW} frees)`,
      `${p}:400003: field "id": free of id "t199990" which is not live (already freed at line 399983)`,
      `${p}:400004: field "id": free of id "nope" which is not live (never allocated, or freed before the last ${FREED_WINDOW} frees)`,
    ]);
  });
});
