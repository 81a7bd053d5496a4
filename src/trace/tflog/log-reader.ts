/**
 * The first pass over a TensorFlow memory log: every `__LOG_MEMORY__` line parsed and sorted by
 * allocator (allocations and deallocations are keyed by allocator_name and allocation_id, and ids
 * are per allocator), the steps, and the counts the notes report.
 */
import type { TraceBuilder } from '../builder.js';
import { StringInterner } from '../string-interner.js';
import { AllocatorLog } from './allocator-log.js';
import { EventFeed } from './feed.js';
import {
  LogMessage,
  MESSAGE_NAMES,
  MSG_RAW_ALLOCATION,
  MSG_RAW_DEALLOCATION,
  MSG_STEP,
  MSG_TENSOR_ALLOCATION,
  MSG_TENSOR_DEALLOCATION,
  MSG_TENSOR_OUTPUT,
  MSG_UNKNOWN,
} from './messages.js';
import type { LineSink } from './scan.js';
import { TextProtoError, TextProtoParser } from './text-proto.js';

/** A MemoryLogStep line: the start of a step and its handle (feeds and fetches). */
export interface LoggedStep {
  stepId: number;
  handle: string;
  line: number;
}

/** Steps kept one by one (the rest are counted). */
export const MAX_KEPT_STEPS = 1000;
const MAX_UNKNOWN_NAMES = 5;

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09;
const isNameChar = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;

/** Collects a log's messages; it is the {@link LineSink} of the line scanner. */
export class LogReader implements LineSink {
  readonly parser = new TextProtoParser();
  /** kernel_name and operation strings; index 0 is the empty string. */
  readonly tags = new StringInterner();
  /** allocator_name strings; index 0 is the empty name. */
  readonly allocatorNames = new StringInterner();
  /** Per allocator, by index in {@link LogReader.allocatorNames}. */
  readonly logs: (AllocatorLog | undefined)[] = [];
  private readonly message: LogMessage;
  /** Messages per `MSG_*` code. */
  readonly messageCounts = new Float64Array(MESSAGE_NAMES.length);
  otherLines = 0;
  memoryLines = 0;
  readonly unknownNames: string[] = [];
  readonly steps: LoggedStep[] = [];
  stepCount = 0;
  minStep = Infinity;
  maxStep = -Infinity;

  /** Where the imported allocator's events go. */
  readonly feed: EventFeed;

  /**
   * @param only the allocator asked for: its events go to the feed as they are read, the others'
   *   are only counted; when undefined, every allocator's events are held until the choice is made.
   */
  constructor(
    private readonly builder: TraceBuilder,
    private readonly only: string | undefined,
    lenient: boolean,
  ) {
    this.feed = new EventFeed(builder, this.tags, lenient);
    this.message = new LogMessage(this.parser, this.tags, this.allocatorNames);
  }

  otherLine(): void {
    this.otherLines++;
  }

  memoryLine(buf: Buffer, lineStart: number, afterMarker: number, lineEnd: number, line: number): void {
    this.memoryLines++;
    let p = afterMarker;
    while (p < lineEnd && isBlank(buf[p] as number)) p++;
    const nameStart = p;
    while (p < lineEnd && isNameChar(buf[p] as number)) p++;
    if (p === nameStart) {
      this.builder.problem({ line, col: p - lineStart + 1, message: 'expected a message name (e.g. MemoryLogTensorAllocation) after __LOG_MEMORY__' });
      return;
    }
    const type = this.message.typeOfName(this.parser.names.intern(buf, nameStart, p));
    this.messageCounts[type] = (this.messageCounts[type] as number) + 1;
    if (type === MSG_UNKNOWN) {
      if (this.unknownNames.length < MAX_UNKNOWN_NAMES) {
        const name = buf.toString('latin1', nameStart, p);
        if (!this.unknownNames.includes(name)) this.unknownNames.push(name);
      }
      return;
    }
    // A tensor output names a tensor that already exists: it allocates nothing.
    if (type === MSG_TENSOR_OUTPUT) return;
    const m = this.message;
    m.begin(type);
    try {
      let q = this.parser.parseMessage(buf, p, lineEnd, m);
      while (q < lineEnd && (isBlank(buf[q] as number) || buf[q] === 0x0d)) q++;
      if (q < lineEnd) throw new TextProtoError(`unexpected ${this.parser.describe(q)} after the end of the message`, q);
    } catch (e) {
      if (!(e instanceof TextProtoError)) throw e;
      this.builder.problem({ line, col: e.pos - lineStart + 1, message: `${MESSAGE_NAMES[type]}: ${e.message}` });
      return;
    }
    this.dispatch(m, line);
  }

  private dispatch(m: LogMessage, line: number): void {
    switch (m.type) {
      case MSG_STEP:
        this.stepCount++;
        if (m.stepId < this.minStep) this.minStep = m.stepId;
        if (m.stepId > this.maxStep) this.maxStep = m.stepId;
        if (this.steps.length < MAX_KEPT_STEPS) this.steps.push({ stepId: m.stepId, handle: m.handle, line });
        return;
      case MSG_TENSOR_ALLOCATION:
      case MSG_RAW_ALLOCATION:
        this.logOf(m.allocator).allocation(m, line);
        return;
      case MSG_TENSOR_DEALLOCATION:
        this.logOf(m.allocator).tensorDeallocation(m, line);
        return;
      case MSG_RAW_DEALLOCATION:
        this.logOf(m.allocator).rawDeallocation(m, line);
        return;
      default:
    }
  }

  private logOf(allocator: number): AllocatorLog {
    let log = this.logs[allocator];
    if (!log) {
      const name = this.allocatorNames.strings[allocator] as string;
      log = this.only === name ? new AllocatorLog(name, false, this.feed) : new AllocatorLog(name, this.only === undefined);
      this.logs[allocator] = log;
    }
    return log;
  }

  /** The allocators logged, in name order (deterministic notes). */
  allocators(): AllocatorLog[] {
    return this.logs.filter((l): l is AllocatorLog => l !== undefined).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
