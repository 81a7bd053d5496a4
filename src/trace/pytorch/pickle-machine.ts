import { TraceError } from '../../errors.js';
import { OPCODE_NAMES, REFUSED } from './pickle-opcodes.js';
import { dictSet, type PickleDict, type PickleValue } from './pickle-value.js';

/** Latin-1 slicing of bytes, Node's fastest way to make a string of ASCII bytes. */
export const latin1Slice = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }).latin1Slice;

/** The longest text that {@link PickleMachine.utf8} keeps for reuse, and how many it keeps. */
const SHORT_TEXT = 32;
const SHORT_SLOTS = 256;

/** The largest LONG4 we accept (a snapshot holds 64-bit values; this is only a guard). */
export const MAX_LONG_BYTES = 1 << 16;

/**
 * The state of the unpickler (input, value stack, marks, memo) and the checked operations on it that
 * the opcodes use; every misuse becomes a {@link TraceError} with the opcode and its byte offset.
 * The opcodes themselves are in pickle.ts.
 */
export abstract class PickleMachine {
  /** The input, or the part of it held now (see file-window.ts), and a view of it for its wider numbers. */
  protected buf: Uint8Array;
  protected view: DataView;
  protected readonly file: string;
  protected readonly decoder = new TextDecoder('utf-8', { fatal: false });
  /** Read position of the opcodes handled outside the hot loop. */
  protected pos = 0;
  /** Offset and code of the opcode being executed (for errors). */
  protected at = 0;
  protected op = 0;
  /** One value stack; `marks` holds the stack heights at each MARK, `floor` the innermost one. */
  protected readonly stack: PickleValue[] = [];
  protected readonly marks: number[] = [];
  protected floor = 0;
  protected readonly memo: PickleValue[];
  /** Python's memo is a dict and MEMOIZE stores at len(memo): count entries, not the highest index. */
  protected memoCount = 0;
  /** Short ASCII strings made lately (see {@link utf8}): per slot, where their bytes are, how many, the string. */
  private readonly shortFrom = new Int32Array(SHORT_SLOTS).fill(-1);
  private readonly shortLength = new Uint8Array(SHORT_SLOTS);
  private readonly shortText: string[] = new Array<string>(SHORT_SLOTS).fill('');

  /**
   * `memoRoom`: memo entries to make room for at once. A memo of a million entries grown as it fills
   * is copied a dozen times, each copy into fresh memory (about three times its final size in all).
   */
  constructor(buf: Uint8Array, file: string, memoRoom = 0) {
    this.memo = memoRoom > 0 ? new Array<PickleValue>(memoRoom) : [];
    this.buf = buf;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.file = file;
  }

  /** The bytes of {@link buf} were replaced: no short text made from the old ones is reused. */
  protected forgetShortTexts(): void {
    this.shortFrom.fill(-1);
  }

  protected fail(message: string, offset = this.at): never {
    throw TraceError.at(this.file, undefined, `not a readable pickle: ${message} (byte offset ${offset})`);
  }

  protected opName(op = this.op): string {
    return `${OPCODE_NAMES[op] ?? 'unknown opcode'} (0x${op.toString(16).padStart(2, '0')})`;
  }

  protected truncated(n: number): never {
    this.fail(`the file ends inside ${this.opName()}, which needs ${n} more bytes`);
  }

  /** Checks that `n` more bytes exist at `pos` and returns where they start. */
  protected take(n: number): number {
    const p = this.pos;
    if (n < 0 || p + n > this.buf.length) this.truncated(n);
    this.pos = p + n;
    return p;
  }

  /** A newline-terminated argument of the text opcodes. */
  protected line(): string {
    const start = this.pos;
    const nl = this.buf.indexOf(0x0a, start);
    if (nl < 0) this.fail(`the file ends inside ${this.opName()}, which needs a line`);
    this.pos = nl + 1;
    return latin1Slice.call(this.buf, start, nl);
  }

  /**
   * UTF-8 text; ASCII text (dict keys, file names) is sliced as Latin-1, which is cheaper. Short
   * ASCII strings are made once per distinct bytes seen lately: a snapshot repeats the same few
   * (`N/A` as the compile_context of every entry, memoized anew each time), and equal strings are
   * the same value however many times they are made.
   */
  protected utf8(start: number, n: number): string {
    const b = this.buf;
    const end = start + n;
    if (n > SHORT_TEXT) {
      for (let i = start; i < end; i++) {
        if ((b[i] as number) >= 0x80) return this.decoder.decode(b.subarray(start, end));
      }
      return latin1Slice.call(b, start, end);
    }
    let h = n;
    for (let i = start; i < end; i++) {
      const c = b[i] as number;
      if (c >= 0x80) return this.decoder.decode(b.subarray(start, end));
      h = Math.imul(h ^ c, 16777619);
    }
    const slot = (h ^ (h >>> 13)) & (SHORT_SLOTS - 1);
    const from = this.shortFrom[slot] as number;
    if (from >= 0 && this.shortLength[slot] === n) {
      let k = 0;
      while (k < n && b[from + k] === b[start + k]) k++;
      if (k === n) return this.shortText[slot] as string;
    }
    const s = latin1Slice.call(b, start, end);
    this.shortFrom[slot] = start;
    this.shortLength[slot] = n;
    this.shortText[slot] = s;
    return s;
  }

