/**
 * Whether a simulation reproduces an out-of-memory failure of the real run. The recorded trace holds
 * the failure (an `oom` entry with the rounded request and the device's free memory) but no request
 * for it: the program caught the error or stopped. The simulation is asked, in its own state at that
 * point, what serving the request would take: a cached block, or memory from the device after giving
 * back every cached segment and free page (what PyTorch does before it gives up), within what the
 * real allocator could hold then (its reserved bytes plus the free device memory).
 */
import type { RecordedOom } from '../../trace/model.js';
import type { CachingAllocator } from './allocator.js';
import type { ExpandableSegment } from './blocks.js';
import { oomMessage } from './oom.js';
import { allocationSize, kLargeBuffer, kSmallBuffer, kSmallSize } from './sizes.js';

/** The `fidelity` section's account of one recorded OOM. */
export interface RecordedOomCheck {
  /** The failure happened before this event. */
  beforeEvent: number;
  /** Where the snapshot records it, e.g. `device_traces[1][421]`. */
  entry: string | null;
  /** The request as recorded (rounded by PyTorch), and its stream. */
  sizeBytes: number;
  stream: number;
  /** Free device memory the real allocator saw (null when not recorded). */
  deviceFreeBytes: number | null;
  /** What the real allocator could hold then: its reserved bytes plus the free device memory. */
  limitBytes: number | null;
  /**
   * The device had room for what the real allocator asked of it: the real run stopped at a cap the
   * snapshot does not record (a memory fraction), not at the device's end.
   */
  deviceHadRoom: boolean;
  /** The simulation's reserved bytes at that point. */
  simulatedReservedBytes: number;
  /** True when a cached block of the simulation serves the request. */
  servedFromCache: boolean;
  /** Bytes the simulation would get from the device for it (0 when a cached block serves it). */
  neededBytes: number;
  /** Bytes the simulation could give back first (cached segments, free pages). */
  releasableBytes: number;
  /** The simulation fails there too (null when the free device memory is not recorded). */
  reproduced: boolean | null;
  /**
   * When it does: the message of torch.OutOfMemoryError from the simulation's state, with the free
   * device memory the real allocator saw (what the real run printed, less the NVML process line).
   */
  message?: string;
}

/** Whole pages inside [start, start + size) of an expandable segment. */
function wholePages(es: ExpandableSegment, start: number, size: number): number {
  const begin = Math.ceil((start - es.base) / es.pageBytes);
  const end = Math.floor((start + size - es.base) / es.pageBytes);
  return end > begin ? (end - begin) * es.pageBytes : 0;
}

/** Bytes release_cached_blocks would give back: unsplit cached segments and whole free pages. */
function releasableBytes(a: CachingAllocator): number {
  let bytes = 0;
  for (let k = 0; k < a.setCount; k++) {
    for (const id of a.setBlocks(k)) {
      const seg = a.seg[id] as number;
      if (seg < 0) {
        if (!a.isSplit(id)) bytes += a.size[id] as number;
      } else {
        bytes += wholePages(a.expandable[seg] as ExpandableSegment, a.ptr[id] as number, a.size[id] as number);
      }
    }
  }
  return bytes;
}

/** Pages an expandable segment of this stream and pool would map for the request (find_expandable_block, map_block). */
function expandableNeed(a: CachingAllocator, streamIndex: number, isSmall: boolean, size: number): number {
  const page = isSmall ? kSmallBuffer : kLargeBuffer;
  const set = streamIndex >= 0 ? a.unmappedSets[streamIndex * 2 + (isSmall ? 0 : 1)] : undefined;
  if (set) {
    for (let node = set.first(); node >= 0; node = set.next(node)) {
      let c = set.payload(node);
      const p = a.prev[c] as number;
      const freeBefore = p >= 0 && !a.isAllocated(p) && a.isMapped(p) ? (a.size[p] as number) : 0;
      if (freeBefore > 0) c = p;
      let room = 0;
      for (let b = c; b >= 0 && room < size && !a.isAllocated(b); b = a.next[b] as number) room += a.size[b] as number;
      if (room >= size) return Math.ceil((size - freeBefore) / page) * page;
    }
  }
  return Math.ceil(size / page) * page;
}

/** Checks a recorded OOM against the simulation's state now. */
export function checkRecordedOom(a: CachingAllocator, o: RecordedOom, recordedReservedBytes: number, capacityBytes: number, device: number): RecordedOomCheck {
  const size = o.sizeBytes;
  const stream = o.stream ?? 0;
  const isSmall = size <= kSmallSize;
  const streamIndex = a.knownStreamIndex(stream);
  const cached = streamIndex >= 0 && a.probeFreeBlock(streamIndex, isSmall, size) >= 0;
  const needed = cached ? 0 : a.expandableMode ? expandableNeed(a, streamIndex, isSmall, size) : allocationSize(size);
  const releasable = cached ? 0 : releasableBytes(a);
  const free = o.deviceFreeBytes;
  const limit = free === undefined ? null : Math.min(capacityBytes, recordedReservedBytes + free);
  const after = a.reservedBytes - releasable + needed;
  const overFraction = a.setFraction && a.totalAllocatedMemory - releasable + needed > a.allowedBytes;
  const reproduced = cached ? false : limit === null ? (overFraction ? true : null) : overFraction || after > limit;
  // Failing there, the allocator has released its cached blocks, then counts a retry and an OOM.
  if (reproduced) a.countRecordedFailure();
  const message =
    reproduced && Number.isFinite(capacityBytes)
      ? oomMessage({
          allocSizeBytes: allocationSize(size),
          device,
          totalBytes: capacityBytes,
          freeBytes: free ?? Math.max(0, capacityBytes - (a.reservedBytes - releasable)),
          allowedBytes: a.setFraction ? a.allowedBytes : null,
          allocatedBytes: a.allocatedBytes,
          reservedBytes: a.reservedBytes - releasable,
        })
      : undefined;
  return {
    beforeEvent: o.beforeEvent,
    entry: o.source ?? null,
    sizeBytes: size,
    stream,
    deviceFreeBytes: free ?? null,
    limitBytes: limit,
    deviceHadRoom: free !== undefined && free >= allocationSize(size),
    simulatedReservedBytes: a.reservedBytes,
    servedFromCache: cached,
    neededBytes: needed,
    releasableBytes: releasable,
    reproduced,
    ...(message !== undefined ? { message } : {}),
  };
}
