import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiDecimal, asciiHex } from '../../src/util/ascii-numbers.js';

const dec = new TextDecoder();

/** Writes `v` with `write` after a marker byte and returns the text written and the bytes right before it. */
function written(write: typeof asciiDecimal, v: number): { text: string; before: number } {
  const buf = new Uint8Array(40).fill(0x7c);
  const view = new DataView(buf.buffer);
  const end = write(v, view, 5);
  return { text: dec.decode(buf.subarray(5, end)), before: buf[4] as number };
}

describe('ASCII numbers written into bytes', () => {
  it('writes the digits String(v) and v.toString(16) give at the edges of each group', () => {
    const edges = [0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10_000, 10_001, 99_999_999, 100_000_000, 100_000_001, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 15, 0x1ffffffff, 0xfffffffffff, 0x10000003300, 0xffffffffffff, 2 ** 48, 2 ** 53 - 1];
    for (const v of edges) {
      expect(written(asciiDecimal, v)).toEqual({ text: String(v), before: 0x7c });
      expect(written(asciiHex, v)).toEqual({ text: v.toString(16), before: 0x7c });
    }
  });

  it('writes every number below 2 * 10^4 as String(v) does (every entry of the digit tables, alone and as a low group)', () => {
    const buf = new Uint8Array(40);
    const view = new DataView(buf.buffer);
    for (let v = 0; v < 20_000; v++) {
      const end = asciiDecimal(v, view, 0);
      if (dec.decode(buf.subarray(0, end)) !== String(v)) expect(dec.decode(buf.subarray(0, end))).toBe(String(v));
      const high = 10_000 * (1 + (v % 9_999)) + v % 10_000;
      const highEnd = asciiDecimal(high, view, 0);
      if (dec.decode(buf.subarray(0, highEnd)) !== String(high)) expect(dec.decode(buf.subarray(0, highEnd))).toBe(String(high));
    }
  });

  it('writes any safe integer as String(v) and v.toString(16) do, numbers in a row intact (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.nat(20_000), fc.nat(), fc.maxSafeNat()), { minLength: 1, maxLength: 30 }), (values) => {
        const buf = new Uint8Array(values.length * 40 + 8);
        const view = new DataView(buf.buffer);
        let p = 0;
        for (const v of values) {
          p = asciiDecimal(v, view, p);
          buf[p++] = 0x2c;
          p = asciiHex(v, view, p);
          buf[p++] = 0x2c;
        }
        expect(dec.decode(buf.subarray(0, p))).toBe(values.map((v) => `${v},${v.toString(16)},`).join(''));
      }),
    );
  });
});
