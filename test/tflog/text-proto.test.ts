import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTextProto } from '../../src/trace/tflog/text-proto-tree.js';
import { TextProtoError } from '../../src/trace/tflog/text-proto.js';

/** The byte offset and message of the error `text` raises. */
function errorOf(text: string): { pos: number; message: string } {
  try {
    parseTextProto(text);
  } catch (e) {
    if (e instanceof TextProtoError) return { pos: e.pos, message: e.message };
    throw e;
  }
  throw new Error(`no error for ${text}`);
}

/** absl::CEscape as protobuf's printer applies it to strings (octal for bytes outside printable ASCII). */
function cEscape(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    if (b === 0x0a) out += '\\n';
    else if (b === 0x0d) out += '\\r';
    else if (b === 0x09) out += '\\t';
    else if (b === 0x22) out += '\\"';
    else if (b === 0x27) out += "\\'";
    else if (b === 0x5c) out += '\\\\';
    else if (b < 0x20 || b >= 0x7f) out += `\\${b.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return out;
}

describe('protobuf text format (ShortDebugString)', () => {
  it('reads a MemoryLogTensorAllocation body: nested messages, repeated fields, enums, bools, int64', () => {
    const m = parseTextProto(
      'step_id: 2 kernel_name: "gradients/Fill" tensor { dtype: DT_FLOAT shape { dim { size: 250000 } dim { size: 4 } } ' +
        'allocation_description { requested_bytes: 1000000 allocated_bytes: 1000192 allocator_name: "gpu_bfc" allocation_id: 5 has_single_reference: true ptr: 30077651968 } }',
    );
    expect(m).toEqual({
      step_id: 2,
      kernel_name: 'gradients/Fill',
      tensor: {
        dtype: 'DT_FLOAT',
        shape: { dim: [{ size: 250000 }, { size: 4 }] },
        allocation_description: {
          requested_bytes: 1000000,
          allocated_bytes: 1000192,
          allocator_name: 'gpu_bfc',
          allocation_id: 5,
          has_single_reference: true,
          ptr: 30077651968,
        },
      },
    });
  });

  it('decodes C escapes: octal bytes of UTF-8, the named ones, hex and unicode', () => {
    expect(parseTextProto('s: "caf\\303\\251 \\"q\\" \\\\ \\t\\n\\r\\a\\b\\f\\v\\? \\\' \\x41\\x4a \\u00e9 \\U0001F600 \\0"').s).toBe(
      'café "q" \\ \t\n\r\x07\b\f\v? \' AJ é 😀 \0',
    );
    expect(parseTextProto("s: 'single \"quoted\"'").s).toBe('single "quoted"');
    expect(parseTextProto('s: "adjacent " \'strings\' " join"').s).toBe('adjacent strings join');
    expect(parseTextProto('s: ""').s).toBe('');
  });

  it('round-trips any bytes through CEscape', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const bytes = Buffer.from(text, 'utf8');
        expect(parseTextProto(`k: "${cEscape(bytes)}"`).k).toBe(bytes.toString('utf8'));
      }),
    );
  });

  it('reads numbers: negative, hex, octal, floats, inf and nan; identifiers stay names', () => {
    expect(parseTextProto('a: -6 b: 0x1F c: 017 d: 1.5 e: -2.5e3 f: 3f g: inf h: -inf i: nan j: DT_HALF k: false l: t')).toEqual({
      a: -6,
      b: 31,
      c: 15,
      d: 1.5,
      e: -2500,
      f: 3,
      g: Infinity,
      h: -Infinity,
      i: NaN,
      j: 'DT_HALF',
      k: false,
      l: true,
    });
  });

  it('accepts what the protobuf parser accepts around the printer output', () => {
    const a = parseTextProto('x: 1, y: 2; z { w: 3 }');
    const b = parseTextProto('x:1 y :2\tz: < w: 3 > # a comment\n');
    const c = parseTextProto('x:  1  y: 2 z {  w:   3 }');
    expect(a).toEqual({ x: 1, y: 2, z: { w: 3 } });
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(parseTextProto('v: [1, 2, 3] m: [{ a: 1 }, { a: 2 }] e: []')).toEqual({ v: [1, 2, 3], m: [{ a: 1 }, { a: 2 }] });
    expect(parseTextProto('[ext.name]: 4')).toEqual({ '[ext.name]': 4 });
  });

  it('reports syntax errors at the offending byte', () => {
    expect(errorOf('a: "open')).toEqual({ pos: 3, message: 'unterminated string: the closing quote is missing' });
    expect(errorOf('a { b: 1')).toEqual({ pos: 8, message: "expected '}', found the end of the line" });
    expect(errorOf('a 1')).toEqual({ pos: 2, message: 'expected \':\' or \'{\' after the field name "a", found \'1\'' });
    expect(errorOf('a: }')).toEqual({ pos: 3, message: "expected a value, found '}'" });
    expect(errorOf('a: 12ab')).toEqual({ pos: 5, message: "unexpected 'a' in a number" });
    expect(errorOf('a: 09')).toEqual({ pos: 4, message: 'invalid digit in an octal number' });
    expect(errorOf('a: "\\400"')).toEqual({ pos: 4, message: 'octal escape above \\377' });
    expect(errorOf('a: "\\z"')).toEqual({ pos: 4, message: "invalid escape '\\z'" });
    expect(errorOf('a: -DT_FLOAT')).toEqual({ pos: 4, message: 'expected a number after \'-\', found "DT_FLOAT"' });
    expect(errorOf('a: [1 2]')).toEqual({ pos: 6, message: "expected ',' or ']' in the list, found '2'" });
    expect(errorOf('9: 1')).toEqual({ pos: 0, message: "expected a field name, found '9'" });
    expect(errorOf('}')).toEqual({ pos: 0, message: "expected a field name, found '}'" });
    expect(errorOf('a { '.repeat(70))).toMatchObject({ message: 'messages nested deeper than 64' });
  });
});
