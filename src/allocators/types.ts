import type { RecordedOom, Trace } from '../trace/model.js';
import type { OptionSpec, OptionValues } from './options.js';

/** `allocate` result: the request could not be served within the device capacity. */
export const FAILED = -1;
/** `allocate` result: the request was served without a block (a 0-byte request). Never freed. */
export const NO_BLOCK = -2;

/**
 * What an allocator sees of the run: the device capacity (its memory limit) and the trace, which
 * allocators that replay or compare with a recorded history (`recorded`, `caching`) read.
 */
export interface AllocatorContext {
  /** Device capacity in bytes; Infinity when unlimited. */
  capacityBytes: number;
  trace: Trace;
  /**
   * How an allocator that simulates the trace's recorded allocator (see
   * {@link AllocatorDefinition.recordedAs}) starts: `recorded` (default) from the recorded segments and
   * blocks of the moment the window opened, with the recorded history's placements; `fresh` as a new
   * process would, every event (the window's initial live blocks first) served by the simulation
   * alone. The replay engine decides it (src/sim/start.ts); allocators only obey.
   */
  start?: 'recorded' | 'fresh';
}

/** The allocator's own account of a failed request, taken right after `allocate` returned FAILED. */
export interface AllocationFailure {
  /** The size the allocator tried to serve after its rounding. */
  roundedBytes: number;
  /** The allocator's own OOM text, exactly as the real allocator prints it. */
  native: string;
  /**
   * A short form of `native` for the compact text report, when the allocator knows better than "the
   * first lines" which ones matter (e.g. a dump of thousands of chunks). Absent: the first lines.
   */
  nativeSummary?: string;
  /**
   * Why it failed, when that is not the usual story (no free block, and the device could give no
   * more): the report's explanation says this instead.
   */
  reason?: string;
}

/**
 * An out-of-memory failure of the real run that a recorded history holds. It has no request in the
 * trace (the program caught it, or stopped); the `recorded` allocator reports it where it happened,
 * with the figures and the text of the real allocator.
 */
export interface RecordedFailure extends AllocationFailure {
  /** It happened just before this event (the trace's length: after the last one). */
  beforeEvent: number;
  /** The request as the real allocator recorded it. */
  sizeBytes: number;
  allocatedBytes: number;
  reservedBytes: number;
  /** Free device memory the real allocator saw, when recorded. */
  deviceFreeBytes: number | null;
  /**
   * The limit its classification is made against: what the real allocator could have held (reserved
   * plus free device memory); when the device had room for the request (`capBelowBytes`), the cap in
   * force: `--capacity` where it lies within the cap's bounds, else what it held (the cap's least).
   */
  limitBytes: number;
  /**
   * Set when the device had room for what the real allocator asked it for: a cap the history does not
   * record (such as a memory fraction) stopped it, below this many bytes (reserved plus that request).
   */
  capBelowBytes: number | null;
  largestFreeBlockBytes: number;
  freeBlocks: number;
  /** Where the source records it, e.g. `device_traces[1][421]`. */
  entry: string | null;
}

/** A block inside a segment, for reports and plots. */
export interface BlockState {
  address: number;
  sizeBytes: number;
  /** Requested bytes of the allocation in the block (absent for free blocks). */
  requestedBytes?: number;
  /** Event index of the alloc that the block serves (absent for free blocks). */
  allocEvent?: number;
  isFree: boolean;
}

/** A contiguous piece of device memory that the allocator holds (region, segment, pool). */
export interface SegmentState {
  address: number;
  sizeBytes: number;
  /** What the allocator calls it: `region`, `small`, `large`, `pool`, `block`… */
  kind: string;
  stream?: number;
  blocks: BlockState[];
}

/** A snapshot of an allocator's memory at one moment. */
export interface AllocatorState {
  segments: SegmentState[];
}

/**
 * An online allocator: it sees one request at a time, as the real one does. Blocks are named by
 * small integer handles so that the replay engine keeps them in typed arrays.
 */
