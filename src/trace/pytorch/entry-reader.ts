import { Unpickler } from './pickle.js';
import type { PickleValue } from './pickle-value.js';
import { Decoded, FramesList, RawFrameLists, STORED_LIST } from './raw-frames.js';
import { actionCode } from './snapshot.js';
import { KEY_ACTION, KEY_ADDR, KEY_FRAMES, KEY_OTHER, KEY_TIME, keyCode, type TraceRows } from './trace-rows.js';
import { grown } from '../../util/typed-arrays.js';

/**
 * The plain unpickler with a fast path for the bulk of a snapshot: a trace entry dict read from its
 * bytes in one go (MEMOIZE, MARK, key, value pairs, SETITEMS), with no value pushed on the stack and
 * no opcode dispatched one by one. The path takes only what CPython's pickler writes for an entry:
 * keys that are memoized strings, values that are ints, floats, bools, None, strings (memoized or
 * not), memoized values, and a frames list of memoized frame dicts. At anything else it undoes what
 * it did (the memo entries it set, the frames list it began) and the opcodes are run one by one from
 * the entry's MARK, so that the result, and every error, is that of the opcodes.
 */
export abstract class EntryReader extends Unpickler {
  protected readonly raw = new RawFrameLists();
  /** Per memo index: the key code of the string there, and 1 + the action code (0: not known yet). */
  private keyOfMemo = new Uint8Array(1024);
  private actionOfMemo = new Uint8Array(1024);
  /** Memo entries set by the entry being read: index, and the value before (undefined: none). */
  private readonly undoIndex: number[] = [];
  private readonly undoValue: (PickleValue | undefined)[] = [];
  private undoCount = 0;
  /** A frames list object that nothing holds any more (see {@link storeList}), or null. */
  private spareList: FramesList | null = null;

  /** A memo reference run as an opcode: a stored frames list comes back as an object (see RawFrameLists.store). */
  protected override memoGet(i: number): PickleValue {
    const v = super.memoGet(i);
    return v === (STORED_LIST as unknown) ? (this.raw.listAt(i) as unknown as PickleValue) : v;
  }

  protected override memoPut(i: number): void {
    super.memoPut(i);
    this.forget(i);
  }

  /** Memo entry `i` was stored again: what is known of it no longer holds. */
  private forget(i: number): void {
    this.raw.forget(i);
    if (i < this.keyOfMemo.length) {
      this.keyOfMemo[i] = 0;
      this.actionOfMemo[i] = 0;
    }
  }

  /** The key code of memo entry `i`, or 0 when it is not a string. */
  private keyAt(i: number): number {
    if (i < this.keyOfMemo.length) {
      const c = this.keyOfMemo[i] as number;
      if (c !== 0) return c;
    }
    const v = this.memo[i];
    if (typeof v !== 'string') return 0;
    const c = keyCode(v);
    if (i >= this.keyOfMemo.length) this.growCaches(i + 1);
    this.keyOfMemo[i] = c;
    return c;
  }

  /** The action code of the string in memo entry `i` (which is one). */
  private actionAt(i: number, v: string): number {
    if (i < this.actionOfMemo.length) {
      const c = this.actionOfMemo[i] as number;
      if (c !== 0) return c - 1;
    }
    const a = actionCode(v);
    if (i >= this.actionOfMemo.length) this.growCaches(i + 1);
    this.actionOfMemo[i] = a + 1;
    return a;
  }

  private growCaches(n: number): void {
    const size = Math.max(n, this.keyOfMemo.length * 2);
    this.keyOfMemo = grown(this.keyOfMemo, size);
    this.actionOfMemo = grown(this.actionOfMemo, size);
  }

  /** The frames list begun by the entry being read (for {@link undoEntry}), or null. */
  private entryList: FramesList | null = null;

