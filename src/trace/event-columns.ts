import { columnOf, growColumn, growsInPlace, newColumn } from './columns.js';
import { IdTable } from './id-table.js';
import { StringInterner } from './string-interner.js';
import { DEFAULT_ALIGN_BYTES, OP_ALLOC, type Trace, type TraceMeta } from './model.js';

/** The file a builder reads, when known (see BuildOptions.source). */
export interface BuildSource {
  readonly readBytes: number;
  readonly totalBytes: number;
  readonly base?: number;
}

/** A column of a trace under construction. */
type Column = Uint8Array | Uint32Array | Int32Array | Float64Array;

/**
 * The columns of a trace under construction and the figures of its summary: how they are sized from
 * the file's length, grown, and handed out as a {@link Trace}. {@link TraceBuilder} fills them.
 */
export class EventColumns {
  readonly file: string;
  meta: TraceMeta = {};
  protected readonly source: BuildSource | undefined;

  protected n = 0;
  protected cap: number;
  protected op: Uint8Array;
  protected alloc: Uint32Array;
  protected size: Float64Array;
  protected step: Int32Array | Float64Array;
  /**
   * The lines of the events, or null while each event's line is its index plus {@link lineBase}
   * (see TraceBuilder.push: made at the first event that breaks the rule).
   */
  protected line: Uint32Array | null = null;
  protected lineBase = 0;
  protected stream: Float64Array | null = null;
  protected tag: Uint32Array | null = null;
  protected time: Float64Array | null = null;
  protected align: Uint32Array | null = null;

  /** Events the columns reserve room for (address space; see columns.ts), from the file's length. */
  protected readonly reserve: number;
  protected allocs = 0;
  protected allocCap: number;
  protected allocEvent: Uint32Array;
  protected freeEvent: Int32Array;
  protected readonly ids: IdTable;
  protected readonly tags = new StringInterner();

  protected readonly stepSet = new Set<number>();
  /** The step of the last event (an event without one takes it). */
  protected currentStep = 0;
  /** The event count at which {@link EventColumns.called} is called next (never, unless a subclass says so). */
  protected nextCall = Infinity;
  protected live = 0;
  protected liveAllocs = 0;
  protected peakLive = 0;
  protected peakLiveEvent = -1;
  protected frees = 0;
  protected unknownFree = 0;
  protected doubleAlloc = 0;
  protected initialEvents = 0;

