import { setItem } from './pickle-machine.js';
import { BatchReader } from './entry-batches.js';
import { unpickle } from './pickle.js';
import { dictSet, type PickleDict, type PickleValue } from './pickle-value.js';
import { Decoded, FramesList, ReadAgain, STORED_LIST } from './raw-frames.js';
import type { DeviceTrace } from './snapshot.js';
import { DeviceTraces, Entry, TraceRows } from './trace-rows.js';
import type { FileWindow } from './file-window.js';

/** A snapshot's root value, and its device traces when they were read straight into columns. */
export interface SnapshotPickle {
  root: PickleValue;
  traces?: DeviceTrace[];
}

/**
 * The smallest pickle read the direct way. Below it the plain unpickler is faster: a file of a few
 * MB is read in less time than the direct reading's larger code takes to be compiled (on 2 shared
 * cores: 0.58x at 0.3 MB, 0.79x at 3 MB, 1.0x at 10 MB, 1.4x at 20 MB, 1.8x at 100 MB; see
 * bench/snapshot-load.mjs).
 */
export const DIRECT_MIN_BYTES = 10 * 1024 * 1024;

/**
 * Reads a snapshot pickle with `device_traces` decoded straight into columns: no dict per trace
 * entry, no array per frames list (each list stored once by content), so that a snapshot of hundreds
 * of MB reads at disk-like speed. Everything else is the plain unpickler's (same opcodes, same
 * refusals and limits, same plain data for the segments and settings). Where a file is shaped in a
 * way the direct reading does not follow, or fails any check, it is read again with the plain
 * unpickler, whose result and errors are the reference. A pickle under `minDirectBytes` is read by
 * the plain unpickler alone (see {@link DIRECT_MIN_BYTES}).
 */
export function unpickleSnapshot(buf: Uint8Array, file: string, minDirectBytes = DIRECT_MIN_BYTES): SnapshotPickle {
  if (buf.length < minDirectBytes) return { root: unpickle(buf, file) };
  try {
    return new SnapshotUnpickler(buf, file).read();
  } catch {
    return { root: unpickle(buf, file) };
  }
}

/**
 * The plain unpickler's machine, with the containers of the trace decoded: the root dict's
 * `device_traces` list, each device's list, each entry and its frames list are recognised by where
 * the pickler puts them (a list that is the value of the key just pushed, or a dict pushed above the
 * MARK of a trace list), as CPython's pickler writes them. A decoded container that reaches plain
 * data (a tuple, a plain list or dict, another key) or is referenced twice makes the file be read again.
 */
export class SnapshotUnpickler extends BatchReader {
  private root: PickleDict | undefined;
  private deviceTraces: DeviceTraces | undefined;
  /** The file's size. */
  private readonly totalBytes: number;

  /** `window`: the file held in part (`buf`: its bytes now; see file-window.ts), else `buf` is the whole input. */
  constructor(buf: Uint8Array, file: string, private readonly window?: FileWindow) {
    // Room for a memo entry per 96 bytes of the file (real snapshots store one per 60 to 130 bytes).
    super(buf, file, Math.floor((window ? window.size : buf.length) / 96));
    this.totalBytes = window ? window.size : buf.length;
    this.limit = window ? window.limit : buf.length;
  }

  read(): SnapshotPickle {
    // Frame references take 2 to 5 bytes each: room for them at once instead of growing by copies.
    this.raw.runs.reserve(Math.floor(this.totalBytes / 5));
    // And a table for a list per 512 bytes (a real entry's list takes hundreds), not rehashed as it fills.
    this.raw.runs.reserveRuns(Math.floor(this.totalBytes / 512));
    this.raw.source(this.buf, this.memo, this.totalBytes);
    if (this.window) this.raw.window = this.window;
    const result = this.load();
    const dt = this.deviceTraces;
    if (dt === undefined) return { root: result };
    const root = this.root as PickleDict;
    if (result !== root || !Object.prototype.hasOwnProperty.call(root, 'device_traces') || root['device_traces'] !== (dt as unknown)) {
      throw new ReadAgain('device_traces is not the root dict\'s');
    }
    if (dt.taken !== dt.made.length || dt.made.some((r) => r.taken !== r.created)) throw new ReadAgain('trace entries left out of their lists');
    const traces = dt.made.map((r) => r.finish(this.raw));
    dictSet(root, 'device_traces', []);
    return { root, traces };
  }