  /**
   * Reads the rest of a trace entry of `rows`, whose EMPTY_DICT ended at `pos` (the entry is on the
   * stack): returns the position after its SETITEMS, or -1, after which the caller must call
   * {@link undoEntry}. Fields are set as they are read: where the opcodes then run from the MARK,
   * they set the same fields again.
   *
   * Every way out of an entry that is not read here is a plain `return -1`, and a FRAME opcode
   * inside an entry is one of them (the opcodes then read it): code that runs only for a rare
   * shape of the bytes would have no type feedback when V8 optimizes this large function, and the
   * first time it ran the optimized code would be thrown away and compiled again (each time a
   * different such place is reached, hundreds of ms of compiling on a real snapshot).
   */
  protected readEntry(rows: TraceRows, pos: number): number {
    const buf = this.buf;
    const view = this.view;
    const end = buf.length;
    const memo = this.memo;
    const raw = this.raw;
    const k = rows.created - 1;
    this.undoCount = 0;
    this.entryList = null;
    let list: FramesList | null = null;
    let p = this.memoAfter(pos, rows.entry as unknown as PickleValue);
    if (p < 0 || p >= end || buf[p] !== 0x28) return -1;
    p++;
    for (;;) {
      if (p >= end) return -1;
      // The key: a memoized string, or the SETITEMS that ends the entry.
      let op = buf[p] as number;
      let ki: number;
      if (op === 0x68 && p + 2 <= end) {
        ki = buf[p + 1] as number;
        p += 2;
      } else if (op === 0x6a && p + 5 <= end) {
        ki = view.getUint32(p + 1, true);
        p += 5;
      } else if (op === 0x75) {
        return p + 1;
      } else {
        return -1;
      }
      const code = this.keyAt(ki);
      if (code === 0 || p >= end) return -1;
      op = buf[p++] as number;
      // A number, set straight into its column where the key is one of the numeric fields.
      let num = 0;
      let v: PickleValue;
      switch (op) {
        case 0x4b: // BININT1
          if (p + 1 > end) return -1;
          num = buf[p++] as number;
          break;
        case 0x4d: // BININT2
          if (p + 2 > end) return -1;
          num = (buf[p] as number) | ((buf[p + 1] as number) << 8);
          p += 2;
          break;
        case 0x4a: // BININT
          if (p + 4 > end) return -1;
          num = (buf[p] as number) | ((buf[p + 1] as number) << 8) | ((buf[p + 2] as number) << 16) | ((buf[p + 3] as number) << 24);
          p += 4;
          break;
        case 0x8a: {
          // LONG1: addresses (6 bytes) and microsecond times (7 bytes), non-negative and under 2^53, inline.
          if (p + 1 > end) return -1;
          const n = buf[p++] as number;
          if (p + n > end) return -1;
          if (n > 4 && n <= 8 && (buf[p + n - 1] as number) < 0x80) {
            let hi = 0;
            for (let i = n - 1; i >= 4; i--) hi = hi * 256 + (buf[p + i] as number);
            if (hi < 2 ** 21) {
              num = hi * 4294967296 + view.getUint32(p, true);
              p += n;
              break;
            }
          }
          v = this.long(p, n);
          p += n;
          this.setValue(rows, k, code, memo[ki] as string, v);
          if (isMemoStore(buf[p])) p = this.memoAfter(p, v);
          if (p < 0) return -1;
          continue;
        }
        case 0x68: // BINGET
        case 0x6a: {
          // LONG_BINGET
          let i: number;
          if (op === 0x68) {
            if (p + 1 > end) return -1;
            i = buf[p++] as number;
          } else {
            if (p + 4 > end) return -1;
            i = view.getUint32(p, true);
            p += 4;
          }
          let m = memo[i];
          if (m === (STORED_LIST as unknown)) {
            // A complete frames list taken by an earlier entry (the frames of a free_completed are
            // its free_requested's), by its memo index.
            if (code === KEY_FRAMES && !isMemoStore(buf[p])) {
              if (raw.isSkippedAt(i) && rows.needsNoFrames(k)) rows.setFramesSkipped(k);
              else rows.setFramesRaw(k, raw.sealAt(i));
              continue;
            }
            m = raw.listAt(i) as unknown as PickleValue;
          }
          // A decoded container may be referenced only as a complete frames list.
          if (m === undefined || (m instanceof Decoded && (!(m instanceof FramesList) || (m.raw < 0 && m.skipFrom < 0)))) return -1;
          if (code === KEY_ACTION && typeof m === 'string') rows.setAction(k, this.actionAt(i, m), m);
          else if (code === KEY_FRAMES && m instanceof FramesList && m.skipFrom >= 0 && rows.needsNoFrames(k)) rows.setFramesSkipped(k);
          else if (code !== KEY_OTHER || typeof m === 'object') rows.set(k, memo[ki] as string, m, raw);
          if (isMemoStore(buf[p])) p = this.memoAfter(p, m);
          if (p < 0) return -1;
          continue;
        }
        case 0x5d: {
          // EMPTY_LIST: the entry's frames (a list as another key's value is left to the opcodes).
          if (code !== KEY_FRAMES || list !== null) return -1;
          list = this.spareList ?? new FramesList();
          p = this.readFrames(rows, k, list, p);
          if (p < 0) return -1;
          continue;
        }
        default: {
          const at = this.scalar(op, p);
          if (at < 0) return -1;
          v = this.scalarValue;
          p = at;
          this.setValue(rows, k, code, memo[ki] as string, v);
          if (isMemoStore(buf[p])) p = this.memoAfter(p, v);
          if (p < 0) return -1;
          continue;
        }
      }
      if (code >= KEY_ADDR && code <= KEY_TIME) rows.setNumber(k, code, num);
      else if (code !== KEY_OTHER) rows.set(k, memo[ki] as string, num, raw);
      if (isMemoStore(buf[p])) p = this.memoAfter(p, num);
      if (p < 0) return -1;
    }
  }

