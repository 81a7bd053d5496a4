/**
 * The record of a failed request in a replay: the allocator's figures and message when the request
 * failed, and where the request is in the trace's file; and the same for the real run's failures of
 * a recorded history, which are no events of the trace.
 */
import type { OnlineAllocator, RecordedFailure } from '../allocators/types.js';
import type { OomFigures } from '../attribution/index.js';
import { eventSource } from '../trace/location.js';
import type { Trace } from '../trace/model.js';

/** One failed request: the figures its explanation reads, and where it is and what the allocator said. */
export interface OomRecord extends OomFigures {
  line: number | null;
  /** Where the request is in a file without lines (a snapshot), e.g. `device_traces[0][4]` (then `line` is null). */
  entry?: string;
  step: number;
  native: string;
  /** The allocator's short form of `native`, when it gives one (see AllocationFailure). */
  nativeSummary?: string;
  /** The failure in words, with the largest holders of the live bytes (added with the attribution). */
  explanation?: string;
}

/** The record of the request at event `i` that the allocator just failed. */
export function oomRecord(trace: Trace, allocator: OnlineAllocator, i: number, live: number, limit: number, capacityBytes: number): OomRecord {
  const failure = allocator.lastFailure();
  const sizeBytes = trace.size[i] as number;
  const reserved = allocator.reservedBytes;
  const tagIndex = trace.tag ? (trace.tag[i] as number) : 0;
  const finite = Number.isFinite(capacityBytes);
  return {
    event: i,
    ...locate(trace, i),
    step: trace.step[i] as number,
    id: trace.ids.get(trace.alloc[i] as number),
    tag: tagIndex > 0 ? (trace.tags[tagIndex] as string) : null,
    sizeBytes,
    roundedBytes: failure.roundedBytes,
    liveBytes: live,
    allocatedBytes: allocator.allocatedBytes,
    reservedBytes: reserved,
    capacityBytes: finite ? capacityBytes : null,
    // A recorded history may hold more than a smaller capacity: the device then has nothing free.
    deviceFreeBytes: finite ? Math.max(0, capacityBytes - reserved) : null,
    largestFreeBlockBytes: allocator.largestFreeBlockBytes(),
    freeBlocks: allocator.freeBlockCount(),
    kind: live + sizeBytes > limit ? 'capacity' : 'fragmentation',
    native: failure.native,
    ...(failure.nativeSummary !== undefined ? { nativeSummary: failure.nativeSummary } : {}),
    ...(failure.reason !== undefined ? { reason: failure.reason } : {}),
  };
}

/** The record of a failure of the real run (a recorded history's), before event `at`. */
export function recordedOomRecord(trace: Trace, allocator: OnlineAllocator, k: number, at: number, live: number, capacityBytes: number): OomRecord {
  const f = (allocator.recordedFailure as (k: number) => RecordedFailure)(k);
  const stepAt = Math.min(at, trace.length - 1);
  return {
    event: at,
    line: null,
    ...(f.entry !== null ? { entry: f.entry } : {}),
    recorded: true,
    step: stepAt >= 0 ? (trace.step[stepAt] as number) : 0,
    id: '',
    tag: null,
    sizeBytes: f.sizeBytes,
    roundedBytes: f.roundedBytes,
    liveBytes: live,
    allocatedBytes: f.allocatedBytes,
    reservedBytes: f.reservedBytes,
    capacityBytes: Number.isFinite(capacityBytes) ? capacityBytes : null,
    deviceFreeBytes: f.deviceFreeBytes,
    largestFreeBlockBytes: f.largestFreeBlockBytes,
    freeBlocks: f.freeBlocks,
    kind: live + f.sizeBytes > f.limitBytes ? 'capacity' : 'fragmentation',
    limitBytes: f.limitBytes,
    ...(f.capBelowBytes !== null ? { capBelowBytes: f.capBelowBytes } : {}),
    native: f.native,
    ...(f.nativeSummary !== undefined ? { nativeSummary: f.nativeSummary } : {}),
  };
}

/** `line`, and `entry` for files without lines. */
function locate(trace: Trace, i: number): { line: number | null; entry?: string } {
  const src = eventSource(trace, i);
  return src.entry !== null ? { line: null, entry: src.entry } : { line: src.line };
}
