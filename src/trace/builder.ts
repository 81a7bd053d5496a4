import { type InputProblem, ProblemList, TraceError } from '../errors.js';
import { columnOf, growColumn, growsInPlace, newColumn } from './columns.js';
import { decimalId, IdTable } from './id-table.js';
import { StringInterner } from './string-interner.js';
import { invalidIdMessage, invalidUtf8At } from './utf8.js';
import { DEFAULT_ALIGN_BYTES, OP_ALLOC, OP_FREE, type RecordedHistory, type Trace, type TraceMeta, type TraceStacks } from './model.js';

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
  source?: { readonly readBytes: number; readonly totalBytes: number; readonly base?: number };
  /**
   * Called with the builder after every `every` events (a reader on another thread publishes the
   * trace so far: see `trace/pipeline/`).
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
export class TraceBuilder {
  readonly file: string;
  readonly problems = new ProblemList();
  meta: TraceMeta = {};
  /** The allocations' call stacks, when the reader knows them (set by the importer). */
  stacks: TraceStacks | undefined;
  /**
   * Set by importers of files without lines (a snapshot's `device_traces[d]`): the `line` given with
   * each event is then 1 + the index of its entry in that list, problems name the entry by its path
   * (`device_traces[0][4].addr`), and `fields` names the entry's fields for the event's.
   */
  entries: { list: string; fields: Readonly<Record<string, string>> } | undefined;
  private readonly lenient: boolean;
  private readonly source: BuildOptions['source'];
  private readonly onEvents: BuildOptions['onEvents'];
  /** The event count at which `onEvents` is called next. */
  private nextCall = Infinity;

  private n = 0;
  private cap: number;
  private op: Uint8Array;
  private alloc: Uint32Array;
  private size: Float64Array;
  private step: Int32Array | Float64Array;
  private line: Uint32Array;
  private stream: Float64Array | null = null;
  private tag: Uint32Array | null = null;
  private time: Float64Array | null = null;
  private align: Uint32Array | null = null;

  /** Events the columns reserve room for (address space; see columns.ts), from the file's length. */
  private readonly reserve: number;
  private allocs = 0;
  private allocCap: number;
  private allocEvent: Uint32Array;
  private freeEvent: Int32Array;
  private readonly ids: IdTable;
  private readonly tags = new StringInterner();

  private currentStep = 0;
  private readonly stepSet = new Set<number>();
  private lastTime = -Infinity;
  private lastTimeLine = 0;
  private live = 0;
  private liveAllocs = 0;
  private peakLive = 0;
  private peakLiveEvent = -1;
  private frees = 0;
  private unknownFree = 0;
  private doubleAlloc = 0;
  private initialEvents = 0;

  constructor(file: string, options: BuildOptions = {}) {
    this.file = file;
    this.lenient = options.lenient ?? false;
    this.source = options.source;
    this.onEvents = options.onEvents;
    if (this.onEvents) this.nextCall = this.onEvents.every;
    this.cap = Math.max(1024, options.expectedEvents ?? 0);
    // No event takes fewer than 4 bytes of a file; without a file, twice what is expected, or 2^26.
    const total = options.source?.totalBytes ?? 0;
    this.reserve = total > 0 ? Math.ceil(total / 4) + 4096 : options.expectedEvents ? 2 * options.expectedEvents + 4096 : 2 ** 26;
    this.op = newColumn(Uint8Array, this.cap, this.reserve);
    this.alloc = newColumn(Uint32Array, this.cap, this.reserve);
    this.size = newColumn(Float64Array, this.cap, this.reserve);
    this.step = newColumn(Int32Array, this.cap, this.reserve);
    this.line = newColumn(Uint32Array, this.cap, this.reserve);
    this.allocCap = this.cap >> 1;
    this.allocEvent = newColumn(Uint32Array, this.allocCap, this.reserve);
    this.freeEvent = newColumn(Int32Array, this.allocCap, this.reserve);
    this.ids = new IdTable(this.reserve);
  }

  /** Number of events accepted so far. */
  get length(): number {
    return this.n;
  }

  /** Whether `--lenient` is in force (importers skip and count their own inconsistencies then). */
  get isLenient(): boolean {
    return this.lenient;
  }

  /**
   * Sizes the columns for the whole file from the share of it that a reader has consumed (the events
   * so far, scaled to the file's length, plus 3%), so that they need no growth, and no copy at the
   * end, when the estimate holds. Readers call it now and then while the events so far are few (a
   * resize copies them): the first events of a trace are often shorter or longer than the rest, and
   * each call corrects the size when it is off by more than 6%.
   */
  reserveFor(consumedBytes: number): void {
    // Columns that grow in place need no estimate.
    if (growsInPlace(this.op, this.reserve)) return;
    const total = this.source?.totalBytes ?? 0;
    if (total <= 0 || consumedBytes <= 0 || consumedBytes >= total || this.n === 0) return;
    const events = Math.ceil(((this.n * total) / consumedBytes) * 1.03) + 1024;
    if (Math.abs(events - this.cap) > this.cap * 0.06) this.resizeEvents(events);
    // The share of allocs in a trace's first events says little about the rest (a step allocates
    // first and frees later): the allocation tables grow as they fill.
  }

  /**
   * Where the event being read sits in the file's array (`events[3]`), for problems, when the reader
   * says that lines do not tell events apart; -1 otherwise. Kept as a name and a number so that no
   * string is built per event.
   */
  itemArray = 'events';
  itemIndex = -1;

  /** Records a syntax or type problem found by the reader. */
  problem(p: Omit<InputProblem, 'file'>): void {
    if (this.itemIndex >= 0 && p.item === undefined) p = { ...p, item: `${this.itemArray}[${this.itemIndex}]` };
    const e = this.entries;
    if (e && p.line !== undefined && p.entry === undefined) {
      const { line, col: _col, field, ...rest } = p;
      const named = field === undefined ? undefined : (e.fields[field] ?? field);
      this.problems.add({ file: this.file, ...rest, entry: this.entryAt(line), ...(named !== undefined ? { field: named } : {}) });
      return;
    }
    this.problems.add({ file: this.file, ...p });
  }

  /** The path of the entry an event came from (entries mode), e.g. `device_traces[0][4]`. */
  private entryAt(line: number): string {
    const e = this.entries as { list: string };
    return line > 0 ? `${e.list}[${line - 1}]` : `${e.list} (the state when the window opened)`;
  }

  /** Where an earlier event is, for messages: `line N`, or its entry's path. */
  protected where(line: number, event?: number): string {
    if (this.entries) return this.entryAt(line);
    // On a line shared by many events the event's index says more.
    return this.itemIndex >= 0 && event !== undefined ? `line ${line}, event ${event}` : `line ${line}`;
  }

  /** Marks the events added so far as reconstructed initial state (importers of windows). */
  markInitialEvents(): void {
    this.initialEvents = this.n;
  }

  /** Index of a tag given as bytes (0 is "no tag"). */
  internTag(buf: Uint8Array, s: number, e: number): number {
    return s === e ? 0 : this.tags.intern(buf, s, e);
  }

  /** Index of a tag given as text (0 is "no tag"). */
  internTagString(tag: string | undefined): number {
    return tag === undefined || tag === '' ? 0 : this.tags.internString(tag);
  }

  /**
   * Adds an alloc event. `step` undefined means "the previous event's step".
   * @returns the allocation number, or -1 when the event was rejected.
   */
  addAlloc(
    id: string,
    sizeBytes: number,
    step: number | undefined,
    stream: number,
    tag: string | undefined,
    time: number | undefined,
    line: number,
    alignBytes: number = DEFAULT_ALIGN_BYTES,
  ): number {
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
        const first = this.line[firstEvent] as number;
        this.problem({ line, field: 'id', message: `alloc of id "${this.ids.get(prev)}" which is still live (allocated at ${this.where(first, firstEvent)})` });
      }
      return -1;
    }
    if (prev < 0) {
      // A new id: checked once, not at every reuse.
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
    const a = this.ids.insert(buf, s, e, value, true);
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
   * Adds a free event.
   * @returns the allocation number freed, or -1 when the event was rejected.
   */
  addFree(id: string, step: number | undefined, stream: number | undefined, time: number | undefined, line: number): number {
    const b = encoder.encode(id);
    return this.addFreeBytes(b, 0, b.length, step ?? NaN, stream ?? -1, time ?? NaN, line);
  }

  /**
   * Adds a free event whose id is bytes [s, e) of `buf`; a negative `stream` inherits the
   * allocation's stream.
   * @returns the allocation number freed, or -1 when the event was rejected.
   */
  addFreeBytes(buf: Uint8Array, s: number, e: number, step: number, stream: number, time: number, line: number): number {
    return this.addFreeId(buf, s, e, decimalId(buf, s, e), step, stream, time, line);
  }

  /** {@link TraceBuilder.addFreeBytes} with the id's {@link decimalId} already parsed. */
  addFreeId(buf: Uint8Array, s: number, e: number, value: number, step: number, stream: number, time: number, line: number): number {
    const a = this.ids.lookup(buf, s, e, value);
    if (a < 0 || this.freeEvent[a] !== -1) {
      if (this.lenient) {
        this.unknownFree++;
      } else {
        const id = Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('utf8');
        if (a < 0) {
          this.problem({ line, field: 'id', message: `free of id "${id}" which was never allocated` });
        } else {
          const freedEvent = this.freeEvent[a] as number;
          const freedAt = this.line[freedEvent] as number;
          this.problem({ line, field: 'id', message: `free of id "${id}" which is not live (already freed at ${this.where(freedAt, freedEvent)})` });
        }
      }
      return -1;
    }
    if (time === time && !this.checkTime(time, line)) return -1;
    const allocAt = this.allocEvent[a] as number;
    const sizeBytes = this.size[allocAt] as number;
    const st = stream >= 0 ? stream : this.stream ? (this.stream[allocAt] as number) : 0;
    const i = this.push(OP_FREE, sizeBytes, step, st, 0, time, line);
    this.alloc[i] = a;
    this.freeEvent[a] = i;
    this.live -= sizeBytes;
    this.liveAllocs--;
    this.frees++;
    return a;
  }

  private checkTime(time: number, line: number): boolean {
    if (time < this.lastTime) {
      this.problem({
        line,
        field: 'time',
        message: `time ${time} is earlier than the previous event's ${this.lastTime} (${this.where(this.lastTimeLine)}); times must not decrease`,
      });
      return false;
    }
    this.lastTime = time;
    this.lastTimeLine = line;
    return true;
  }

  /**
   * The next capacity of a column that holds `count` entries now: 1.5 times the current one, or what
   * the whole file needs at the rate so far (plus 3%) when that is more.
   */
  private grownCapacity(cap: number, count: number): number {
    const next = Math.ceil(cap * 1.5) + 16;
    const src = this.source;
    // Bytes consumed so far: what readers have discarded, else what was read (which runs ahead).
    const consumed = src?.base || src?.readBytes || 0;
    if (!src || src.totalBytes <= 0 || consumed <= 0 || consumed >= src.totalBytes) return next;
    return Math.max(next, Math.ceil(((count * src.totalBytes) / consumed) * 1.03));
  }

  private resizeAllocs(cap: number): void {
    this.allocCap = cap;
    this.ids.reserve(cap);
    this.allocEvent = growColumn(this.allocEvent, cap, this.allocs, this.reserve);
    this.freeEvent = growColumn(this.freeEvent, cap, this.allocs, this.reserve);
  }

  private growEvents(): void {
    this.resizeEvents(this.grownCapacity(this.cap, this.n));
  }

  private resizeEvents(cap: number): void {
    const n = this.n;
    const r = this.reserve;
    this.op = growColumn(this.op, cap, n, r);
    this.alloc = growColumn(this.alloc, cap, n, r);
    this.size = growColumn(this.size, cap, n, r);
    this.step = growColumn(this.step, cap, n, r);
    this.line = growColumn(this.line, cap, n, r);
    if (this.stream) this.stream = growColumn(this.stream, cap, n, r);
    if (this.tag) this.tag = growColumn(this.tag, cap, n, r);
    if (this.time) this.time = growColumn(this.time, cap, n, r);
    if (this.align) this.align = growColumn(this.align, cap, n, r);
    this.cap = cap;
  }

  /** Steps as doubles from now on: one does not fit 32 bits. */
  private widenSteps(): void {
    const wide = newColumn(Float64Array, this.cap, this.reserve);
    wide.set(this.step.subarray(0, this.n));
    this.step = wide;
  }

  /** Calls `onEvents` (before event `nextCall` is written: the events before it are complete). */
  private called(): void {
    const on = this.onEvents as NonNullable<BuildOptions['onEvents']>;
    this.n--;
    on.call(this);
    this.n++;
    this.nextCall += on.every;
  }

  /**
   * The trace so far, for a reader that publishes it while reading: the columns as they are (views of
   * their capacity; only the first `length` entries are written), the ids and tags so far, no
   * checks. The columns and ids share memory with the builder's when they grow in place.
   */
  partial(): Trace {
    const n = this.n;
    const a = this.allocs;
    return {
      path: this.file,
      format: '',
      meta: this.meta,
      length: n,
      op: this.op,
      alloc: this.alloc,
      size: this.size,
      step: this.step,
      stream: this.stream,
      tag: this.tag,
      time: this.time,
      align: this.align,
      line: this.line,
      tags: this.tags.strings,
      allocCount: a,
      ids: this.ids,
      allocEvent: this.allocEvent,
      freeEvent: this.freeEvent,
      summary: {
        events: n,
        allocs: a,
        frees: this.frees,
        steps: this.stepSet.size,
        peakLiveBytes: this.peakLive,
        peakLiveEvent: this.peakLiveEvent,
        finalLiveBytes: this.live,
        finalLiveAllocs: this.liveAllocs,
      },
      skipped: { unknownFree: this.unknownFree, doubleAlloc: this.doubleAlloc },
      initialEvents: this.initialEvents,
    };
  }

  /** An align column for the events so far: the default on every alloc, 0 on every free. */
  private defaultAligns(cap: number): Uint32Array {
    const a = newColumn(Uint32Array, cap, this.reserve);
    for (let k = 0; k < this.n; k++) if (this.op[k] === OP_ALLOC) a[k] = DEFAULT_ALIGN_BYTES;
    return a;
  }

  private push(op: number, sizeBytes: number, step: number, stream: number, tagIndex: number, time: number, line: number): number {
    const i = this.n++;
    if (i >= this.cap) this.growEvents();
    if (i === this.nextCall) this.called();
    this.op[i] = op;
    this.size[i] = sizeBytes;
    if (step === step && (step !== this.currentStep || i === 0)) {
      this.currentStep = step;
      this.stepSet.add(step);
      if ((step | 0) !== step && this.step instanceof Int32Array) this.widenSteps();
    } else if (i === 0) {
      this.stepSet.add(this.currentStep);
    }
    this.step[i] = this.currentStep;
    this.line[i] = line;
    if (stream !== 0 && !this.stream) this.stream = newColumn(Float64Array, this.cap, this.reserve);
    if (this.stream) this.stream[i] = stream;
    if (tagIndex !== 0 && !this.tag) this.tag = newColumn(Uint32Array, this.cap, this.reserve);
    if (this.tag) this.tag[i] = tagIndex;
    if (time === time && !this.time) this.time = newColumn(Float64Array, this.cap, this.reserve).fill(NaN, 0, i);
    if (this.time) this.time[i] = time;
    return i;
  }

  /**
   * Ends the trace. Throws a {@link TraceError} listing every problem (up to 20, then a count) when
   * the input was invalid; otherwise returns the columnar trace.
   */
  finish(format: string, recorded?: RecordedHistory): Trace {
    this.problems.throwIfAny();
    const n = this.n;
    const a = this.allocs;
    this.ids.trim();
    // Columns that grew in place are viewed at their length (room not written costs nothing); copied
    // columns were sized from the file's length and have little slack: a view too, unless more than
    // an eighth of them is unused.
    const fit = <T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(col: T, count: number): T =>
      growsInPlace(col, count) || (col.length - count) * 8 <= col.length ? columnOf(col, count) : (col.slice(0, count) as T);
    const trace: Trace = {
      path: this.file,
      format,
      meta: this.meta,
      length: n,
      op: fit(this.op, n),
      alloc: fit(this.alloc, n),
      size: fit(this.size, n),
      step: fit(this.step, n),
      stream: this.stream ? fit(this.stream, n) : null,
      tag: this.tag ? fit(this.tag, n) : null,
      time: this.time ? fit(this.time, n) : null,
      align: this.align ? fit(this.align, n) : null,
      line: fit(this.line, n),
      tags: this.tags.strings,
      allocCount: a,
      ids: this.ids,
      allocEvent: fit(this.allocEvent, a),
      freeEvent: fit(this.freeEvent, a),
      summary: {
        events: n,
        allocs: a,
        frees: this.frees,
        steps: this.stepSet.size,
        peakLiveBytes: this.peakLive,
        peakLiveEvent: this.peakLiveEvent,
        finalLiveBytes: this.live,
        finalLiveAllocs: this.liveAllocs,
      },
      skipped: { unknownFree: this.unknownFree, doubleAlloc: this.doubleAlloc },
      initialEvents: this.initialEvents,
    };
    if (this.entries) trace.entryList = this.entries.list;
    if (recorded) trace.recorded = recorded;
    if (this.stacks) {
      const of = this.stacks.ofAllocation;
      trace.stacks = of.length === a ? this.stacks : { ...this.stacks, ofAllocation: resized(of, a) };
    }
    return trace;
  }
}

export { TraceError };
