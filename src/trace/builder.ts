import { TraceError } from '../errors.js';
import { BuildProblems, freeSizeMessage } from './build-problems.js';
import { type BuildSource, EventColumns } from './event-columns.js';
import { decimalId, NOT_DECIMAL, NOT_SIMPLE } from './id-table.js';
import { invalidIdMessage, invalidUtf8At } from './utf8.js';
import { DEFAULT_ALIGN_BYTES, OP_ALLOC, OP_FREE, type RecordedHistory, type Trace, type TraceStacks } from './model.js';

/** Options every reader accepts. */
export interface BuildOptions {
  /** Turn the two semantic errors (free of a non-live id, alloc of a live id) into counted skips. */
  lenient?: boolean;
  /** Expected number of events, to size the columns up front. */
  expectedEvents?: number;
  /**
   * The file being read, when known: columns then grow to the size the whole file will need
   * (extrapolated from the share read so far) rather than by small steps, each of which copies them.
   */
  source?: BuildSource;
  /**
   * Called with the builder after every `every` events (a reader on another thread publishes the
   * trace so far: see `trace/pipeline/`); the usual CSV loop asks between runs of some hundred
   * records, so a call may come that much later (see EventColumns.pushPlain).
   */
  onEvents?: { every: number; call: (builder: TraceBuilder) => void };
}

const encoder = new TextEncoder();

/** A copy of `a` with `n` entries: its first ones, then zeros. */
function resized(a: Uint32Array, n: number): Uint32Array {
  const b = new Uint32Array(n);
  b.set(a.subarray(0, Math.min(n, a.length)));
  return b;
}

/**
 * Receives events from a reader, applies the semantic checks of the trace format in the same pass,
 * and builds the columnar {@link Trace}. Readers report syntax and type problems through
 * {@link TraceBuilder.problem}; the builder reports semantic ones itself.
 *
 * Ids arrive as bytes (fast readers) or strings (importers); either way they are interned without a
 * JS string per event.
 */
export class TraceBuilder extends BuildProblems {
  /** The allocations' call stacks, when the reader knows them (set by the importer). */
  stacks: TraceStacks | undefined;
  private readonly lenient: boolean;
  private readonly onEvents: BuildOptions['onEvents'];

  private lastTime = -Infinity;
  private lastTimeLine = 0;

  constructor(file: string, options: BuildOptions = {}) {
    super(file, options.expectedEvents, options.source);
    this.lenient = options.lenient ?? false;
    this.onEvents = options.onEvents;
    if (this.onEvents) this.nextCall = this.onEvents.every;
  }

  /** Number of events accepted so far. */
  get length(): number {
    return this.n;
  }

  /** Whether `--lenient` is in force (importers skip and count their own inconsistencies then). */
  get isLenient(): boolean {
    return this.lenient;
  }

  /** Marks the events added so far as reconstructed initial state (importers of windows). */
  markInitialEvents(): void {
    this.initialEvents = this.n;
  }

  /** Index of a tag given as bytes (0 is "no tag"). */
  internTag(buf: Uint8Array, s: number, e: number, line: number): number {
    if (s === e) return 0;
    const known = this.tags.strings.length;
    const k = this.tags.intern(buf, s, e);
    if (k >= known) this.checkTag(buf, s, e, line);
    return k;
  }

  /** Index of a tag given as text (0 is "no tag"). */
  internTagString(tag: string | undefined): number {
    return tag === undefined || tag === '' ? 0 : this.tags.internString(tag);
  }

  /**
   * Adds an alloc event. `step` undefined means "the previous event's step".
   * @returns the allocation number, or -1 when the event was rejected.
   */
  addAlloc(id: string, sizeBytes: number, step: number | undefined, stream: number, tag: string | undefined, time: number | undefined, line: number, alignBytes = DEFAULT_ALIGN_BYTES): number {
    const b = encoder.encode(id);
    return this.addAllocBytes(b, 0, b.length, sizeBytes, step ?? NaN, stream, this.internTagString(tag), time ?? NaN, line, alignBytes);
  }