  /**
   * The frames of entry `k` into `list` (empty, from the spare or new), after its EMPTY_LIST at `p`:
   * the position after them, or -1 (see {@link readEntry}). A function of its own, so that V8
   * compiles {@link readEntry} and it apart, each smaller.
   */
  private readFrames(rows: TraceRows, k: number, list: FramesList, p: number): number {
    const buf = this.buf;
    const end = buf.length;
    const memo = this.memo;
    const raw = this.raw;
    this.spareList = null;
    list.reset();
    this.entryList = list;
    const stores = this.undoCount;
    p = this.memoAfter(p, list as unknown as PickleValue);
    if (p < 0) return -1;
    if (rows.needsNoFrames(k)) {
      // An entry whose stack is never asked for: its frames are checked, not stored.
      const from = p;
      for (;;) {
        const q = this.skipFrames(p);
        if (q < 0 || q >= end || buf[q] !== 0x28) break;
        const after = raw.skipRun(buf, q + 1, memo);
        if (after < 0) return -1;
        p = after;
      }
      raw.skip(list, from, p);
      rows.setFramesSkipped(k);
      this.storeList(stores, list);
      return p;
    }
    // Its frames, in batches of MARK, memo references, APPENDS.
    for (;;) {
      const q = this.skipFrames(p);
      if (q < 0 || q >= end || buf[q] !== 0x28) break;
      const after = raw.appendRun(list, buf, q + 1, memo);
      if (after < 0) return -1;
      p = after;
    }
    rows.setFramesRaw(k, raw.seal(list));
    this.storeList(stores, list);
    return p;
  }

  /** The value of {@link scalar}. */
  private scalarValue: PickleValue = null;

  /** A string, float, bool or None at `p` (after its opcode `op`) into {@link scalarValue}: the position after it, or -1. */
  private scalar(op: number, p: number): number {
    const buf = this.buf;
    switch (op) {
      case 0x8c: {
        // SHORT_BINUNICODE
        if (p + 1 > buf.length) return -1;
        const n = buf[p] as number;
        if (p + 1 + n > buf.length) return -1;
        this.scalarValue = this.utf8(p + 1, n);
        return p + 1 + n;
      }
      case 0x88: // NEWTRUE
        this.scalarValue = true;
        return p;
      case 0x89: // NEWFALSE
        this.scalarValue = false;
        return p;
      case 0x4e: // NONE
        this.scalarValue = null;
        return p;
      case 0x47: // BINFLOAT
        if (p + 8 > buf.length) return -1;
        this.scalarValue = this.view.getFloat64(p, false);
        return p + 8;
      default:
        return -1;
    }
  }

