import { copyBytes, latin1Slice, MAX_LONG_BYTES, PickleMachine, setItem } from './pickle-machine.js';
import type { PickleDict, PickleValue } from './pickle-value.js';

export type { PickleDict, PickleValue } from './pickle-value.js';

/**
 * A safe reader of Python pickles (protocols 2 to 5, plus the numeric and container opcodes of
 * protocols 0 and 1) that builds plain data only: dict -> plain object (keys as strings, set as own
 * properties, so no key can reach a prototype), list and tuple -> array, set and frozenset -> array,
 * str -> string, int -> number (a bigint when it is beyond 2^53), float -> number, bool, None -> null,
 * bytes and bytearray -> Uint8Array.
 *
 * Memoized objects stay shared: a memo reference returns the same object, as Python's unpickler does
 * (real snapshots reference the same frame lists hundreds of thousands of times).
 *
 * Every opcode that would import, construct or call something (GLOBAL, STACK_GLOBAL, REDUCE, BUILD,
 * INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT1/2/4, PERSID, BINPERSID, NEXT_BUFFER, READONLY_BUFFER) is refused
 * with a {@link TraceError} naming the opcode and its byte offset. Nothing in the input is executed.
 *
 * The machine mirrors CPython's `_Unpickler` (Lib/pickle.py): one value stack, and marks kept as
 * stack heights instead of a stack of lists so that MARK/APPENDS/SETITEMS copy nothing.
 */
export function unpickle(buf: Uint8Array, file = '<pickle>'): PickleValue {
  return new Unpickler(buf, file).load();
}

/** The opcodes, on the state of {@link PickleMachine}. */
export class Unpickler extends PickleMachine {
  /**
   * The machine. The opcodes that make up nearly all of a snapshot (memo references, small ints,
   * short strings, dict and list building) run here with the read position in a local; the others
   * go through {@link Unpickler.other}.
   */
  load(): PickleValue {
    const buf = this.buf;
    const end = buf.length;
    const stack = this.stack;
    const memo = this.memo;
    let pos = 0;
    while (pos < end) {
      this.at = pos;
      const op = (this.op = buf[pos++] as number);
      switch (op) {
        case 0x68: {
          // BINGET
          if (pos + 1 > end) this.truncated(1);
          const v = memo[buf[pos++] as number];
          if (v === undefined) this.memoGet(buf[pos - 1] as number);
          stack.push(v as PickleValue);
          break;
        }
        case 0x6a: {
          // LONG_BINGET
          if (pos + 4 > end) this.truncated(4);
          const i = ((buf[pos] as number) | ((buf[pos + 1] as number) << 8) | ((buf[pos + 2] as number) << 16)) + (buf[pos + 3] as number) * 16777216;
          pos += 4;
          const v = memo[i];
          if (v === undefined) this.memoGet(i);
          stack.push(v as PickleValue);
          break;
        }
        case 0x94: // MEMOIZE
          this.memoPut(this.memoCount);
          break;
        case 0x28: // MARK
          this.marks.push((this.floor = stack.length));
          break;
        case 0x7d: // EMPTY_DICT
          stack.push({});
          break;
        case 0x5d: // EMPTY_LIST
          stack.push([]);
          break;
        case 0x8c: {
          // SHORT_BINUNICODE
          if (pos + 1 > end) this.truncated(1);
          const n = buf[pos++] as number;
          if (pos + n > end) this.truncated(n);
          stack.push(this.utf8(pos, n));
          pos += n;
          break;
        }
        case 0x4b: // BININT1
          if (pos + 1 > end) this.truncated(1);
          stack.push(buf[pos++] as number);
          break;
        case 0x4d: // BININT2
          if (pos + 2 > end) this.truncated(2);
          stack.push((buf[pos] as number) | ((buf[pos + 1] as number) << 8));
          pos += 2;
          break;
        case 0x4a: // BININT
          if (pos + 4 > end) this.truncated(4);
          stack.push((buf[pos] as number) | ((buf[pos + 1] as number) << 8) | ((buf[pos + 2] as number) << 16) | ((buf[pos + 3] as number) << 24));
          pos += 4;
          break;
        case 0x8a: {
          // LONG1
          if (pos + 1 > end) this.truncated(1);
          const n = buf[pos++] as number;
          if (pos + n > end) this.truncated(n);
          stack.push(this.long(pos, n));
          pos += n;
          break;
        }
        case 0x75: {
          // SETITEMS
          const m = this.popMark();
          if ((stack.length - m) % 2 !== 0) this.fail('SETITEMS with an odd number of items');
          const d = this.dict(this.below(m));
          for (let i = m; i < stack.length; i += 2) setItem(this, d, stack[i] as PickleValue, stack[i + 1] as PickleValue);
          stack.length = m;
          break;
        }
        case 0x65: // APPENDS
        case 0x90: {
          // ADDITEMS
          const m = this.popMark();
          const list = this.list(this.below(m));
          // Size the list once (a frames list arrives in one APPENDS) instead of growing it per push.
          const base = list.length;
          const count = stack.length - m;
          list.length = base + count;
          for (let i = 0; i < count; i++) list[base + i] = stack[m + i] as PickleValue;
          stack.length = m;
          break;
        }
        case 0x2e: // STOP
          if (stack.length === 0) this.fail('STOP with nothing on the stack');
          return stack[stack.length - 1] as PickleValue;
        default:
          this.pos = pos;
          this.other(op);
          pos = this.pos;
      }
    }
    this.fail('the file ends without a STOP opcode', end);
  }