  constructor(file: string, expectedEvents: number | undefined, source: BuildSource | undefined) {
    this.file = file;
    this.source = source;
    this.cap = Math.max(1024, expectedEvents ?? 0);
    // No event takes fewer than 4 bytes of a file; without a file, twice what is expected, or 2^26.
    const total = source?.totalBytes ?? 0;
    this.reserve = total > 0 ? Math.ceil(total / 4) + 4096 : expectedEvents ? 2 * expectedEvents + 4096 : 2 ** 26;
    this.op = newColumn(Uint8Array, this.cap, this.reserve);
    this.alloc = newColumn(Uint32Array, this.cap, this.reserve);
    this.size = newColumn(Float64Array, this.cap, this.reserve);
    this.step = newColumn(Int32Array, this.cap, this.reserve);
    this.allocCap = this.cap >> 1;
    this.allocEvent = newColumn(Uint32Array, this.allocCap, this.reserve);
    this.freeEvent = newColumn(Int32Array, this.allocCap, this.reserve);
    this.ids = new IdTable(this.reserve);
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
   * The next capacity of a column that holds `count` entries now: 1.5 times the current one, or what
   * the whole file needs at the rate so far (plus 3%) when that is more.
   */
  protected grownCapacity(cap: number, count: number): number {
    const next = Math.ceil(cap * 1.5) + 16;
    const src = this.source;
    // Bytes consumed so far: what readers have discarded, else what was read (which runs ahead).
    const consumed = src?.base || src?.readBytes || 0;
    if (!src || src.totalBytes <= 0 || consumed <= 0 || consumed >= src.totalBytes) return next;
    // Never past the room the file can need (no event takes fewer than 4 bytes): a reader that has
    // discarded less than it has consumed would otherwise extrapolate far too many events.
    return Math.max(next, Math.min(Math.ceil(((count * src.totalBytes) / consumed) * 1.03), this.reserve));
  }

  protected resizeAllocs(cap: number): void {
    this.allocCap = cap;
    this.ids.reserve(cap);
    this.allocEvent = growColumn(this.allocEvent, cap, this.allocs, this.reserve);
    this.freeEvent = growColumn(this.freeEvent, cap, this.allocs, this.reserve);
  }

  protected growEvents(): void {
    this.resizeEvents(this.grownCapacity(this.cap, this.n));
  }

  protected resizeEvents(cap: number): void {
    const n = this.n;
    const r = this.reserve;
    this.op = growColumn(this.op, cap, n, r);
    this.alloc = growColumn(this.alloc, cap, n, r);
    this.size = growColumn(this.size, cap, n, r);
    this.step = growColumn(this.step, cap, n, r);
    if (this.line) this.line = growColumn(this.line, cap, n, r);
    if (this.stream) this.stream = growColumn(this.stream, cap, n, r);
    if (this.tag) this.tag = growColumn(this.tag, cap, n, r);
    if (this.time) this.time = growColumn(this.time, cap, n, r);
    if (this.align) this.align = growColumn(this.align, cap, n, r);
    this.cap = cap;
  }

  /**
   * Called once {@link nextCall} events are complete, before the next is written (a builder
   * publishes the events so far).
   */
  protected called(): void {
    this.nextCall = Infinity;
  }

  /**
   * {@link called} when it is due: `push` asks before every event; a reading loop that adds its
   * events by {@link pushPlain} asks between runs of them (see `pushPlain`).
   */
  callIfDue(): void {
    if (this.n >= this.nextCall) this.called();
  }

  /** Appends an event to the columns; returns its index. */
  protected push(op: number, sizeBytes: number, step: number, stream: number, tagIndex: number, time: number, line: number): number {
    this.callIfDue();
    const i = this.pushPlain(op, sizeBytes, step, line);
    if (stream !== 0 && !this.stream) this.stream = newColumn(Float64Array, this.cap, this.reserve);
    if (this.stream) this.stream[i] = stream;
    if (tagIndex !== 0 && !this.tag) this.tag = newColumn(Uint32Array, this.cap, this.reserve);
    if (this.tag) this.tag[i] = tagIndex;
    if (time === time && !this.time) this.timeColumn();
    if (this.time) this.time[i] = time;
    return i;
  }

  /** The time column, made now: no time (NaN) for the events so far (the one being added included). */
  protected timeColumn(): Float64Array {
    this.time = newColumn(Float64Array, this.cap, this.reserve).fill(NaN, 0, this.n);
    return this.time;
  }

  /**
   * {@link push} of an event with no stream, tag or time, where the trace has no such column (the
   * reading loop of the usual CSV header calls it: a shorter body for V8 to compile into that loop,
   * which it compiles more than once while it tiers up). It does not ask whether {@link called} is
   * due: V8 would compile that call, and what it calls, into the loop, where code that had not run
   * often enough to be recorded before the compile would throw the loop's code away when it first
   * runs (a reading thread lost up to three compiles of that loop so); the loop's caller asks
   * ({@link callIfDue}) after each run of records.
   */
  protected pushPlain(op: number, sizeBytes: number, step: number, line: number): number {
    const i = this.n++;
    if (i >= this.cap) this.growEvents();
    this.op[i] = op;
    this.size[i] = sizeBytes;
    if (step === step && (step !== this.currentStep || i === 0)) {
      this.currentStep = step;
      this.stepSet.add(step);
      if ((step | 0) !== step && this.step instanceof Int32Array) this.widenSteps();
    } else if (i === 0) {
      this.stepSet.add(this.currentStep);
    }
    // Step 0 is not written: a column is zeros until written (see columns.ts), and one all of step 0
    // (a snapshot's) is then never touched, each page of it a fault saved.
    if (this.currentStep !== 0) this.step[i] = this.currentStep;
    if (this.line) this.line[i] = line;
    else if (i === 0) this.lineBase = line;
    else if (line !== i + this.lineBase) {
      // The first event off the rule (a blank or comment line before it, say): the column from now on.
      this.line = this.materialiseLines(i);
      this.line[i] = line;
    }
    return i;
  }

  /** Steps as doubles from now on: one does not fit 32 bits. */
  protected widenSteps(): void {
    const wide = newColumn(Float64Array, this.cap, this.reserve);
    wide.set(this.step.subarray(0, this.n));
    this.step = wide;
  }

  /** The line of event `i` (one of those so far). */
  protected lineAt(i: number): number {
    return this.line ? (this.line[i] as number) : i + this.lineBase;
  }

  /** A line column for the first `count` events (their lines were implicit: see {@link line}). */
  protected materialiseLines(count: number): Uint32Array {
    const col = newColumn(Uint32Array, this.cap, this.reserve);
    const base = this.lineBase;
    for (let k = 0; k < count; k++) col[k] = k + base;
    return col;
  }

  /** An align column for the events so far: the default on every alloc, 0 on every free. */
  protected defaultAligns(cap: number): Uint32Array {
    const a = newColumn(Uint32Array, cap, this.reserve);
    for (let k = 0; k < this.n; k++) if (this.op[k] === OP_ALLOC) a[k] = DEFAULT_ALIGN_BYTES;
    return a;
  }

  /**
   * The trace of the events so far, with its columns passed through `fit` (each column and the
   * count of its entries written).
   */
  protected assemble(format: string, fit: <T extends Column>(col: T, count: number) => T): Trace {
    const n = this.n;
    const a = this.allocs;
    return {
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
      line: this.line ? fit(this.line, n) : null,
      lineBase: this.lineBase,
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
  }

  /**
   * The columns of a finished trace: columns that grew in place are viewed at their length (room not
   * written costs nothing); copied columns were sized from the file's length and have little slack:
   * a view too, unless more than an eighth of them is unused.
   */
  protected static fit<T extends Column>(col: T, count: number): T {
    return growsInPlace(col, count) || (col.length - count) * 8 <= col.length ? columnOf(col, count) : (col.slice(0, count) as T);
  }
}