  /**
   * Adds an alloc event whose id is bytes [s, e) of `buf`. NaN `step` inherits the previous
   * event's step; NaN `time` means no time; `tagIndex` comes from {@link TraceBuilder.internTag};
   * `alignBytes` is the alignment asked for (readers check it: a power of two up to 2^30).
   * @returns the allocation number, or -1 when the event was rejected.
   */
  addAllocBytes(
    buf: Uint8Array,
    s: number,
    e: number,
    sizeBytes: number,
    step: number,
    stream: number,
    tagIndex: number,
    time: number,
    line: number,
    alignBytes: number = DEFAULT_ALIGN_BYTES,
  ): number {
    return this.addAllocId(buf, s, e, decimalId(buf, s, e), sizeBytes, step, stream, tagIndex, time, line, alignBytes);
  }

  /**
   * {@link TraceBuilder.addAllocBytes} for readers that parsed the id already: `value` is its
   * {@link decimalId}.
   */
  addAllocId(
    buf: Uint8Array,
    s: number,
    e: number,
    value: number,
    sizeBytes: number,
    step: number,
    stream: number,
    tagIndex: number,
    time: number,
    line: number,
    alignBytes: number,
  ): number {
    const prev = this.ids.lookup(buf, s, e, value);
    if (prev >= 0 && this.freeEvent[prev] === -1) {
      if (this.lenient) {
        this.doubleAlloc++;
      } else {
        const firstEvent = this.allocEvent[prev] as number;
        const first = this.lineAt(firstEvent);
        this.problem({ line, field: 'id', message: `alloc of id "${this.ids.get(prev)}" which is still live (allocated at ${this.where(first, firstEvent)})` });
      }
      return -1;
    }
    if (prev < 0 && value === NOT_DECIMAL) {
      // A new id: checked once, not at every reuse (a decimal one is digits, plain ASCII).
      const bad = invalidUtf8At(buf, s, e);
      if (bad >= 0) {
        this.problem({ line, field: 'id', message: invalidIdMessage(buf, s, bad) });
        return -1;
      }
    }
    if (time === time && !this.checkTime(time, line)) return -1;
    const i = this.push(OP_ALLOC, sizeBytes, step, stream, tagIndex, time, line);
    if (alignBytes !== DEFAULT_ALIGN_BYTES && !this.align) this.align = this.defaultAligns(this.cap);
    if (this.align) this.align[i] = alignBytes;
    return this.recordAlloc(i, this.ids.insert(buf, s, e, value, true), sizeBytes);
  }

  /**
   * {@link TraceBuilder.addAllocBytes} (default alignment) for an importer whose ids are unique by
   * construction: ASCII, not a plain decimal number, and never the id of an earlier allocation. The
   * id is stored without being looked up (see IdTable.appendNew).
   */
  addAllocNew(buf: Uint8Array, s: number, e: number, sizeBytes: number, step: number, stream: number, tagIndex: number, time: number, line: number): number {
    if (decimalId(buf, s, e) !== NOT_DECIMAL) return this.addAllocBytes(buf, s, e, sizeBytes, step, stream, tagIndex, time, line);
    if (time === time && !this.checkTime(time, line)) return -1;
    const i = this.push(OP_ALLOC, sizeBytes, step, stream, tagIndex, time, line);
    if (this.align) this.align[i] = DEFAULT_ALIGN_BYTES;
    return this.recordAlloc(i, this.ids.appendNew(buf, s, e), sizeBytes);
  }

  /** Records event `i` as the alloc of allocation `a`. */
  private recordAlloc(i: number, a: number, sizeBytes: number): number {
    this.allocs = a + 1;
    if (a >= this.allocCap) this.resizeAllocs(this.grownCapacity(this.allocCap, a));
    this.alloc[i] = a;
    this.allocEvent[a] = i;
    this.freeEvent[a] = -1;
    this.live += sizeBytes;
    this.liveAllocs++;
    if (this.live > this.peakLive || this.peakLiveEvent < 0) {
      this.peakLive = this.live;
      this.peakLiveEvent = i;
    }
    return a;
  }

