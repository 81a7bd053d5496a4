import { freeSizeMessage } from './build-problems.js';
import { type BuildOptions, TraceBuilder } from './builder.js';
import { hashBytes, NOT_DECIMAL } from './id-table.js';
import { KeyTable } from './key-table.js';
import type { SkippedCounts, TraceMeta, TraceSummary } from './model.js';
import { StepSet } from './step-set.js';
import { invalidIdMessage, invalidUtf8At } from './utf8.js';

/** How many freed ids a check remembers (twice this at most), to say where an id was freed. */
export const FREED_WINDOW = 1 << 16;

/** What a check of a trace finds besides its problems: the figures of {@link TraceSummary}. */
export interface CheckedTrace {
  path: string;
  format: string;
  /** For a binary trace (`mst`): the format it was read from before it was written so. */
  sourceFormat?: string;
  meta: TraceMeta;
  summary: TraceSummary;
  skipped: SkippedCounts;
  initialEvents: number;
  /** What the importer noted of the input (entries or messages it does not use, say), when anything. */
  notes?: string[];
}

/**
 * Checks a trace as a {@link TraceBuilder} does, in one pass with the same messages, without keeping
 * it: per allocation it holds only the live ones (id, line and size), plus the ids freed most
 * recently (up to twice {@link FREED_WINDOW}) to say where an id was freed. Memory follows the
 * allocations alive at once and the distinct step values, whatever the length of the trace
 * (`memsim validate`). Tags are not kept.
 */
export class TraceChecker extends TraceBuilder {
  private readonly liveIds = new KeyTable();
  /** The tags reported as not UTF-8 (their bytes as latin1 text). */
  private readonly badTags = new Set<string>();
  private freedNow = new KeyTable();
  private freedBefore = new KeyTable();
  /** True once freed ids have been forgotten (a free of an unknown id may then be of one of them). */
  private forgot = false;
  private readonly steps = new StepSet();
  private events = 0;
  private allocated = 0;
  private freed = 0;
  private liveBytes = 0;
  private liveCount = 0;
  private peak = 0;
  private peakEvent = -1;
  private currentStepValue = 0;
  private lastTimeSeen = -Infinity;
  private lastTimeAt = 0;
  private doubles = 0;
  private unknowns = 0;
  private initial = 0;

  constructor(file: string, options: BuildOptions = {}) {
    super(file, { ...options, expectedEvents: 0 });
  }

  override get length(): number {
    return this.events;
  }

  override markInitialEvents(): void {
    this.initial = this.events;
  }

  /**
   * Tags are not kept: each is checked, and one that is not UTF-8 is reported where it first comes,
   * as the builder reports a new one (up to 4,096 such tags are remembered).
   */
  override internTag(buf: Uint8Array, s: number, e: number, line: number): number {
    if (invalidUtf8At(buf, s, e) < 0) return 0;
    const key = Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('latin1');
    if (this.badTags.has(key)) return 0;
    if (this.badTags.size < 4096) this.badTags.add(key);
    this.checkTag(buf, s, e, line);
    return 0;
  }

  override internTagString(): number {
    return 0;
  }

  override reserveFor(): void {
    // nothing is stored per event
  }

  /** Every event takes the general path here ({@link addAllocId}, {@link addFreeId}): none is stored. */
  override addDecimalAlloc(): boolean {
    return false;
  }

  override addDecimalFree(): boolean {
    return false;
  }

  override addAllocId(buf: Uint8Array, s: number, e: number, _value: number, sizeBytes: number, step: number, _stream: number, _tag: number, time: number, line: number): number {
    const h = hashBytes(buf, s, e);
    const slot = this.liveIds.find(buf, s, e, h);
    if (slot >= 0) {
      if (this.isLenient) this.doubles++;
      else this.problem({ line, field: 'id', message: `alloc of id "${text(buf, s, e)}" which is still live (allocated at ${this.where(this.liveIds.first(slot))})` });
      return -1;
    }
    const bad = invalidUtf8At(buf, s, e);
    if (bad >= 0) {
      this.problem({ line, field: 'id', message: invalidIdMessage(buf, s, bad) });
      return -1;
    }
    if (time === time && !this.timeOk(time, line)) return -1;
    this.count(step);
    this.liveIds.add(buf, s, e, line, sizeBytes, h);
    this.liveBytes += sizeBytes;
    this.liveCount++;
    if (this.liveBytes > this.peak || this.peakEvent < 0) {
      this.peak = this.liveBytes;
      this.peakEvent = this.events - 1;
    }
    return this.allocated++;
  }