  /** Every opcode the hot loop does not handle itself; reads from and advances `this.pos`. */
  protected other(op: number): void {
    const buf = this.buf;
    const view = this.view;
    const stack = this.stack;
    switch (op) {
      case 0x80: {
        // PROTO
        const v = buf[this.take(1)] as number;
        if (v > 5) this.fail(`pickle protocol ${v} is newer than 5, the latest this reader knows`);
        return;
      }
      case 0x95: {
        // FRAME: the whole file is in memory, so a frame needs no handling, but it must lie within it.
        const n = this.size8();
        if (n > buf.length - this.pos) this.fail(`FRAME of ${n} bytes, beyond the end of the input (${buf.length - this.pos} bytes left)`);
        return;
      }
      case 0x30: // POP (of the value on top, or of a MARK with nothing above it, as CPython does)
        if (this.marks.length > 0 && stack.length === this.floor) this.popMark();
        else this.pop();
        return;
      case 0x31: // POP_MARK
        stack.length = this.popMark();
        return;
      case 0x32: // DUP
        stack.push(this.top());
        return;
      case 0x71: // BINPUT
        this.memoPut(buf[this.take(1)] as number);
        return;
      case 0x72: // LONG_BINPUT
        this.memoPut(view.getUint32(this.take(4), true));
        return;
      case 0x70: {
        // PUT (text)
        const i = Number.parseInt(this.line(), 10);
        if (!Number.isSafeInteger(i) || i < 0) this.fail('PUT with a bad memo index');
        this.memoPut(i);
        return;
      }
      case 0x67: {
        // GET (text)
        const i = Number.parseInt(this.line(), 10);
        stack.push(this.memoGet(Number.isSafeInteger(i) && i >= 0 ? i : -1));
        return;
      }
      case 0x4e: // NONE
        stack.push(null);
        return;
      case 0x88: // NEWTRUE
        stack.push(true);
        return;
      case 0x89: // NEWFALSE
        stack.push(false);
        return;
      case 0x8b: {
        // LONG4
        const n = view.getInt32(this.take(4), true);
        if (n < 0 || n > MAX_LONG_BYTES) this.fail(`LONG4 of ${n} bytes is beyond what this reader accepts`);
        stack.push(this.long(this.take(n), n));
        return;
      }
      case 0x47: // BINFLOAT (big-endian)
        stack.push(view.getFloat64(this.take(8), false));
        return;
      case 0x49: // INT (text; "01"/"00" are the protocol-0 booleans)
      case 0x4c: {
        // LONG (text, with an optional L suffix)
        const t = this.line().trim().replace(/L$/, '');
        if (op === 0x49 && (t === '01' || t === '00')) {
          stack.push(t === '01');
          return;
        }
        if (!/^[-+]?\d+$/.test(t)) this.fail(`${this.opName()} with a bad integer "${t}"`);
        const big = BigInt(t);
        stack.push(big >= -9007199254740991n && big <= 9007199254740991n ? Number(big) : big);
        return;
      }
      case 0x46: {
        // FLOAT (text)
        const t = this.line().trim();
        const v = Number(t);
        if (t === '' || (Number.isNaN(v) && !/^[-+]?nan$/i.test(t))) this.fail(`FLOAT with a bad number "${t}"`);
        stack.push(v);
        return;
      }
      case 0x58: {
        // BINUNICODE
        const n = view.getUint32(this.take(4), true);
        stack.push(this.utf8(this.take(n), n));
        return;
      }
      case 0x8d: {
        // BINUNICODE8
        const n = this.size8();
        stack.push(this.utf8(this.take(n), n));
        return;
      }
      case 0x55: {
        // SHORT_BINSTRING (a Python 2 str: bytes, read as Latin-1 text like pickle.load(encoding='latin1'))
        const n = buf[this.take(1)] as number;
        const s = this.take(n);
        stack.push(latin1Slice.call(buf, s, s + n));
        return;
      }
      case 0x54: {
        // BINSTRING
        const n = view.getInt32(this.take(4), true);
        const s = this.take(n);
        stack.push(latin1Slice.call(buf, s, s + n));
        return;
      }
      case 0x43: {
        // SHORT_BINBYTES
        const n = buf[this.take(1)] as number;
        const s = this.take(n);
        stack.push(copyBytes(buf, s, n));
        return;
      }
      case 0x42: {
        // BINBYTES
        const n = view.getUint32(this.take(4), true);
        const s = this.take(n);
        stack.push(copyBytes(buf, s, n));
        return;
      }
      case 0x8e: // BINBYTES8
      case 0x96: {
        // BYTEARRAY8
        const n = this.size8();
        const s = this.take(n);
        stack.push(copyBytes(buf, s, n));
        return;
      }
      case 0x29: // EMPTY_TUPLE
      case 0x8f: // EMPTY_SET
        stack.push([]);
        return;
      case 0x85: // TUPLE1
        stack.push([this.pop()]);
        return;
      case 0x86: {
        // TUPLE2
        const b = this.pop();
        const a = this.pop();
        stack.push([a, b]);
        return;
      }
      case 0x87: {
        // TUPLE3
        const c = this.pop();
        const b = this.pop();
        const a = this.pop();
        stack.push([a, b, c]);
        return;
      }
      case 0x74: // TUPLE
      case 0x6c: // LIST
      case 0x91: {
        // FROZENSET
        const m = this.popMark();
        const items = stack.slice(m);
        stack.length = m;
        stack.push(items);
        return;
      }
      case 0x61: {
        // APPEND
        const v = this.pop();
        this.list(this.top()).push(v);
        return;
      }
      case 0x64: {
        // DICT
        const m = this.popMark();
        if ((stack.length - m) % 2 !== 0) this.fail('DICT with an odd number of items');
        const d: PickleDict = {};
        for (let i = m; i < stack.length; i += 2) setItem(this, d, stack[i] as PickleValue, stack[i + 1] as PickleValue);
        stack.length = m;
        stack.push(d);
        return;
      }
      case 0x73: {
        // SETITEM
        const v = this.pop();
        const k = this.pop();
        setItem(this, this.dict(this.top()), k, v);
        return;
      }
      default:
        this.refuse(op);
    }
  }

}