  /**
   * {@link TraceBuilder.addAllocId} in the fewest steps, for the usual event: a decimal id (its
   * {@link decimalId} `value`, at least 0) that is not live, while every id so far is decimal (see
   * {@link IdTable.latestDecimal}), with no stream, tag, time or alignment. Returns false, having
   * changed nothing, for any other (`addAllocId` then takes it, and reports what is wrong with it).
   */
  addDecimalAlloc(value: number, sizeBytes: number, step: number, line: number): boolean {
    const prev = this.ids.latestDecimal(value);
    // Read and compared whether or not the id was allocated before: code that runs on no event before
    // V8 compiles the reading loop (an id used again, in a trace that seldom does) would throw the loop's
    // compiled code away where it first runs.
    const freedAt = this.freeEvent[prev < 0 ? 0 : prev] as number;
    const stillLive = freedAt === -1;
    // The allocation tables full: `addAllocId` grows them (seldom, and so not here: see `stillLive`).
    if (prev === NOT_SIMPLE || (prev >= 0 && stillLive) || !this.plainColumns() || this.allocs >= this.allocCap) return false;
    const i = this.pushPlain(OP_ALLOC, sizeBytes, step, line);
    const a = this.ids.addDecimal(value);
    this.allocs = a + 1;
    this.alloc[i] = a;
    this.allocEvent[a] = i;
    this.freeEvent[a] = -1;
    const live = this.live + sizeBytes;
    this.live = live;
    this.liveAllocs++;
    // Written on every event (see `stillLive`): a trace may reach a new peak first late.
    const first = this.peakLiveEvent < 0;
    const peak = live > this.peakLive || first;
    this.peakLive = peak ? live : this.peakLive;
    this.peakLiveEvent = peak ? i : this.peakLiveEvent;
    return true;
  }

  /**
   * {@link TraceBuilder.addFreeId} in the fewest steps, for a decimal id (as in
   * {@link TraceBuilder.addDecimalAlloc}) that is live, with no stream or time. Returns false, having
   * changed nothing, for any other.
   */
  addDecimalFree(value: number, givenSize: number, step: number, line: number): boolean {
    const a = this.ids.latestDecimal(value);
    if (a < 0 || this.freeEvent[a] !== -1 || !this.plainColumns()) return false;
    const sizeBytes = this.size[this.allocEvent[a] as number] as number;
    // A size written on the free (NaN: none) that is not the alloc's is reported by addFreeId.
    if (givenSize === givenSize && givenSize !== sizeBytes) return false;
    this.recordFree(this.pushPlain(OP_FREE, sizeBytes, step, line), a, sizeBytes);
    return true;
  }

  /**
   * No stream, tag, time or alignment column: the events of {@link addDecimalAlloc} and
   * {@link addDecimalFree} need none of them written.
   */
  private plainColumns(): boolean {
    return this.stream === null && this.tag === null && this.time === null && this.align === null;
  }

  /**
   * Adds a free event; `givenSize`, when not NaN, is a size written on it, which must be the
   * allocation's.
   * @returns the allocation number freed, or -1 when the event was rejected.
   */
  addFree(id: string, step: number | undefined, stream: number | undefined, time: number | undefined, line: number, givenSize = NaN): number {
    const b = encoder.encode(id);
    return this.addFreeBytes(b, 0, b.length, step ?? NaN, stream ?? -1, time ?? NaN, line, givenSize);
  }

  /**
   * Adds a free event whose id is bytes [s, e) of `buf`; a negative `stream` inherits the
   * allocation's stream.
   * @returns the allocation number freed, or -1 when the event was rejected.
   */
  addFreeBytes(buf: Uint8Array, s: number, e: number, step: number, stream: number, time: number, line: number, givenSize = NaN): number {
    return this.addFreeId(buf, s, e, decimalId(buf, s, e), step, stream, time, line, givenSize);
  }

  /** {@link TraceBuilder.addFreeBytes} with the id's {@link decimalId} already parsed. */
  addFreeId(buf: Uint8Array, s: number, e: number, value: number, step: number, stream: number, time: number, line: number, givenSize = NaN): number {
    const a = this.ids.lookup(buf, s, e, value);
    if (a < 0 || this.freeEvent[a] !== -1) {
      if (this.lenient) {
        this.unknownFree++;
      } else {
        const id = Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('utf8');
        // (An id whose alloc was refused has its problem reported already.)
        if (this.wasRefused(id)) return -1;
        if (a < 0) {
          this.problem({ line, field: 'id', message: `free of id "${id}" which was never allocated` });
        } else {
          const freedEvent = this.freeEvent[a] as number;
          const freedAt = this.lineAt(freedEvent);
          this.problem({ line, field: 'id', message: `free of id "${id}" which is not live (already freed at ${this.where(freedAt, freedEvent)})` });
        }
      }
      return -1;
    }
    // A size written on the free that is not the alloc's: reported, and the free made all the same.
    const allocAt = this.allocEvent[a] as number;
    const sizeBytes = this.size[allocAt] as number;
    if (givenSize === givenSize && givenSize !== sizeBytes) this.problem({ line, field: 'size', message: freeSizeMessage(buf, s, e, givenSize, sizeBytes, this.where(this.lineAt(allocAt), allocAt)) });
    return this.addFreeOf(a, step, stream, time, line);
  }