  /** The hot loop of `Unpickler.load`, with the containers of the trace read directly. */
  override load(): PickleValue {
    let buf = this.buf;
    let view = this.view;
    let end = buf.length;
    const stack = this.stack;
    const memo = this.memo;
    let pos = 0;
    while (pos < end) {
      if (pos > this.limit) {
        pos = this.advance(pos);
        buf = this.buf;
        view = this.view;
        end = buf.length;
      }
      this.at = pos;
      const op = (this.op = buf[pos++] as number);
      switch (op) {
        case 0x68: {
          // BINGET
          if (pos + 1 > end) this.truncated(1);
          const i = buf[pos++] as number;
          let v = memo[i];
          if (v === undefined) this.memoGet(i);
          if (v instanceof Decoded) v = this.reference(v, i);
          stack.push(v as PickleValue);
          break;
        }
        case 0x6a: {
          // LONG_BINGET
          if (pos + 4 > end) this.truncated(4);
          const i = view.getUint32(pos, true);
          pos += 4;
          let v = memo[i];
          if (v === undefined) this.memoGet(i);
          if (v instanceof Decoded) v = this.reference(v, i);
          stack.push(v as PickleValue);
          break;
        }
        case 0x94: // MEMOIZE
          this.memoPut(this.memoCount);
          break;
        case 0x28: {
          // MARK; above a frames list, its frames up to APPENDS are read in one go where they can be.
          const top = stack[stack.length - 1];
          if (top instanceof FramesList) {
            const after = this.raw.appendRun(top, buf, pos, memo);
            if (after >= 0) {
              pos = after;
              break;
            }
          }
          this.marks.push((this.floor = stack.length));
          break;
        }
        case 0x7d: {
          // EMPTY_DICT; a trace entry is read in one go where it can be.
          const d = this.newDict();
          stack.push(d);
          if (d instanceof Entry) {
            pos = this.entries(d.rows, pos);
            if (this.entriesHeld > 0) pos = this.afterBatch(d.rows, pos);
          }
          break;
        }
        case 0x5d: // EMPTY_LIST
          stack.push(this.newList());
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
          // Addresses (6 bytes) and microsecond times (7 bytes), non-negative and under 2^53, inline.
          if (n > 4 && n <= 8 && (buf[pos + n - 1] as number) < 0x80) {
            let hi = 0;
            for (let i = n - 1; i >= 4; i--) hi = hi * 256 + (buf[pos + i] as number);
            if (hi < 2 ** 21) {
              stack.push(hi * 4294967296 + view.getUint32(pos, true));
              pos += n;
              break;
            }
          }
          stack.push(this.long(pos, n));
          pos += n;
          break;
        }
        case 0x75: {
          // SETITEMS
          const m = this.popMark();
          if ((stack.length - m) % 2 !== 0) this.fail('SETITEMS with an odd number of items');
          this.setItems(this.below(m), m);
          stack.length = m;
          break;
        }
        case 0x65: // APPENDS
        case 0x90: {
          // ADDITEMS
          const m = this.popMark();
          this.appendItems(this.below(m), m);
          stack.length = m;
          break;
        }
        case 0x2e: // STOP
          if (stack.length === 0) this.fail('STOP with nothing on the stack');
          if (stack[stack.length - 1] instanceof Decoded) throw new ReadAgain('a decoded container as the whole file');
          return stack[stack.length - 1] as PickleValue;
        default:
          this.pos = pos;
          this.single(op);
          pos = this.pos;
      }
    }
    this.fail('the file ends without a STOP opcode', end);
  }

  /** Moves the window on to the opcode at `pos` (which then is at 0): its bytes before are let go. */
  private advance(pos: number): number {
    const w = this.window as FileWindow;
    this.buf = w.advance(pos);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.limit = w.limit;
    this.raw.moved(this.buf, w.base);
    this.forgetShortTexts();
    return 0;
  }

  /** The opcodes outside the hot loop: those that take values off the stack check them first. */
  private single(op: number): void {
    const stack = this.stack;
    const n = stack.length;
    switch (op) {
      case 0x61: // APPEND
        if (n - 1 > this.floor) {
          this.appendItems(stack[n - 2] as PickleValue, n - 1);
          stack.length = n - 1;
          return;
        }
        break;
      case 0x73: // SETITEM
        if (n - 2 > this.floor) {
          this.setItems(stack[n - 3] as PickleValue, n - 2);
          stack.length = n - 2;
          return;
        }
        break;
      case 0x32: // DUP
      case 0x85: // TUPLE1
        this.plain(Math.max(this.floor, n - 1), n);
        break;
      case 0x86: // TUPLE2
        this.plain(Math.max(this.floor, n - 2), n);
        break;
      case 0x87: // TUPLE3
        this.plain(Math.max(this.floor, n - 3), n);
        break;
      case 0x74: // TUPLE
      case 0x6c: // LIST
      case 0x91: // FROZENSET
      case 0x64: // DICT
        this.plain(this.floor, n);
        break;
      default:
    }
    this.other(op);
    // GET (text) reads the memo like BINGET.
    if (op === 0x67 && stack[stack.length - 1] instanceof Decoded) this.reference(stack[stack.length - 1] as unknown as Decoded, -1);
  }

  /** Values that become plain data must not be decoded containers. */
  private plain(from: number, to: number): void {
    const stack = this.stack;
    for (let i = from; i < to; i++) if (stack[i] instanceof Decoded) throw new ReadAgain('a decoded container inside plain data');
  }

  /**
   * A memo reference (to entry `i`) to a decoded container: only a complete (or skipped) frames list
   * may be shared (by entries); one held by its memo index comes back as an object.
   */
  private reference(v: Decoded, i: number): PickleValue {
    if (v === STORED_LIST) v = this.raw.listAt(i);
    if (!(v instanceof FramesList) || (v.raw < 0 && v.skipFrom < 0)) throw new ReadAgain('a decoded container referenced twice');
    return v as unknown as PickleValue;
  }

  /** EMPTY_DICT: the root, a trace entry (above a trace list's MARK, or on the list for APPEND), or a plain dict. */
  private newDict(): PickleValue {
    const stack = this.stack;
    const n = stack.length;
    if (n === 0 && this.root === undefined && this.marks.length === 0) {
      this.root = {};
      return this.root;
    }
    let rows: PickleValue | undefined = n > this.floor ? stack[n - 1] : undefined;
    if (!(rows instanceof TraceRows) && this.marks.length > 0) rows = stack[this.floor - 1];
    if (rows instanceof TraceRows) {
      rows.open();
      this.entryAt = n;
      return rows.entry as unknown as PickleValue;
    }
    return {};
  }

  /** EMPTY_LIST: an entry's frames, the root's device_traces, a device's trace list, or a plain list. */
  private newList(): PickleValue {
    const stack = this.stack;
    const n = stack.length;
    const f = this.floor;
    if (this.marks.length > 0 && n > f && (n - f) % 2 === 1) {
      // The value of the key on top, in a dict being filled.
      const d = stack[f - 1];
      const key = stack[n - 1];
      if (d instanceof Entry) {
        if (key === 'frames') return new FramesList() as unknown as PickleValue;
      } else if (d === this.root && d !== undefined && key === 'device_traces' && this.deviceTraces === undefined) {
        // A trace entry takes some 40 bytes without frames, hundreds with them: room for the
        // entries the rest of the file can hold at 64 bytes each (more grow as usual).
        this.deviceTraces = new DeviceTraces(Math.max(1024, Math.ceil((this.totalBytes - (this.window?.base ?? 0) - this.at) / 64)));
        return this.deviceTraces as unknown as PickleValue;
      }
    }
    let dt: PickleValue | undefined = n > f ? stack[n - 1] : undefined;
    if (!(dt instanceof DeviceTraces) && this.marks.length > 0) dt = stack[f - 1];
    if (dt instanceof DeviceTraces) return dt.newList() as unknown as PickleValue;
    return [];
  }

  /** SETITEMS/SETITEM: `stack[m ..]` as key, value pairs into `d`. */
  private setItems(d: PickleValue, m: number): void {
    const stack = this.stack;
    const n = stack.length;
    if (d instanceof Entry) {
      if (m - 1 !== this.entryAt) throw new ReadAgain('an entry filled after another one was begun');
      const rows = d.rows;
      const k = rows.created - 1;
      for (let i = m; i < n; i += 2) {
        const key = stack[i] as PickleValue;
        const v = stack[i + 1] as PickleValue;
        if (typeof key === 'string') rows.set(k, key, v, this.raw);
        else if ((typeof key === 'object' && key !== null) || v instanceof Decoded) throw new ReadAgain('an entry key that is not a string');
      }
      return;
    }
    if (d instanceof Decoded) throw new ReadAgain('items set on a decoded list');
    const dict = this.dict(d);
    for (let i = m; i < n; i += 2) {
      const key = stack[i] as PickleValue;
      const v = stack[i + 1] as PickleValue;
      if (key instanceof Decoded || (v instanceof Decoded && !(dict === this.root && key === 'device_traces' && v === (this.deviceTraces as unknown)))) {
        throw new ReadAgain('a decoded container inside plain data');
      }
      setItem(this, dict, key, v);
    }
  }

  /** APPENDS/ADDITEMS/APPEND: `stack[m ..]` appended to `c`. */
  private appendItems(c: PickleValue, m: number): void {
    const stack = this.stack;
    const n = stack.length;
    if (c instanceof FramesList) {
      this.raw.append(c, stack, m, n);
      return;
    }
    if (c instanceof TraceRows) {
      for (let i = m; i < n; i++) if (stack[i] !== (c.entry as unknown)) throw new ReadAgain('a trace list holding something other than its entries');
      c.take(n - m);
      return;
    }
    if (c instanceof DeviceTraces) {
      for (let i = m; i < n; i++) c.take(stack[i] as PickleValue);
      return;
    }
    if (c instanceof Decoded) throw new ReadAgain('items appended to a decoded dict');
    const list = this.list(c);
    const base = list.length;
    list.length = base + (n - m);
    for (let i = m; i < n; i++) {
      const v = stack[i] as PickleValue;
      if (v instanceof Decoded) throw new ReadAgain('a decoded container inside plain data');
      list[base + i - m] = v;
    }
  }
}
