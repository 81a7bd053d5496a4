import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../../src/errors.js';
import { unpickle } from '../../src/trace/pytorch/pickle.js';
import { pickle, PickleFloat, PickleTuple } from '../../src/trace/pytorch/pickle-writer.js';

const bytes = (...parts: (number | string)[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from([p]))));

/** The message of the TraceError that `fn` throws. */
function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(TraceError);
    return (e as Error).message;
  }
  throw new Error('expected a TraceError');
}

describe('safe pickle reader', () => {
  it.each([2, 3, 4, 5] as const)('reads plain data written with protocol %i', (protocol) => {
    const value = {
      s: 'héllo ✓',
      n: [0, 1, 255, 256, 65535, 65536, -1, -129, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 47 + 3, -(2 ** 52), 2 ** 53 - 1],
      f: 1.5,
      t: true,
      no: false,
      none: null,
      nested: { a: [[], {}, ['x']] },
    };
    expect(unpickle(pickle(value, { protocol }))).toEqual(value);
  });

  it('reads tuples as arrays and integral floats as numbers', () => {
    expect(unpickle(pickle([new PickleTuple([1, 'a']), new PickleFloat(2)]))).toEqual([[1, 'a'], 2]);
  });

  it('keeps memoized objects shared: a memo reference is the same object', () => {
    const frames = [{ name: 'f', filename: 'x.py', line: 3 }];
    const v = unpickle(pickle({ a: { frames }, b: { frames }, c: [frames, frames] })) as { a: { frames: unknown }; b: { frames: unknown }; c: unknown[] };
    expect(v.a.frames).toBe(v.b.frames);
    expect(v.c[0]).toBe(v.a.frames);
    expect(v.c[1]).toBe(v.a.frames);
  });

  it('reads longs of any length exactly: a number up to 2^53, a bigint beyond', () => {
    // LONG1 with 9 bytes: 2^64 and -(2^64) need a ninth byte for the sign.
    const big = unpickle(pickle([2n ** 64n, -(2n ** 64n), 2n ** 63n - 1n, 2n ** 53n, 2n ** 53n - 1n])) as unknown[];
    expect(big).toEqual([2n ** 64n, -(2n ** 64n), 2n ** 63n - 1n, 2n ** 53n, 2 ** 53 - 1]);
    // LONG4, hand-written: 4-byte length 9, then 2^64 little-endian.
    const long4 = bytes(0x80, 2, 0x8b, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x2e);
    expect(unpickle(long4)).toBe(2n ** 64n);
    // LONG1 of 0 bytes is 0; 7-byte times.
    expect(unpickle(bytes(0x80, 2, 0x8a, 0, 0x2e))).toBe(0);
    expect(unpickle(pickle(1_773_270_053_858_957))).toBe(1_773_270_053_858_957);
  });

  it('property: any nesting of lists, dicts, strings and integers reads back as written', () => {
    const leaf = fc.oneof(fc.string(), fc.integer(), fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }), fc.boolean(), fc.constant(null));
    const tree = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 5 }), fc.dictionary(fc.string(), tie('node'), { maxKeys: 5 })),
    })).node;
    const norm = (v: unknown): unknown =>
      typeof v === 'bigint' && v >= -(2n ** 53n) + 1n && v <= 2n ** 53n - 1n ? Number(v) : Array.isArray(v) ? v.map(norm) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)])) : v;
    fc.assert(
      fc.property(tree, fc.constantFrom(2, 3, 4, 5) as fc.Arbitrary<2 | 3 | 4 | 5>, (v, protocol) => {
        expect(unpickle(pickle(v as never, { protocol }))).toEqual(norm(v));
      }),
      { numRuns: 200 },
    );
  });

  it('property: unmemoized strings read back as written, however often the same bytes repeat', () => {
    // Each string written anew (as CPython writes equal strings that are distinct objects), from a
    // small alphabet so that different strings of one length are common, across the short-string limit.
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'N', '/', 'é', '✓'), maxLength: 40 });
    const written = (items: string[]): Buffer => {
      const parts: Buffer[] = [Buffer.from([0x80, 4, 0x5d, 0x28])];
      for (const s of items) {
        const b = Buffer.from(s, 'utf8');
        parts.push(Buffer.from([0x8c, b.length]), b);
      }
      parts.push(Buffer.from([0x65, 0x2e]));
      return Buffer.concat(parts);
    };
    fc.assert(
      fc.property(fc.array(text, { minLength: 50, maxLength: 400 }), (items) => {
        expect(unpickle(written(items))).toEqual(items);
      }),
      { numRuns: 200 },
    );
    expect(unpickle(written(['N/A', 'N/B', 'N/A', '', 'N/A', 'é', 'N/A']))).toEqual(['N/A', 'N/B', 'N/A', '', 'N/A', 'é', 'N/A']);
    // Every 5-letter word of 4 letters, twice: more strings of one length than any table of recent ones holds.
    const words = Array.from({ length: 1024 }, (_, i) => Array.from({ length: 5 }, (_, k) => 'abcd'[(i >> (2 * k)) & 3]).join(''));
    const twice = [...words, ...[...words].reverse()];
    expect(unpickle(written(twice))).toEqual(twice);
  });

  it('reads sets and frozensets as arrays, bytes as Uint8Array', () => {
    // EMPTY_SET, MARK, 1, 2, ADDITEMS; then MARK 3 FROZENSET; SHORT_BINBYTES "ab".
    const b = bytes(0x80, 4, 0x5d, 0x8f, 0x28, 0x4b, 1, 0x4b, 2, 0x90, 0x61, 0x28, 0x4b, 3, 0x91, 0x61, 0x43, 2, 'ab', 0x61, 0x2e);
    const v = unpickle(b) as unknown[];
    expect(v.slice(0, 2)).toEqual([[1, 2], [3]]);
    expect(v[2]).toEqual(new Uint8Array([0x61, 0x62]));
  });

  it('keeps a "__proto__" key as data and never touches Object.prototype', () => {
    const v = unpickle(pickle(JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 2}'))) as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  const refused: [string, Buffer, number][] = [
    ['GLOBAL', bytes(0x80, 2, 'cos\nsystem\n', 0x2e), 2],
    ['STACK_GLOBAL', bytes(0x80, 4, 0x8c, 2, 'os', 0x8c, 6, 'system', 0x93, 0x2e), 14],
    ['REDUCE', bytes(0x80, 2, 0x5d, 0x29, 0x52, 0x2e), 4],
    ['BUILD', bytes(0x80, 2, 0x7d, 0x7d, 0x62, 0x2e), 4],
    ['INST', bytes(0x80, 2, 0x28, 'ios\nsystem\n', 0x2e), 3],
    ['OBJ', bytes(0x80, 2, 0x28, 0x5d, 0x6f, 0x2e), 4],
    ['NEWOBJ', bytes(0x80, 2, 0x5d, 0x29, 0x81, 0x2e), 4],
    ['NEWOBJ_EX', bytes(0x80, 4, 0x5d, 0x29, 0x7d, 0x92, 0x2e), 5],
    ['EXT1', bytes(0x80, 2, 0x82, 1, 0x2e), 2],
    ['EXT2', bytes(0x80, 2, 0x83, 1, 0, 0x2e), 2],
    ['EXT4', bytes(0x80, 2, 0x84, 1, 0, 0, 0, 0x2e), 2],
    ['PERSID', bytes(0x80, 2, 'P1\n', 0x2e), 2],
    ['BINPERSID', bytes(0x80, 2, 0x4b, 1, 0x51, 0x2e), 4],
    ['NEXT_BUFFER', bytes(0x80, 5, 0x97, 0x2e), 2],
    ['READONLY_BUFFER', bytes(0x80, 5, 0x5d, 0x98, 0x2e), 3],
  ];
  it.each(refused)('refuses %s, naming the opcode and its byte offset', (name, pickleBytes, offset) => {
    const msg = errorOf(() => unpickle(pickleBytes, 'evil.pickle'));
    expect(msg).toContain(`refusing opcode ${name} (0x`);
    expect(msg).toContain(`(byte offset ${offset})`);
    expect(msg.startsWith('evil.pickle: ')).toBe(true);
  });

  it('names the module and attribute a GLOBAL would import', () => {
    expect(errorOf(() => unpickle(bytes(0x80, 2, 'cos\nsystem\n', 0x2e)))).toContain('("os system")');
  });

  it('reports truncated and malformed pickles with the offset', () => {
    expect(errorOf(() => unpickle(bytes(0x80, 4, 0x8c, 10, 'abc')))).toMatch(/ends inside SHORT_BINUNICODE.*byte offset 2/);
    expect(errorOf(() => unpickle(bytes(0x80, 4, 0x4b, 1)))).toMatch(/ends without a STOP/);
    expect(errorOf(() => unpickle(bytes(0x80, 6, 0x2e)))).toMatch(/protocol 6 is newer than 5/);
    expect(errorOf(() => unpickle(bytes(0x80, 2, 0x68, 3, 0x2e)))).toMatch(/BINGET \(0x68\) refers to memo entry 3, which was never stored \(byte offset 2\)/);
    expect(errorOf(() => unpickle(bytes(0x80, 2, 0x65, 0x2e)))).toMatch(/APPENDS \(0x65\) needs a MARK/);
    expect(errorOf(() => unpickle(bytes(0x80, 2, 0x4b, 1, 0x28, 0x4b, 2, 0x65, 0x2e)))).toMatch(/APPENDS \(0x65\) applies to a number, not a list/);
    expect(errorOf(() => unpickle(bytes(0x80, 2, 0xff, 0x2e)))).toMatch(/unknown opcode 0xff \(byte offset 2\)/);
    expect(errorOf(() => unpickle(bytes(0x80, 2, 0x7d, 0x28, 0x5d, 0x4b, 1, 0x75, 0x2e)))).toMatch(/dict key that is a list/);
  });
});
