import type { PickleValue } from './pickle-value.js';
import { Decoded, FramesList, RawFrameLists, ReadAgain } from './raw-frames.js';
import { A_ALLOC, A_OOM, A_OTHER, A_SEGMENT_ALLOC, A_SEGMENT_UNMAP, A_SNAPSHOT, actionCode, type DeviceTrace } from './snapshot.js';
import { growColumn, newColumn } from '../columns.js';

/** A trace entry being read: the rows' current one (one object per device list, not one per entry). */
export class Entry extends Decoded {
  constructor(readonly rows: TraceRows) {
    super();
  }
}

/** `device_traces` while it is read: the devices' trace lists, in the order they are appended. */
export class DeviceTraces extends Decoded {
  readonly made: TraceRows[] = [];
  taken = 0;

  /** `firstRows`: room the first list makes at once (the one device of most snapshots). */
  constructor(private readonly firstRows = 1024) {
    super();
  }

  newList(): TraceRows {
    const r = new TraceRows(this.made.length === 0 ? this.firstRows : 1024);
    this.made.push(r);
    return r;
  }

  /** Appends `v`, which must be the next list made. */
  take(v: PickleValue): void {
    if ((v as unknown) !== this.made[this.taken]) throw new ReadAgain('device_traces holds something other than its trace lists, in order');
    this.taken++;
  }
}

/** Entry keys by code (see {@link keyCode}): those the rows keep, and any other (KEY_OTHER). */
export const KEY_OTHER = 1;
export const KEY_ACTION = 2;
export const KEY_ADDR = 3;
export const KEY_SIZE = 4;
export const KEY_STREAM = 5;
export const KEY_TIME = 6;
export const KEY_FRAMES = 7;
export const KEY_DEVICE_FREE = 8;

const KEYS = new Map<string, number>([
  ['action', KEY_ACTION],
  ['addr', KEY_ADDR],
  ['size', KEY_SIZE],
  ['stream', KEY_STREAM],
  ['time_us', KEY_TIME],
  ['frames', KEY_FRAMES],
  ['device_free', KEY_DEVICE_FREE],
]);

/** The code of an entry key. */
export function keyCode(key: string): number {
  return KEYS.get(key) ?? KEY_OTHER;
}

/** A frames list of an entry that needs none (see RawFrameLists.skip). */
const FRAMES_SKIPPED = -3;
/** `action` missing or not a string. */
const NO_ACTION = 255;
/** Which of `addr`, `size`, `stream` an entry has, and which of them are not numbers. */
const HAS_ADDR = 1;
const HAS_SIZE = 2;
const HAS_STREAM = 4;
const BAD_ADDR = 8;
const BAD_SIZE = 16;
const BAD_STREAM = 32;

/**
 * One device's trace list, read straight into columns: an entry dict is a row (its fields as they
 * are set, checked when the whole file has been read), its frames list a number of
 * {@link RawFrameLists}. The checks are those of `traceColumns` (snapshot.ts); an entry that fails
 * them makes the file be read again the plain way, which reports it with its path.
 */
export class TraceRows extends Decoded {
  readonly entry = new Entry(this);
  /** Entries begun, and entries appended to the list (all of them, in a file that is read this way). */
  created = 0;
  taken = 0;
  private action: Uint8Array;
  private flags: Uint8Array;
  private addr: Float64Array;
  private size: Float64Array;
  private stream: Float64Array;
  private time: Float64Array;
  /**
   * Raw frames list number; -1: no frames; -2: a value that is not a list read directly (in
   * `plainFrames`); FRAMES_SKIPPED: a list not stored.
   */
  private frames: Int32Array;
  /** Whether a stream other than 0 was set (false: the stream column was never written, nor need be read). */
  private hasStreams = false;
  /**
   * Of the rows checked so far (see {@link check}): other actions by name, allocs, and whether the
   * allocs name raw lists in order (a later alloc names the same list or a later one).
   */
  private readonly otherActions = new Map<string, number>();
  private allocs = 0;
  private ordered = true;
  private lastList = -1;
  private readonly plainFrames = new Map<number, PickleValue>();
  private readonly otherName = new Map<number, string>();
  private readonly deviceFree = new Map<number, PickleValue>();