  /** Whether allocation `a` was added and is not freed yet. */
  isLive(a: number): boolean {
    return a >= 0 && a < this.allocs && this.freeEvent[a] === -1;
  }

  /**
   * {@link TraceBuilder.addFreeId} of allocation `a`, which must be live ({@link isLive}) and the
   * latest of its id, as an importer that tracks its own allocations knows: no id is looked up.
   */
  addFreeOf(a: number, step: number, stream: number, time: number, line: number): number {
    if (time === time && !this.checkTime(time, line)) return -1;
    const allocAt = this.allocEvent[a] as number;
    const sizeBytes = this.size[allocAt] as number;
    const st = stream >= 0 ? stream : this.stream ? (this.stream[allocAt] as number) : 0;
    this.recordFree(this.push(OP_FREE, sizeBytes, step, st, 0, time, line), a, sizeBytes);
    return a;
  }

  /** Records event `i` as the free of allocation `a`, of `sizeBytes`. */
  private recordFree(i: number, a: number, sizeBytes: number): void {
    this.alloc[i] = a;
    this.freeEvent[a] = i;
    this.live -= sizeBytes;
    this.liveAllocs--;
    this.frees++;
  }

  /**
   * Gives the event added last, added without a time, the time `times[k]` (none when NaN), checked as
   * the time of an event is: for an importer that has its times in a column, so that a time, a
   * double, is not passed to the call that adds the event (V8 boxes on the heap a double passed to a
   * call that it does not inline). A time earlier than the one before is a problem, as it is there.
   */
  setTimeFrom(times: Float64Array, k: number): void {
    const time = times[k] as number;
    const i = this.n - 1;
    if (time !== time || i < 0) return;
    // checkTime, written out (see above).
    const line = this.lineAt(i);
    if (time < this.lastTime) {
      this.earlierTime(time, line);
      return;
    }
    this.lastTime = time;
    this.lastTimeLine = line;
    (this.time ?? this.timeColumn())[i] = time;
  }

  private checkTime(time: number, line: number): boolean {
    if (time < this.lastTime) {
      this.earlierTime(time, line);
      return false;
    }
    this.lastTime = time;
    this.lastTimeLine = line;
    return true;
  }

  /** The problem of a time earlier than the previous event's. */
  private earlierTime(time: number, line: number): void {
    this.problem({
      line,
      field: 'time',
      message: `time ${time} is earlier than the previous event's ${this.lastTime} (${this.where(this.lastTimeLine)}); times must not decrease`,
    });
  }

  /** Calls `onEvents` (with the events so far complete), next once `every` more have come. */
  protected override called(): void {
    const on = this.onEvents as NonNullable<BuildOptions['onEvents']>;
    on.call(this);
    this.nextCall = this.n + on.every;
  }

  /**
   * The trace so far, for a reader that publishes it while reading: the columns as they are (views of
   * their capacity; only the first `length` entries are written), the ids and tags so far, no
   * checks. The columns and ids share memory with the builder's when they grow in place.
   */
  partial(): Trace {
    return this.assemble('', (col) => col);
  }

  /**
   * Ends the trace. Throws a {@link TraceError} listing every problem (up to 20, then a count) when
   * the input was invalid; otherwise returns the columnar trace.
   */
  finish(format: string, recorded?: RecordedHistory): Trace {
    this.problems.throwIfAny();
    this.ids.trim();
    const trace = this.assemble(format, EventColumns.fit);
    if (this.entries) trace.entryList = this.entries.list;
    if (recorded) trace.recorded = recorded;
    if (this.stacks) {
      const of = this.stacks.ofAllocation;
      const a = this.allocs;
      trace.stacks = of.length === a ? this.stacks : { ...this.stacks, ofAllocation: resized(of, a) };
    }
    return trace;
  }
}

export { TraceError };