  /** Sets a field to a value that is not a plain number. */
  private setValue(rows: TraceRows, k: number, code: number, key: string, v: PickleValue): void {
    // A field the rows do not keep: nothing to check either (the value is not a decoded container).
    if (code === KEY_OTHER) return;
    if (code === KEY_ACTION && typeof v === 'string') rows.setAction(k, actionCode(v), v);
    else rows.set(k, key, v, this.raw);
  }
  /** Past the FRAME opcodes at `p` (each must lie within the file), or -1. */
  private skipFrames(p: number): number {
    const buf = this.buf;
    while (p < buf.length && buf[p] === 0x95) {
      if (p + 9 > buf.length) return -1;
      const lo = ((buf[p + 1] as number) | ((buf[p + 2] as number) << 8) | ((buf[p + 3] as number) << 16)) + (buf[p + 4] as number) * 16777216;
      const hi = ((buf[p + 5] as number) | ((buf[p + 6] as number) << 8) | ((buf[p + 7] as number) << 16)) + (buf[p + 8] as number) * 16777216;
      if (hi > 0 || lo > buf.length - (p + 9)) return -1;
      p += 9;
    }
    return p;
  }

  /** Past the memo stores of `v` at `p` (MEMOIZE, BINPUT, LONG_BINPUT, each done and noted for undoing), or -1. */
  private memoAfter(p: number, v: PickleValue): number {
    const buf = this.buf;
    const end = buf.length;
    for (;;) {
      p = this.skipFrames(p);
      if (p < 0 || p >= end) return p;
      const op = buf[p] as number;
      let i: number;
      if (op === 0x94) {
        i = this.memoCount;
        p += 1;
      } else if (op === 0x71 && p + 2 <= end) {
        i = buf[p + 1] as number;
        p += 2;
      } else if (op === 0x72 && p + 5 <= end) {
        i = this.view.getUint32(p + 1, true);
        p += 5;
      } else {
        return p;
      }
      if (i > 0x7fffffff) return -1;
      const memo = this.memo;
      const old = memo[i];
      this.undoIndex[this.undoCount] = i;
      this.undoValue[this.undoCount++] = old;
      memo[i] = v;
      // An entry that held nothing has nothing known of it (undo forgets what it takes back).
      if (old === undefined) this.memoCount++;
      else this.forget(i);
    }
  }

  /**
   * The memo entries that the entry being read stored `list` in (those from undo record `from` on
   * that held nothing before) hold it as RawFrameLists.store does.
   */
  private storeList(from: number, list: FramesList): void {
    let held = false;
    for (let j = from; j < this.undoCount; j++) {
      const i = this.undoIndex[j] as number;
      if (this.memo[i] !== (list as unknown)) continue;
      if (this.undoValue[j] === undefined) this.raw.store(i, list);
      else held = true;
    }
    // Nothing holds the object now (the memo holds the list by its index, the rows by its number):
    // the next entry's frames use it again, instead of one object per entry for the collector.
    if (!held) this.spareList = list;
  }

  /** Takes back the memo entries set and the frames list begun by an entry that {@link readEntry} read in part. */
  protected undoEntry(): void {
    const list = this.entryList;
    this.entryList = null;
    const memo = this.memo;
    for (let j = this.undoCount - 1; j >= 0; j--) {
      const i = this.undoIndex[j] as number;
      const old = this.undoValue[j];
      if (old === undefined) this.memoCount--;
      memo[i] = old as PickleValue;
      this.forget(i);
    }
    if (list !== null) this.raw.abandon(list);
  }
}

/** MEMOIZE, BINPUT or LONG_BINPUT: what may come between a value and the next key (a FRAME there is left to the opcodes). */
function isMemoStore(op: number | undefined): boolean {
  return op === 0x94 || op === 0x71 || op === 0x72;
}