  /**
   * `rows`: room for that many entries at once (columns not yet written cost address space, not
   * memory), so that a large list does not grow by copies. The columns are growable shared buffers
   * (see columns.ts), which the runtime does not count as memory of this thread: tens of MB of plain
   * buffers made at once would set off garbage collections, a full one among them.
   */
  constructor(rows = 1024) {
    super();
    this.action = newColumn(Uint8Array, rows);
    this.flags = newColumn(Uint8Array, rows);
    this.addr = newColumn(Float64Array, rows);
    this.size = newColumn(Float64Array, rows);
    this.stream = newColumn(Float64Array, rows);
    this.time = newColumn(Float64Array, rows);
    this.frames = newColumn(Int32Array, rows);
  }

  /** Begins an entry; returns its row. */
  open(): number {
    const k = this.created++;
    if (k === this.action.length) this.grow(k * 2);
    this.action[k] = NO_ACTION;
    this.flags[k] = 0;
    this.time[k] = NaN;
    this.frames[k] = -1;
    return k;
  }

  /**
   * `count` entries appended: they must be all those begun and not yet appended. Appended, an entry
   * is complete (nothing can reach it any more but the list): its row is checked now, batch by batch,
   * in code that runs often enough to be optimized early, rather than in one pass over every row at
   * the end, which would run mostly unoptimized.
   */
  take(count: number): void {
    if (this.taken + count !== this.created) throw new ReadAgain('trace entries appended out of the order they were made');
    this.check(this.taken, this.created);
    this.taken = this.created;
  }

  /** Sets field `key` of entry `k` (a later value of the same key replaces an earlier one, as in a dict). */
  set(k: number, key: string, v: PickleValue, raw: RawFrameLists): void {
    switch (key) {
      case 'action':
        if (typeof v === 'string') {
          const a = actionCode(v);
          this.action[k] = a;
          if (a === A_OTHER) this.otherName.set(k, v);
        } else {
          this.action[k] = NO_ACTION;
        }
        return;
      case 'addr':
        this.number(k, v, this.addr, HAS_ADDR, BAD_ADDR);
        return;
      case 'size':
        this.number(k, v, this.size, HAS_SIZE, BAD_SIZE);
        return;
      case 'stream':
        this.number(k, v, this.stream, HAS_STREAM, BAD_STREAM);
        return;
      case 'time_us':
        this.time[k] = typeof v === 'number' ? v : NaN;
        return;
      case 'frames':
        if (v instanceof FramesList) {
          this.frames[k] = raw.seal(v);
        } else {
          if (v instanceof Decoded) throw new ReadAgain('frames that are a decoded container');
          this.frames[k] = -2;
          this.plainFrames.set(k, v);
        }
        return;
      case 'device_free':
        this.deviceFree.set(k, v);
        return;
      default:
        if (v instanceof Decoded) throw new ReadAgain(`a decoded container as an entry's ${key}`);
    }
  }

  /** Whether entry `k`'s stack is never asked for: its action so far is known and not alloc. */
  needsNoFrames(k: number): boolean {
    const a = this.action[k] as number;
    return a !== NO_ACTION && a !== A_ALLOC;
  }

  /** {@link set} of `frames` to the complete list numbered `r` of RawFrameLists. */
  setFramesRaw(k: number, r: number): void {
    this.frames[k] = r;
  }

  /** {@link set} of `frames` to a list whose frames are not stored (see RawFrameLists.skip). */
  setFramesSkipped(k: number): void {
    this.frames[k] = FRAMES_SKIPPED;
  }

  /**
   * {@link set} of a number for KEY_ADDR, KEY_SIZE, KEY_STREAM or KEY_TIME: an integer from the
   * pickle's int opcodes (below 2^53), marked bad where it is negative.
   */
  setNumber(k: number, code: number, v: number): void {
    if (code === KEY_TIME) {
      this.time[k] = v;
      return;
    }
    const has = code === KEY_ADDR ? HAS_ADDR : code === KEY_SIZE ? HAS_SIZE : HAS_STREAM;
    const col = code === KEY_ADDR ? this.addr : code === KEY_SIZE ? this.size : this.stream;
    const fl = this.flags[k] as number;
    // Zero over zero is not written, nor read: a column of streams that are all 0 (most snapshots'
    // are) stays memory never touched, each page of it a fault saved (a first read of a page costs
    // as much as a first write). A row's column holds 0 until its field is first set.
    if (v !== 0) {
      col[k] = v;
      if (has === HAS_STREAM) this.hasStreams = true;
    } else if ((fl & has) !== 0) {
      col[k] = 0;
    }
    this.flags[k] = ((fl | has) & ~(has << 3)) | (v < 0 ? has << 3 : 0);
  }