  /** Ids are checked here the same whoever makes them (see addAllocId). */
  override addAllocNew(buf: Uint8Array, s: number, e: number, sizeBytes: number, step: number, stream: number, tag: number, time: number, line: number): number {
    return this.addAllocId(buf, s, e, NOT_DECIMAL, sizeBytes, step, stream, tag, time, line);
  }

  override addFreeId(buf: Uint8Array, s: number, e: number, _value: number, step: number, _stream: number, time: number, line: number, givenSize = NaN): number {
    const h = hashBytes(buf, s, e);
    const slot = this.liveIds.find(buf, s, e, h);
    if (slot < 0) {
      if (this.isLenient) this.unknowns++;
      else if (!this.wasRefused(text(buf, s, e))) this.problem({ line, field: 'id', message: this.notLive(buf, s, e, h) });
      return -1;
    }
    // Reported, and the free made all the same (see event-fields.ts).
    if (givenSize === givenSize && givenSize !== this.liveIds.second(slot)) {
      this.problem({ line, field: 'size', message: freeSizeMessage(buf, s, e, givenSize, this.liveIds.second(slot), this.where(this.liveIds.first(slot))) });
    }
    if (time === time && !this.timeOk(time, line)) return -1;
    this.count(step);
    this.liveBytes -= this.liveIds.second(slot);
    this.liveCount--;
    this.liveIds.remove(slot);
    this.rememberFreed(buf, s, e, h, line);
    this.freed++;
    return 0;
  }

  /** Why a free of this id is refused, as the builder words it when it can tell. */
  private notLive(buf: Uint8Array, s: number, e: number, h: number): string {
    const id = text(buf, s, e);
    let slot = this.freedNow.find(buf, s, e, h);
    const table = slot >= 0 ? this.freedNow : this.freedBefore;
    if (slot < 0) slot = this.freedBefore.find(buf, s, e, h);
    if (slot >= 0) return `free of id "${id}" which is not live (already freed at ${this.where(table.first(slot))})`;
    if (this.forgot) return `free of id "${id}" which is not live (never allocated, or freed before the last ${FREED_WINDOW} frees)`;
    return `free of id "${id}" which was never allocated`;
  }

  private rememberFreed(buf: Uint8Array, s: number, e: number, h: number, line: number): void {
    const at = this.freedNow.find(buf, s, e, h);
    if (at >= 0) this.freedNow.remove(at);
    if (this.freedNow.size >= FREED_WINDOW) {
      // The older window is forgotten; its table takes the next ids.
      if (this.freedBefore.size > 0) this.forgot = true;
      const older = this.freedBefore;
      older.clear();
      this.freedBefore = this.freedNow;
      this.freedNow = older;
    }
    this.freedNow.add(buf, s, e, line, 0, h);
  }

  private count(step: number): void {
    if (step === step && (step !== this.currentStepValue || this.events === 0)) {
      this.currentStepValue = step;
      this.steps.add(step);
    } else if (this.events === 0) {
      this.steps.add(this.currentStepValue);
    }
    this.events++;
  }

  private timeOk(time: number, line: number): boolean {
    if (time < this.lastTimeSeen) {
      this.problem({
        line,
        field: 'time',
        message: `time ${time} is earlier than the previous event's ${this.lastTimeSeen} (${this.where(this.lastTimeAt)}); times must not decrease`,
      });
      return false;
    }
    this.lastTimeSeen = time;
    this.lastTimeAt = line;
    return true;
  }

  /** Bytes held by the check's tables (for tests of its memory). */
  get heldBytes(): number {
    return this.liveIds.byteLength + this.freedNow.byteLength + this.freedBefore.byteLength + this.steps.byteLength;
  }

  /**
   * Ends the check. Throws a {@link TraceError} listing every problem (up to 20, then a count) when
   * the input was invalid; otherwise returns what the trace's summary would say.
   */
  finishCheck(format: string, notes?: readonly string[]): CheckedTrace {
    this.problems.throwIfAny();
    return {
      ...(notes && notes.length > 0 ? { notes: [...notes] } : {}),
      path: this.file,
      format,
      meta: this.meta,
      summary: {
        events: this.events,
        allocs: this.allocated,
        frees: this.freed,
        steps: this.steps.count,
        peakLiveBytes: this.peak,
        peakLiveEvent: this.peakEvent,
        finalLiveBytes: this.liveBytes,
        finalLiveAllocs: this.liveCount,
      },
      skipped: { unknownFree: this.unknowns, doubleAlloc: this.doubles },
      initialEvents: this.initial,
    };
  }
}

function text(buf: Uint8Array, s: number, e: number): string {
  return Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('utf8');
}
