import type { PickleDict, PickleValue } from './pickle-value.js';
import { HASH_START, RunIndex } from './run-index.js';
import { growColumn } from '../columns.js';
import type { FileWindow } from './file-window.js';

/**
 * A container that the snapshot unpickler (snapshot-unpickler.ts) fills in its own form instead of
 * building plain data: the `device_traces` list, a device's trace list, a trace entry, an entry's
 * frames list. None of them may end up inside plain data; where a file would put one there, the
 * snapshot is read again by the plain unpickler (see {@link ReadAgain}).
 */
export abstract class Decoded {}

/**
 * Thrown where a file is shaped in a way the direct decoding does not follow (a trace entry shared by
 * two lists, a frames list changed after an entry took it, …): the caller reads the file again with
 * the plain unpickler and the checks of snapshot.ts, which give the result (or the error) for any file.
 */
export class ReadAgain extends Error {}

/** Where a frame dict's number among the frames of {@link RawFrameLists} is kept (not a dict key). */
const FRAME_NUMBER = Symbol('frame number');

type Numbered = PickleDict & { [FRAME_NUMBER]?: number };

/** A trace entry's frames list while it is read (its elements follow the stored lists), then a list number. */
export class FramesList extends Decoded {
  /** The list's number once an entry has taken it (-1 before). */
  raw = -1;
  length = 0;
  /** Hash of the elements so far (see RunIndex.addHashed). */
  hash = HASH_START;
  /**
   * A complete list whose frames were checked but not stored (see {@link RawFrameLists.skip}): the
   * bytes of its batches, [skipFrom, skipTo) as offsets in the file, and the memo's state then;
   * skipFrom -1: not skipped.
   */
  skipFrom = -1;
  skipTo = 0;
  stamp = 0;

  /** Back to a new, empty list (for an object that nothing holds any more). */
  reset(): void {
    this.raw = -1;
    this.length = 0;
    this.hash = HASH_START;
    this.skipFrom = -1;
    this.skipTo = 0;
    this.stamp = 0;
  }
}

/**
 * What a memo entry holds for a complete frames list that an entry took (see
 * {@link RawFrameLists.store}): the list is known by its memo index alone, so that the hundreds of
 * thousands of lists of a large snapshot leave no object behind for the collector to keep and trace.
 */
class StoredList extends Decoded {}
export const STORED_LIST: Decoded = new StoredList();

/**
 * The frames lists of the trace entries, each stored once by content: list `r` is the frame numbers
 * `runs.data[runs.start[r] .. runs.start[r + 1])`, frame `f` the dict `objects[f]` (0: an element
 * that is not a dict). Frames are numbered by identity, as the plain path caches them: a stack follows
 * from the list's frames in order, so lists with the same frames have the same stack (StackTable.ofRaw).
 */
export class RawFrameLists {
  readonly runs = new RunIndex(true, true);
  readonly objects: (PickleDict | null)[] = [null];
  /** Frame number + 1 of the dict in each memo entry that {@link appendRun} met (0: not known). */
  private byMemo: Int32Array = new Int32Array(0);
  /** The list being filled (its elements are after the stored lists), or null. */
  private open: FramesList | null = null;
  /** How many times a memo entry that held a known frame was stored again (see {@link skip}). */
  private overwrites = 0;
  /**
   * Per memo index holding {@link STORED_LIST}: the list's number, or -1 - k for a skipped list, whose
   * bytes and memo state (as in {@link FramesList}) are entry k of the skipped ones (one slot per
   * skipped list, not per memo index).
   */
  private storedRaw: Int32Array = new Int32Array(0);
  private skippedFrom: Int32Array = new Int32Array(0);
  private skippedTo: Int32Array = new Int32Array(0);
  private skippedStamp: Uint32Array = new Uint32Array(0);
  private skippedCount = 0;
  /** The pickle (or the part held now, from file offset `base`) and memo of the skipped lists, to read them when they are needed after all. */
  private buf: Uint8Array = new Uint8Array(0);
  private base = 0;
  private memo: PickleValue[] = [];
  /** The file, where only part of it is held (see file-window.ts). */
  window: FileWindow | undefined;