export interface OnlineAllocator {
  /**
   * Serves a request of `sizeBytes` on `stream` at trace event `event` (step `step`).
   * @returns a block handle (>= 0), {@link NO_BLOCK}, or {@link FAILED}.
   */
  allocate(sizeBytes: number, stream: number, step: number, event: number): number;
  /** Releases a block returned by `allocate`. */
  free(handle: number, step: number, event: number): void;
  /** Device address of a live block. */
  address(handle: number): number;
  /** Bytes the allocator set aside for a live block (its rounding and unsplit remainders included). */
  blockBytes(handle: number): number;
  /** Sum of the block sizes handed out and not freed. */
  readonly allocatedBytes: number;
  /** Bytes held from the device now. */
  readonly reservedBytes: number;
  /** Times the allocator obtained memory from the device. */
  readonly deviceAllocCalls: number;
  /** Times the allocator returned memory to the device. */
  readonly deviceFreeCalls: number;
  /**
   * The memory limit the allocator works under, when it is not the device capacity (e.g. a memory
   * fraction); OOMs are classified against it.
   */
  readonly limitBytes?: number;
  /** Largest free block inside what the allocator holds. */
  largestFreeBlockBytes(): number;
  /** Number of free blocks inside what the allocator holds. */
  freeBlockCount(): number;
  /** Details of the last failure; valid right after `allocate` returned FAILED. */
  lastFailure(): AllocationFailure;
  /** Segments and blocks now. */
  state(): AllocatorState;
  /** The allocator's own statistics, under the names the real allocator uses. */
  stats(): Record<string, unknown>;
  /** Called once after the last event replayed. */
  finish?(lastEvent: number): void;
  /**
   * The events before which the recorded history holds a failure of the real run (ascending), for
   * allocators that replay a history (`recorded`); the engine counts each as an OOM when it gets there.
   */
  recordedFailureEvents?(): readonly number[];
  /** Recorded failure `k` (in the order of {@link OnlineAllocator.recordedFailureEvents}), in the state right before it. */
  recordedFailure?(k: number): RecordedFailure;
  /**
   * For a simulation of a recorded history: how many of the real run's OOMs (requests that failed on
   * the device, no events of the trace) met so far this allocator fails at too, judged from its own
   * state as the real allocator would (its cache released first). A what-if that fails where the
   * real run failed does not fit, whatever the trace's own events do.
   */
  realOomsReproduced?(): number;
  /**
   * Whether this allocator fails at the real run's OOM `o` of the recorded history it replays, from
   * its own state (undefined when it does not judge them itself: the engine then compares the
   * request with its largest free block and what the real allocator could hold).
   */
  realOomVerdict?(o: RecordedOom): boolean | null | undefined;
  /** Plain-language remarks for the report (e.g. "the pools were never built"). */
  notes?(): string[];
  /**
   * Extra top-level sections of the replay report (e.g. `fidelity` against a recorded history);
   * they are added after the standard fields and never replace them.
   */
  reportSections?(): Record<string, unknown>;
}

/** One option a what-if search varies, and the values worth trying, in the order to try them. */
export interface WhatIfKey {
  key: string;
  /** Values as option text, as `NAME[key=value]` writes them (`none`, `true`, `256`, `[256:1,>:8]`). */
  values: string[];
}

/**
 * What `memsim tune` may change in an allocator, and how a user sets it. Declared in the registry
 * entry, so that the registry stays the one place that knows an allocator.
 */
export interface WhatIfSpace {
  /** What `memsim tune` tries, in one line, for `memsim allocators` and the README. */
  summary: string;
  /**
   * The keys and values worth trying on `trace` (fitted to it where they depend on it), given the
   * options in force now (`current`: every option with its effective value).
   */
  keys(trace: Trace, current: Record<string, unknown>): WhatIfKey[];
  /**
   * The setting as the user types it to run with `options` (every option with its effective value),
   * e.g. `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`; the real program's defaults when none differs.
   */
  setting(options: Record<string, unknown>): string;
}

/** A registered allocator: its name, description, options and factory. */
export interface AllocatorDefinition<S extends Record<string, OptionSpec<unknown>> = Record<string, OptionSpec<unknown>>> {
  /** What users call it: `naive`, `bfc`, `caching`, `lifetime-pool`, `recorded`. */
  name: string;
  /** One line for `memsim allocators`. */
  summary: string;
  options: S;
  /**
   * Option defaults that come from the trace itself (e.g. a snapshot's own allocator settings);
   * they replace the registry defaults but not the user's options. Returns a note for the report.
   */
  defaultsFromTrace?(trace: Trace): { values: Partial<Record<keyof S, unknown>>; note: string } | undefined;
  /** True when the allocator can only run on traces with a recorded history. */
  needsRecordedHistory?: boolean;
  /**
   * True when, with these options and capacity, the allocator may replay a trace that is still being
   * read (`replay` reads large files on another thread and replays as the events arrive): its
   * creation needs nothing of the trace beyond its meta, and it reads the trace's columns only at the
   * event it is given, when it is given it. Omitted: the replay waits for the whole trace.
   */
  streams?(options: OptionValues<S>, capacityBytes: number): boolean;
  /** The settings `memsim tune` searches; absent: nothing to tune (a reference row). */
  whatIf?: WhatIfSpace;
  /**
   * The `allocator` of recorded histories that this one simulates (e.g. `pytorch-caching`): its
   * fidelity against a history of another kind compares unlike allocators, and the report says so.
   */
  recordedAs?: readonly string[];
  /**
   * Options that a recorded history may hold without stating them (PyTorch's memory fraction, set
   * through `torch.cuda.set_per_process_memory_fraction`, is not in a snapshot's allocator_settings):
   * a value given for one where the recording shows the default is taken as the recording's own and
   * does not by itself make the replay start fresh.
   */
  unstatedInRecording?: readonly string[];
  /**
   * About how long a replay takes per event, relative to `naive`'s (1, the default), as measured on
   * the 10^6-event benchmark trace: `compare` starts the costliest rows first so that its threads
   * finish together.
   */
  relativeCost?: number;
  create(options: OptionValues<S>, ctx: AllocatorContext): OnlineAllocator;
}

/** Declares an allocator with its option types inferred. */
export function defineAllocator<S extends Record<string, OptionSpec<unknown>>>(def: AllocatorDefinition<S>): AllocatorDefinition<S> {
  return def;
}
