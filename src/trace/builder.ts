import { InputProblem, ProblemList, TraceError } from '../errors.js';
import { Column } from './columns.js';
import { OP_ALLOC, OP_FREE, type RecordedHistory, type Trace, type TraceMeta } from './model.js';

/** Options every reader accepts. */
export interface BuildOptions {
  /** Turn the two semantic errors (free of a non-live id, alloc of a live id) into counted skips. */
  lenient?: boolean;
  /** Expected number of events, to size the columns up front. */
  expectedEvents?: number;
}

/**
 * Receives events from a reader, applies the semantic checks of the trace format in the same pass,
 * and builds the columnar {@link Trace}. Readers report syntax and type problems through
 * {@link TraceBuilder.problem}; the builder reports semantic ones itself.
 */
export class TraceBuilder {
  readonly file: string;
  readonly problems = new ProblemList();
  meta: TraceMeta = {};
  private readonly lenient: boolean;

  private n = 0;
  private readonly op: Column<Uint8Array>;
  private readonly alloc: Column<Uint32Array>;
  private readonly size: Column<Float64Array>;
  private readonly step: Column<Float64Array>;
  private readonly line: Column<Uint32Array>;
  private stream: Column<Float64Array> | null = null;
  private tag: Column<Uint32Array> | null = null;
  private time: Column<Float64Array> | null = null;

