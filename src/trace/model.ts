/**
 * The trace model: a columnar sequence of alloc/free events.
 *
 * Columns are typed arrays indexed by event; per-allocation tables are indexed by the allocation
 * number (the ordinal of its alloc event). A free event stores the allocation number it frees, so the
 * replay engine never looks up ids by string.
 */

import type { IdTable } from './id-table.js';

export const OP_ALLOC = 0;
export const OP_FREE = 1;
/** The alignment of an allocation whose event names none (TensorFlow's `Allocator::kAllocatorAlignment`). */
export const DEFAULT_ALIGN_BYTES = 64;
/** The largest alignment an event may ask for. */
export const MAX_ALIGN_BYTES = 2 ** 30;

/** Free-form description of a trace; `capacityBytes` is the default `--capacity`. */
export interface TraceMeta {
  name?: string;
  source?: string;
  capacityBytes?: number;
  [key: string]: unknown;
}

/** Events that `--lenient` skipped, by reason. Nothing is dropped silently. */
export interface SkippedCounts {
  /** Frees of an id that was not live (never allocated, or already freed). */
  unknownFree: number;
  /** Allocs of an id that was still live. */
  doubleAlloc: number;
}

/** Figures the reader computes in its single pass (they do not depend on any allocator). */
export interface TraceSummary {
  events: number;
  allocs: number;
  frees: number;
  /** Number of distinct step ids. */
  steps: number;
  peakLiveBytes: number;
  /** Event index at which live bytes first reached their peak (-1 for an empty trace). */
  peakLiveEvent: number;
  finalLiveBytes: number;
  /** Allocations still live at the end of the trace (leaks, or a window that ends mid-step). */
  finalLiveAllocs: number;
}

/**
 * A trace in memory. Sizes are exact integer bytes (safe integers), addresses never appear here
 * except in {@link Trace.recorded}, which importers of real allocator histories fill.
 */
export interface Trace {
  /** The file as the user named it (`-` for standard input). */
  path: string;
  /** The reader that produced it: `json`, `jsonl`, `csv`, `pytorch-snapshot`, `mst`, … */
  format: string;
  /**
   * For a trace loaded from a binary trace (`mst`): the format it was read from before it was written
   * so (`pytorch-snapshot`, `csv`, …). See {@link originFormat}.
   */
  sourceFormat?: string;
  meta: TraceMeta;
  /** Number of events. */
  length: number;
  /** {@link OP_ALLOC} or {@link OP_FREE} per event. */
  op: Uint8Array;
  /** Allocation number per event: the allocation created (alloc) or released (free). */
  alloc: Uint32Array;
  /** Requested bytes per event; on a free, the requested bytes of the allocation it releases. */
  size: Float64Array;
  /** Step id per event: 32-bit integers when every step fits (most traces), else doubles. */
  step: Int32Array | Float64Array;
  /** Stream per event, or null when every event is on stream 0. */
  stream: Float64Array | null;
  /** Tag index per event into {@link Trace.tags} (0 = no tag), or null when no event has a tag. */
  tag: Uint32Array | null;
  /** Timestamp per event, or null when no event has one. */
  time: Float64Array | null;
  /**
   * Alignment in bytes asked for by each alloc event (0 on frees), or null when every alloc asks for
   * the default {@link DEFAULT_ALIGN_BYTES}. Allocators that align as the real one did read it
   * (`lifetime-pool`); the others ignore it.
   */
  align: Uint32Array | null;
  /**
   * 1-based source line per event (0 when the event was synthesized, e.g. reconstructed); when
   * {@link Trace.entryList} is set, 1 + the index of the event's entry in that list instead. Null
   * while every event's line is its index plus {@link Trace.lineBase} (the usual file: a header, then
   * one event a line), so that the column takes no memory. Read it with {@link lineOf}.
   */
  line: Uint32Array | null;
  /** When {@link Trace.line} is null: the line of event 0 (event i is on line `i + lineBase`). */
  lineBase: number;
  /**
   * For files without lines (PyTorch snapshots): the list the events come from, e.g.
   * `device_traces[0]`, so that event i is entry `device_traces[0][line[i] - 1]`.
   */
  entryList?: string;
  /** Interned tags; `tags[0]` is the empty string. */
  tags: string[];
  /** Number of allocations (alloc events). */
  allocCount: number;
  /** The id of each allocation, as written in the source (integers as decimal strings): `ids.get(a)`. */
  ids: IdTable;
  /** Event index of each allocation's alloc. */
  allocEvent: Uint32Array;
  /** Event index of each allocation's free, or -1 when it is never freed. */
  freeEvent: Int32Array;
  summary: TraceSummary;
  skipped: SkippedCounts;
  /**
   * Number of leading events that are not in the source but reconstructed (e.g. allocations that were
   * live when a snapshot's window opened). They count as events everywhere.
   */
  initialEvents: number;
  /** Importer-specific record of what the real allocator did (addresses, segments, settings). */
  recorded?: RecordedHistory;
  /** The call stack of each allocation, when the source records stacks (PyTorch snapshots). */
  stacks?: TraceStacks;
}

/** The source line of event `i` (see {@link Trace.line}). */
export function lineOf(trace: Pick<Trace, 'line' | 'lineBase'>, i: number): number {
  const line = trace.line;
  return line !== null ? (line[i] as number) : i + trace.lineBase;
}