  /** Little-endian two's complement integer of `n` bytes (LONG1/LONG4). */
  protected long(start: number, n: number): number | bigint {
    const b = this.buf;
    if (n <= 4) {
      let v = 0;
      for (let i = n - 1; i >= 0; i--) v = v * 256 + (b[start + i] as number);
      return n > 0 && v >= 2 ** (8 * n - 1) ? v - 2 ** (8 * n) : v;
    }
    if (n <= 8) {
      // Addresses (6 bytes) and microsecond times (7 bytes) are most of a snapshot's longs: the low
      // 32 bits and the signed rest as numbers are exact while the high part stays under 2^21.
      const lo = this.view.getUint32(start, true);
      let hi = 0;
      for (let i = n - 1; i >= 4; i--) hi = hi * 256 + (b[start + i] as number);
      if (hi >= 2 ** (8 * (n - 4) - 1)) hi -= 2 ** (8 * (n - 4));
      if (hi < 2 ** 21 && hi >= -(2 ** 21)) return hi * 4294967296 + lo;
    }
    let hex = '';
    for (let i = n - 1; i >= 0; i--) hex += (b[start + i] as number).toString(16).padStart(2, '0');
    let big = BigInt(`0x${hex}`);
    if ((b[start + n - 1] as number) & 0x80) big -= 1n << BigInt(8 * n);
    return big >= -9007199254740991n && big <= 9007199254740991n ? Number(big) : big;
  }

  protected underflow(): never {
    this.fail(`${this.opName()} needs a value on the stack, and there is none`);
  }

  protected top(): PickleValue {
    const stack = this.stack;
    if (stack.length <= this.floor) this.underflow();
    return stack[stack.length - 1] as PickleValue;
  }

  protected pop(): PickleValue {
    const stack = this.stack;
    if (stack.length <= this.floor) this.underflow();
    return stack.pop() as PickleValue;
  }

  protected popMark(): number {
    const marks = this.marks;
    const m = marks.pop();
    if (m === undefined) this.fail(`${this.opName()} needs a MARK, and there is none`);
    this.floor = marks.length > 0 ? (marks[marks.length - 1] as number) : 0;
    return m;
  }

  /** The value just under a popped mark: the container that APPENDS/SETITEMS fill. */
  protected below(m: number): PickleValue {
    if (m - 1 < this.floor) this.fail(`${this.opName()} needs a container under its MARK, and there is none`);
    return this.stack[m - 1] as PickleValue;
  }

  protected memoGet(i: number): PickleValue {
    const v = this.memo[i];
    if (v === undefined) this.fail(`${this.opName()} refers to memo entry ${i}, which was never stored`);
    return v;
  }

  protected memoPut(i: number): void {
    if (i > 0x7fffffff) this.fail(`${this.opName()} with memo index ${i}, beyond what this reader accepts`);
    const v = this.top();
    if (this.memo[i] === undefined) this.memoCount++;
    this.memo[i] = v;
  }

  /** An 8-byte length that must fit in memory. */
  protected size8(): number {
    const p = this.take(8);
    const n = this.view.getBigUint64(p, true);
    if (n > BigInt(this.buf.length)) this.fail(`${this.opName()} claims ${n} bytes, more than the file holds`);
    return Number(n);
  }

  protected list(v: PickleValue): PickleValue[] {
    if (!Array.isArray(v)) this.fail(`${this.opName()} applies to a ${kindOf(v)}, not a list`);
    return v;
  }

  protected dict(v: PickleValue): PickleDict {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof Uint8Array) {
      this.fail(`${this.opName()} applies to a ${kindOf(v)}, not a dict`);
    }
    return v;
  }

  /** Reports a dict key that is not a scalar. */
  badKey(k: PickleValue): never {
    this.fail(`a dict key that is a ${kindOf(k)} (only str, int, float, bool and None keys are read)`);
  }

  protected refuse(op: number): never {
    const refused = REFUSED[op];
    if (refused) {
      let what = '';
      if (op === 0x63 || op === 0x69) {
        // GLOBAL / INST name the module and attribute on two lines; show them, they explain the refusal.
        const save = this.pos;
        try {
          what = ` ("${this.line()} ${this.line()}")`.replace(/[^\x20-\x7e]/g, '?');
        } catch {
          what = '';
        }
        this.pos = save;
      }
      this.fail(
        `refusing opcode ${this.opName(op)}${what}: it would ${refused}; a memory snapshot holds only plain data ` +
          '(dicts, lists, strings, numbers), so this file was not written by torch.cuda.memory._dump_snapshot',
      );
    }
    if (op === 0x53 || op === 0x56) {
      this.fail(`${this.opName(op)} is a protocol-0 text string, which this reader does not decode; re-save the file with protocol 2 or later`);
    }
    this.fail(`unknown opcode 0x${op.toString(16).padStart(2, '0')}`);
  }
}

/** A plain Uint8Array copy (not a Buffer view of the file, which would keep the whole file alive). */
export function copyBytes(buf: Uint8Array, start: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  out.set(buf.subarray(start, start + n));
  return out;
}

/** dict[k] = v with the key as a string (ints as decimal, as JSON would have them). */
export function setItem(u: PickleMachine, d: PickleDict, k: PickleValue, v: PickleValue): void {
  if (typeof k === 'string') {
    if (k === '__proto__') dictSet(d, k, v);
    else d[k] = v;
  } else if (typeof k === 'number' || typeof k === 'bigint') {
    d[String(k)] = v;
  } else if (typeof k === 'boolean') {
    d[k ? 'True' : 'False'] = v;
  } else if (k === null) {
    d['None'] = v;
  } else {
    u.badKey(k);
  }
}

function kindOf(v: PickleValue): string {
  if (v === null) return 'None';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Uint8Array) return 'bytes';
  if (typeof v === 'object') return 'dict';
  return typeof v;
}