  private allocs = 0;
  private readonly ids: string[] = [];
  private readonly allocEvent: Column<Uint32Array>;
  private readonly freeEvent: Column<Int32Array>;
  /** id -> its latest allocation number (live when that allocation has no free yet). */
  private readonly idIndex = new Map<string, number>();
  private readonly tags: string[] = [''];
  private readonly tagIndex = new Map<string, number>([['', 0]]);

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
    const cap = options.expectedEvents ?? 1024;
    this.op = new Column(Uint8Array, cap);
    this.alloc = new Column(Uint32Array, cap);
    this.size = new Column(Float64Array, cap);
    this.step = new Column(Float64Array, cap);
    this.line = new Column(Uint32Array, cap);
    this.allocEvent = new Column(Uint32Array, cap >> 1);
    this.freeEvent = new Column(Int32Array, cap >> 1);
  }

  /** Number of events accepted so far. */
  get length(): number {
    return this.n;
  }

  /** Records a syntax or type problem found by the reader. */
  problem(p: Omit<InputProblem, 'file'>): void {
    this.problems.add({ file: this.file, ...p });
  }

  /** Marks the events added so far as reconstructed initial state (importers of windows). */
  markInitialEvents(): void {
    this.initialEvents = this.n;
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
  ): number {
    const prev = this.idIndex.get(id);
    if (prev !== undefined && this.freeEvent.data[prev] === -1) {
      if (this.lenient) {
        this.doubleAlloc++;
      } else {
        const first = this.line.data[this.allocEvent.data[prev] ?? 0] ?? 0;
        this.problem({ line, field: 'id', message: `alloc of id "${id}" which is still live (allocated at line ${first})` });
      }
      return -1;
    }
    if (!this.checkTime(time, line)) return -1;
    const i = this.push(OP_ALLOC, sizeBytes, step, stream, tag, time, line);
    const a = this.allocs++;
    this.alloc.data[i] = a;
    this.ids.push(id);
    this.allocEvent.ensure(a);
    this.freeEvent.ensure(a);
    this.allocEvent.data[a] = i;
    this.freeEvent.data[a] = -1;
    this.idIndex.set(id, a);
    this.live += sizeBytes;
    this.liveAllocs++;
    if (this.live > this.peakLive || this.peakLiveEvent < 0) {
      if (this.live > this.peakLive) this.peakLive = this.live;
      this.peakLiveEvent = i;
    }
    return a;
  }

  /**
   * Adds a free event.
   * @returns the allocation number freed, or -1 when the event was rejected.
   */
  addFree(id: string, step: number | undefined, stream: number | undefined, time: number | undefined, line: number): number {
    const a = this.idIndex.get(id);
    if (a === undefined || this.freeEvent.data[a] !== -1) {
      if (this.lenient) {
        this.unknownFree++;
      } else if (a === undefined) {
        this.problem({ line, field: 'id', message: `free of id "${id}" which was never allocated` });
      } else {
        const freedAt = this.line.data[this.freeEvent.data[a] ?? 0] ?? 0;
        this.problem({ line, field: 'id', message: `free of id "${id}" which is not live (already freed at line ${freedAt})` });
      }
      return -1;
    }
    if (!this.checkTime(time, line)) return -1;
    const allocAt = this.allocEvent.data[a] ?? 0;
    const sizeBytes = this.size.data[allocAt] ?? 0;
    const s = stream ?? (this.stream ? (this.stream.data[allocAt] ?? 0) : 0);
    const i = this.push(OP_FREE, sizeBytes, step, s, undefined, time, line);
    this.alloc.data[i] = a;
    this.freeEvent.data[a] = i;
    this.live -= sizeBytes;
    this.liveAllocs--;
    this.frees++;
    return a;
  }

  private checkTime(time: number | undefined, line: number): boolean {
    if (time === undefined) return true;
    if (time < this.lastTime) {
      this.problem({
        line,
        field: 'time',
        message: `time ${time} is earlier than the previous event's ${this.lastTime} (line ${this.lastTimeLine}); times must not decrease`,
      });
      return false;
    }
    this.lastTime = time;
    this.lastTimeLine = line;
    return true;
  }

  private push(
    op: number,
    sizeBytes: number,
    step: number | undefined,
    stream: number,
    tag: string | undefined,
    time: number | undefined,
    line: number,
  ): number {
    const i = this.n++;
    this.op.ensure(i);
    this.alloc.ensure(i);
    this.size.ensure(i);
    this.step.ensure(i);
    this.line.ensure(i);
    this.op.data[i] = op;
    this.size.data[i] = sizeBytes;
    if (step !== undefined && step !== this.currentStep) this.currentStep = step;
    if (i === 0 || step !== undefined) this.stepSet.add(this.currentStep);
    this.step.data[i] = this.currentStep;
    this.line.data[i] = line;
    if (stream !== 0 || this.stream) {
      this.stream ??= new Column(Float64Array, this.op.data.length);
      this.stream.ensure(i);
      this.stream.data[i] = stream;
    }
    if (tag !== undefined && tag !== '') {
      let t = this.tagIndex.get(tag);
      if (t === undefined) {
        t = this.tags.length;
        this.tags.push(tag);
        this.tagIndex.set(tag, t);
      }
      this.tag ??= new Column(Uint32Array, this.op.data.length);
      this.tag.ensure(i);
      this.tag.data[i] = t;
    } else if (this.tag) {
      this.tag.ensure(i);
      this.tag.data[i] = 0;
    }
    if (time !== undefined || this.time) {
      if (!this.time) {
        this.time = new Column(Float64Array, this.op.data.length);
        this.time.data.fill(NaN, 0, i);
      }
      this.time.ensure(i);
      this.time.data[i] = time ?? NaN;
    }
    return i;
  }

  /**
   * Ends the trace. Throws a {@link TraceError} listing every problem (up to 20, then a count) when
   * the input was invalid; otherwise returns the columnar trace.
   */
  finish(format: string, recorded?: RecordedHistory): Trace {
    this.problems.throwIfAny();
    const n = this.n;
    const trace: Trace = {
      path: this.file,
      format,
      meta: this.meta,
      length: n,
      op: this.op.trimmed(n),
      alloc: this.alloc.trimmed(n),
      size: this.size.trimmed(n),
      step: this.step.trimmed(n),
      stream: this.stream ? this.stream.trimmed(n) : null,
      tag: this.tag ? this.tag.trimmed(n) : null,
      time: this.time ? this.time.trimmed(n) : null,
      line: this.line.trimmed(n),
      tags: this.tags,
      allocCount: this.allocs,
      ids: this.ids,
      allocEvent: this.allocEvent.trimmed(this.allocs),
      freeEvent: this.freeEvent.trimmed(this.allocs),
      summary: {
        events: n,
        allocs: this.allocs,
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
    if (recorded) trace.recorded = recorded;
    return trace;
  }
}

export { TraceError };