  /** {@link set} of `action` to a string whose action code is `a`. */
  setAction(k: number, a: number, v: string): void {
    this.action[k] = a;
    if (a === A_OTHER) this.otherName.set(k, v);
  }

  /** A number set the plain way: marked bad unless it is a count (see {@link setNumber}). */
  private number(k: number, v: PickleValue, col: Float64Array, has: number, bad: number): void {
    if (typeof v === 'number') {
      col[k] = v;
      if (v !== 0 && has === HAS_STREAM) this.hasStreams = true;
      this.flags[k] = (((this.flags[k] as number) | has) & ~bad) | (isCount(v, 0) ? 0 : bad);
    } else {
      if (v instanceof Decoded) throw new ReadAgain('a decoded container as a number');
      this.flags[k] = (this.flags[k] as number) | has | bad;
    }
  }

  private grow(n: number): void {
    this.action = growColumn(this.action, n);
    this.flags = growColumn(this.flags, n);
    this.frames = growColumn(this.frames, n);
    this.addr = growColumn(this.addr, n);
    this.size = growColumn(this.size, n);
    this.stream = growColumn(this.stream, n);
    this.time = growColumn(this.time, n);
  }

  /**
   * Rows [from, to), checked as `traceColumns` checks entries; any entry it would refuse makes the
   * file be read again the plain way (which names it).
   */
  private check(from: number, to: number): void {
    const { action, flags, addr, size, stream, time, frames } = this;
    for (let k = from; k < to; k++) {
      const a = action[k] as number;
      if (a === A_ALLOC) {
        this.allocs++;
        if ((frames[k] as number) >= 0) {
          if ((frames[k] as number) < this.lastList) this.ordered = false;
          else this.lastList = frames[k] as number;
        }
      }
      if (a === NO_ACTION) throw new ReadAgain('an entry without a string action');
      if (a === A_OTHER || a === A_SNAPSHOT) {
        if (a === A_OTHER) {
          const name = this.otherName.get(k) as string;
          this.otherActions.set(name, (this.otherActions.get(name) ?? 0) + 1);
        }
        addr[k] = 0;
        size[k] = 0;
        if (((flags[k] as number) & HAS_STREAM) !== 0) stream[k] = 0;
        time[k] = NaN;
        frames[k] = -1;
        continue;
      }
      if (a === A_ALLOC && frames[k] === FRAMES_SKIPPED) throw new ReadAgain('an alloc whose frames were not stored');
      const fl = flags[k] as number;
      if (a === A_OOM) {
        const free = this.deviceFree.get(k);
        if (free !== undefined && !isCount(free, 0)) throw new ReadAgain('a bad device_free');
        addr[k] = free === undefined ? 0 : (free as number);
      } else if ((fl & (HAS_ADDR | BAD_ADDR)) !== HAS_ADDR || !isCount(addr[k] as number, 0)) {
        throw new ReadAgain('a bad addr');
      }
      const minSize = a >= A_SEGMENT_ALLOC && a <= A_SEGMENT_UNMAP ? 1 : 0;
      if ((fl & (HAS_SIZE | BAD_SIZE)) !== HAS_SIZE || !isCount(size[k] as number, minSize)) throw new ReadAgain('a bad size');
      // Without a stream, the row's is 0 (never written); a stream was checked when set (not read
      // here: see setNumber).
      if ((fl & (HAS_STREAM | BAD_STREAM)) === (HAS_STREAM | BAD_STREAM)) throw new ReadAgain('a bad stream');
    }
  }

  /** The columns, every row checked (see {@link take}). */
  finish(raw: RawFrameLists): DeviceTrace {
    const n = this.created;
    if (this.taken !== n) throw new ReadAgain('trace entries left out of their list');
    const { action, addr, size, stream, time, frames } = this;
    const plain = this.plainFrames;
    const rawFrames = frames.subarray(0, n);
    const ordered = this.ordered;
    return {
      length: n,
      action: action.subarray(0, n),
      addr: addr.subarray(0, n),
      size: size.subarray(0, n),
      stream: stream.subarray(0, n),
      time: time.subarray(0, n),
      stackOf: (k, stacks) => {
        const r = rawFrames[k] as number;
        return r >= 0 ? stacks.ofRaw(r, raw, ordered) : r === -1 ? 0 : stacks.of(plain.get(k));
      },
      otherActions: this.otherActions,
      allocs: this.allocs,
      hasStreams: this.hasStreams,
    };
  }
}

/** An integer that memsim holds exactly and that is at least `min`. */
function isCount(v: PickleValue, min: number): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= min;
}