  private view: DataView = new DataView(new ArrayBuffer(0));

  /** The pickle (of `totalBytes` in all, `buf` its start) and memo the lists are read from (for {@link skip}). */
  source(buf: Uint8Array, memo: PickleValue[], totalBytes = buf.length): void {
    this.moved(buf, 0);
    this.memo = memo;
    // Room for the memo indices of a file that memoizes once per 16 bytes (real snapshots: once per
    // 60 to 130), so that the tables do not grow while the reading runs optimized: growing is code
    // that would have run too rarely to have type feedback, whose first run throws the optimized
    // code away. Pages never written cost no memory.
    const indices = Math.floor(totalBytes / 16);
    if (indices > this.byMemo.length) this.byMemo = grow(this.byMemo, indices);
    if (indices > this.storedRaw.length) this.storedRaw = grow(this.storedRaw, indices);
    // And for a skipped list per 256 bytes (real ones take hundreds), not grown by copies as they come.
    const skipped = Math.floor(totalBytes / 256);
    if (skipped > this.skippedFrom.length) {
      this.skippedFrom = grow(this.skippedFrom, skipped);
      this.skippedTo = grow(this.skippedTo, skipped);
      this.skippedStamp = grow(this.skippedStamp, skipped);
    }
  }

  /** The part of the pickle held is `buf`, from file offset `base` on. */
  moved(buf: Uint8Array, base: number): void {
    this.buf = buf;
    this.base = base;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** A view of `buf` for its 32-bit numbers (memo indices of LONG_BINGET): one load instead of four. */
  private viewOf(buf: Uint8Array): DataView {
    if (buf !== this.buf) return new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    return this.view;
  }

  /** Where the next elements of `list` go, or -1 when it cannot take any now. */
  private tail(list: FramesList): number {
    if (list.raw >= 0 || list.skipFrom >= 0 || (this.open !== list && (this.open !== null || list.length > 0))) return -1;
    return this.runs.end + list.length;
  }

  /** Appends `stack[from .. to)` to `list`. */
  append(list: FramesList, stack: PickleValue[], from: number, to: number): void {
    if (to <= from) return;
    const at = this.tail(list);
    if (at < 0) throw new ReadAgain('a frames list changed after an entry took it, or two filled at once');
    this.runs.reserve(at + (to - from));
    let ids = this.runs.data;
    let h = list.hash;
    for (let i = from; i < to; i++) {
      const v = stack[i];
      let f = 0;
      if (typeof v === 'object' && v !== null) {
        f = (v as Numbered)[FRAME_NUMBER] ?? this.number(v);
        // The first frame numbered 2^16: the numbers are held in 32 bits from now on.
        if (f > 0xffff && ids instanceof Uint16Array) {
          this.runs.widen(at + (to - from));
          ids = this.runs.data;
        }
      }
      ids[at + i - from] = f;
      h = Math.imul(h ^ f, 16777619);
    }
    list.hash = h;
    this.open = list;
    list.length += to - from;
  }

  /**
   * MARK, then BINGET/LONG_BINGET of frame dicts already numbered, then APPENDS, read straight from
   * the bytes at `pos` (just after the MARK) into `list`: returns the position after the APPENDS, or
   * -1 (nothing done) where anything else comes, for the opcodes to be run one by one.
   */
  appendRun(list: FramesList, buf: Uint8Array, pos: number, memo: PickleValue[]): number {
    const at = this.tail(list);
    if (at < 0) return -1;
    const end = buf.length;
    const view = this.viewOf(buf);
    let data = this.runs.data;
    let known = this.byMemo;
    let h = list.hash;
    let n = 0;
    let p = pos;
    for (;;) {
      if (p >= end) return -1;
      const op = buf[p] as number;
      let i: number;
      if (op === 0x6a && p + 5 <= end) {
        i = view.getUint32(p + 1, true);
        p += 5;
      } else if (op === 0x68 && p + 2 <= end) {
        i = buf[p + 1] as number;
        p += 2;
      } else if (op === 0x65) {
        break;
      } else {
        return -1;
      }
      let f = i < known.length ? (known[i] as number) - 1 : -1;
      if (f < 0) {
        const v = memo[i];
        if (typeof v !== 'object' || v === null) return -1;
        const g = (v as Numbered)[FRAME_NUMBER];
        if (g === undefined) return -1;
        f = g;
        if (i >= known.length) known = this.growKnown(Math.max(i + 1, memo.length));
        known[i] = f + 1;
      }
      if (at + n >= data.length) {
        this.runs.reserve(at + n + 1);
        data = this.runs.data;
      }
      data[at + n++] = f;
      h = Math.imul(h ^ f, 16777619);
    }
    if (n > 0) {
      this.open = list;
      list.length += n;
      list.hash = h;
    }
    return p + 1;
  }

  /**
   * MARK, then BINGET/LONG_BINGET of frame dicts already numbered, then APPENDS, at `pos` (just after
   * the MARK), checked as {@link appendRun} reads them but stored nowhere: the position after the
   * APPENDS, or -1 where {@link appendRun} would refuse them. For the frames of an entry whose stack
   * is never asked for (any action but alloc).
   */
  skipRun(buf: Uint8Array, pos: number, memo: PickleValue[]): number {
    const end = buf.length;
    const view = this.viewOf(buf);
    let known = this.byMemo;
    let p = pos;
    for (;;) {
      if (p >= end) return -1;
      const op = buf[p] as number;
      let i: number;
      if (op === 0x6a && p + 5 <= end) {
        i = view.getUint32(p + 1, true);
        p += 5;
      } else if (op === 0x68 && p + 2 <= end) {
        i = buf[p + 1] as number;
        p += 2;
      } else if (op === 0x65) {
        return p + 1;
      } else {
        return -1;
      }
      if (i < known.length && (known[i] as number) > 0) continue;
      const v = memo[i];
      if (typeof v !== 'object' || v === null) return -1;
      const g = (v as Numbered)[FRAME_NUMBER];
      if (g === undefined) return -1;
      if (i >= known.length) known = this.growKnown(Math.max(i + 1, memo.length));
      known[i] = g + 1;
    }
  }

  /**
   * Records `list` (empty, not being filled) as complete with the frames of the batches in bytes
   * [from, to), each checked by {@link skipRun}: nothing is stored unless the list is needed after
   * all ({@link seal}), when they are read as long as the memo entries they name still hold the same frames.
   */
  skip(list: FramesList, from: number, to: number): void {
    list.skipFrom = this.base + from;
    list.skipTo = this.base + to;
    list.stamp = this.overwrites;
  }

  /** Reads the frames of a skipped list into it (see {@link skip}). */
  private unskip(list: FramesList): void {
    if (this.open !== null || list.stamp !== this.overwrites) throw new ReadAgain('a skipped frames list needed after its frames were stored again');
    let buf = this.buf;
    let p = list.skipFrom - this.base;
    let end = list.skipTo - this.base;
    if (p < 0 || end > buf.length) {
      // Bytes the window has moved past: read from the file again.
      if (this.window === undefined) throw new ReadAgain('a skipped frames list outside the input');
      buf = this.window.read(list.skipFrom, list.skipTo);
      p = 0;
      end = buf.length;
    }
    list.skipFrom = -1;
    while (p < end) {
      while (buf[p] === 0x95) p += 9;
      if (buf[p] !== 0x28) throw new ReadAgain('a skipped frames list read again differently');
      p = this.appendRun(list, buf, p + 1, this.memo);
      if (p < 0) throw new ReadAgain('a skipped frames list read again differently');
    }
  }

  /** Drops `list` as the list being filled (its elements written so far are left out). */
  abandon(list: FramesList): void {
    if (this.open === list) this.open = null;
  }

  /** A memo entry was stored again: its frame number no longer holds. */
  forget(i: number): void {
    if (i < this.byMemo.length && this.byMemo[i] !== 0) {
      this.byMemo[i] = 0;
      this.overwrites++;
    }
  }

  private growKnown(n: number): Int32Array {
    return (this.byMemo = grow(this.byMemo, Math.max(n, this.byMemo.length * 2)));
  }

  /** A frame number for an element that has none yet (0 for one that is not a dict). */
  private number(v: object): number {
    if (v instanceof Decoded) throw new ReadAgain('a frames list holds a decoded container');
    if (Array.isArray(v) || v instanceof Uint8Array) return 0;
    const f = this.objects.length;
    this.objects.push(v as PickleDict);
    (v as Numbered)[FRAME_NUMBER] = f;
    return f;
  }

  /**
   * Memo entry `i`, which held `list` (complete: sealed or skipped) and nothing before the entry
   * that made it, holds {@link STORED_LIST} from now on; the list object is let go.
   */
  store(i: number, list: FramesList): void {
    if (i >= this.storedRaw.length) this.storedRaw = grow(this.storedRaw, Math.max(i + 1, this.storedRaw.length * 2, 1024));
    if (list.raw >= 0) {
      this.storedRaw[i] = list.raw;
    } else {
      const k = this.skippedCount++;
      if (k === this.skippedFrom.length) {
        const n = Math.max(1024, k * 2);
        this.skippedFrom = grow(this.skippedFrom, n);
        this.skippedTo = grow(this.skippedTo, n);
        this.skippedStamp = grow(this.skippedStamp, n);
      }
      this.skippedFrom[k] = list.skipFrom;
      this.skippedTo[k] = list.skipTo;
      this.skippedStamp[k] = list.stamp;
      this.storedRaw[i] = -1 - k;
    }
    this.memo[i] = STORED_LIST as unknown as PickleValue;
  }

  /** Whether the list that memo entry `i` holds as {@link STORED_LIST} is a skipped one. */
  isSkippedAt(i: number): boolean {
    return (this.storedRaw[i] as number) < 0;
  }

  /** The list that memo entry `i` holds as {@link STORED_LIST}, as an object again (which the entry then holds). */
  listAt(i: number): FramesList {
    const list = new FramesList();
    const r = this.storedRaw[i] as number;
    if (r >= 0) {
      list.raw = r;
    } else {
      list.skipFrom = this.skippedFrom[-1 - r] as number;
      list.skipTo = this.skippedTo[-1 - r] as number;
      list.stamp = this.skippedStamp[-1 - r] as number;
    }
    this.memo[i] = list as unknown as PickleValue;
    return list;
  }

  /** {@link seal} of the list that memo entry `i` holds as {@link STORED_LIST}. */
  sealAt(i: number): number {
    const r = this.storedRaw[i] as number;
    if (r >= 0) return r;
    const raw = this.seal(this.listAt(i));
    this.storedRaw[i] = raw;
    this.memo[i] = STORED_LIST as unknown as PickleValue;
    return raw;
  }

  /** The number of a complete list (when an entry takes it): an equal stored list's, else a new one. */
  seal(list: FramesList): number {
    if (list.raw >= 0) return list.raw;
    if (list.skipFrom >= 0) this.unskip(list);
    if (this.open !== list && this.open !== null) throw new ReadAgain('a frames list taken while another is filled');
    this.open = null;
    list.raw = this.runs.addHashed(list.length, list.hash);
    return list.raw;
  }
}

/**
 * `a` with room for `n` entries (more than it has), its entries kept: grown in place in a growable
 * shared buffer (see columns.ts), which the runtime does not count as this thread's memory (tables of
 * tens of MB made at once would set off garbage collections).
 */
function grow<T extends Int32Array | Uint32Array>(a: T, n: number): T {
  return growColumn(a, n);
}