/** The lines of a trace's events as a column (a new one when the trace's column is implicit). */
export function lineColumn(trace: Pick<Trace, 'line' | 'lineBase' | 'length'>): Uint32Array {
  if (trace.line !== null) return trace.line;
  const col = new Uint32Array(trace.length);
  for (let i = 0; i < col.length; i++) col[i] = i + trace.lineBase;
  return col;
}

/**
 * The format a trace's events were first read from: {@link Trace.sourceFormat} for a binary trace,
 * else its format. What depends on the kind of recording (a snapshot's own allocator) asks this.
 */
export function originFormat(trace: Pick<Trace, 'format' | 'sourceFormat'>): string {
  return trace.sourceFormat ?? trace.format;
}

/**
 * Call stacks of allocations, interned: each distinct stack is stored once as a run of frame
 * indices, each distinct frame once as text, and each allocation names its stack by number. Only
 * the user's frames are kept (for PyTorch snapshots: past the allocator's, torch's own and the
 * interpreter's frames), innermost first; the first one is the allocation's tag.
 */
export interface TraceStacks {
  /** Stack per allocation (0: none recorded, or no user frame in it). */
  ofAllocation: Uint32Array;
  /** Stack `s` is `frameRun[runStart[s] .. runStart[s + 1])`; stack 0 is empty. */
  runStart: Uint32Array;
  /** Frame indices of every stack, one run after the other (16-bit where every index fits). */
  frameRun: Uint16Array | Uint32Array;
  /** Interned frames as `file:line:function` (the viewer's notation); `frames[0]` is unused (''). */
  frames: string[];
  /** File of each frame, an index into {@link TraceStacks.files}. */
  frameFile: Uint32Array;
  /** Interned file names; `files[0]` is unused (''). */
  files: string[];
}

/**
 * What a real allocator recorded alongside the events: the address of each allocation and the
 * device segments. Importers (PyTorch snapshots, TensorFlow logs) fill what they have.
 */
export interface RecordedHistory {
  /** Which allocator recorded it, e.g. `pytorch-caching`, `tensorflow-bfc`. */
  allocator: string;
  /** Recorded address per allocation (NaN where unknown). */
  address: Float64Array;
  /** Recorded allocated (rounded) bytes per allocation (NaN where unknown). */
  allocatedBytes: Float64Array;
  /** Device segments over time, ordered by event. */
  segmentEvents: RecordedSegmentEvent[];
  /** Segments that existed before the first event. */
  initialSegments: RecordedSegment[];
  /** Allocator settings in force when recording, as the source names them. */
  settings?: Record<string, unknown>;
  /** Segments at the end, as the source states them (for checking a replay of the history). */
  finalSegments?: RecordedSegment[];
  /**
   * Segments of the same process that belong to other devices (at the end): they share the
   * process's virtual address space with this device's, which tells how far a reservation reached.
   */
  otherSegments?: RecordedSegment[];
  /** Out-of-memory failures the real allocator recorded. */
  ooms?: RecordedOom[];
  /** Importer notes for the report (e.g. how the initial state was reconstructed). */
  notes?: string[];
  /** Anything else the importer wants to carry to the allocators that understand it. */
  extra?: Record<string, unknown>;
}

/** A device segment (PyTorch) or region (TensorFlow). */
export interface RecordedSegment {
  address: number;
  sizeBytes: number;
  stream: number;
  /** `small` or `large` pool (PyTorch), when known. */
  pool?: string;
  isExpandable?: boolean;
  /** Bytes in allocated blocks, when the source states it (a snapshot's final segments). */
  allocatedBytes?: number;
  /** Bytes in active blocks (allocated, or freed and still in use by a stream), when stated. */
  activeBytes?: number;
  /** The blocks that tile the segment, in address order, when known. */
  blocks?: RecordedBlock[];
  /** The device, when the segment is not the imported device's (see {@link RecordedHistory.otherSegments}). */
  device?: number;
}

/** A block inside a recorded segment. */
export interface RecordedBlock {
  address: number;
  sizeBytes: number;
  /** `allocated`, `pending` (freed by the program, still in use by a stream), or `free`. */
  state: 'allocated' | 'pending' | 'free';
  /** Requested bytes of an allocated or pending block. */
  requestedBytes?: number;
  /** The allocation number in the trace that occupies the block, when there is one. */
  allocation?: number;
}

/** A change of the device segments, placed before event `beforeEvent`. */
export interface RecordedSegmentEvent {
  /** The segment change happened just before this event index (length = after the last event). */
  beforeEvent: number;
  action: 'alloc' | 'free' | 'map' | 'unmap';
  address: number;
  sizeBytes: number;
  stream: number;
  /** Pool of a new or mapped segment (`small`/`large`), when the importer knows it. */
  pool?: string;
  /** Index of the entry in the source's list (orders it against a recorded OOM before the same event). */
  entry?: number;
}

/** An out-of-memory failure that the real allocator recorded (it has no alloc event in the trace). */
export interface RecordedOom {
  /** The failure happened just before this event index. */
  beforeEvent: number;
  /** What the allocator tried to allocate (PyTorch: the rounded request). */
  sizeBytes: number;
  /** Free device memory the allocator saw, when recorded. */
  deviceFreeBytes?: number;
  stream?: number;
  /** Where in the source it was recorded (e.g. `device_traces[0][1234]`). */
  source?: string;
  /** Index of the entry in the source's list (see {@link RecordedSegmentEvent.entry}). */
  entry?: number;
}
