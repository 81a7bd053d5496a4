/** BFC's figures for reports: `stats()` under TensorFlow's names and `state()` for plots. */
import type { AllocatorState, BlockState, SegmentState } from '../types.js';
import type { BfcAllocator } from './allocator.js';
import { NO_CHUNK } from './chunks.js';
import { humanReadableNumBytes as H } from './format.js';

/**
 * TensorFlow's `AllocatorStats` names (`num_allocs`, `bytes_in_use`, …) plus the allocator's own
 * counters that its dump prints (`total_region_allocated_bytes_`, `curr_region_allocation_bytes_`),
 * the `fragmentation_metric` of its memory map, and the number of regions.
 */
export function bfcStats(a: BfcAllocator): Record<string, unknown> {
  return {
    num_allocs: a.numAllocs,
    bytes_in_use: a.bytesInUse,
    peak_bytes_in_use: a.peakBytesInUse,
    largest_alloc_size: a.largestAllocSize,
    bytes_limit: a.limitBytes,
    total_region_allocated_bytes: a.totalRegionAllocatedBytes,
    curr_region_allocation_bytes: a.currRegionAllocationBytes,
    fragmentation_metric: a.fragmentationMetric(),
    regions: a.regions.regions.length,
    free_chunks: a.bins.count,
    largest_free_chunk: a.bins.largest(),
    started_backpedal: a.startedBackpedal,
    garbage_collections: a.gc.runs,
  };
}

/** Regions in address order, each with its chunks (in use: requested size and alloc event). */
export function bfcState(a: BfcAllocator): AllocatorState {
  const c = a.chunks;
  const segments: SegmentState[] = a.regions.regions.map((r) => {
    const blocks: BlockState[] = [];
    for (let h = r.firstChunk; h !== NO_CHUNK; h = c.next(h)) {
      const block: BlockState = { address: c.ptr(h), sizeBytes: c.size(h), isFree: !c.inUse(h) };
      if (!block.isFree) {
        block.requestedBytes = c.requested(h);
        block.allocEvent = c.event[h] as number;
      }
      blocks.push(block);
    }
    return { address: r.ptr, sizeBytes: r.sizeBytes, kind: 'region', blocks };
  });
  return { segments };
}

/** What happened in the run that a reader should know: back-off, garbage collection, muted dumps. */
export function bfcNotes(a: BfcAllocator): string[] {
  const notes: string[] = [];
  if (a.backoff) {
    const to = a.backoff.toBytes;
    notes.push(
      `the device refused a region of ${H(a.backoff.fromBytes)}; BFC backed off by 0.9 ` +
        (to === null ? 'without finding a size that fits' : `to ${H(to)}`) +
        ' (TensorFlow backs off once per allocator lifetime; later refusals fail at once)',
    );
  }
  if (a.gc.runs > 0) {
    notes.push(`garbage collection returned ${a.gc.regions} empty region(s) (${H(a.gc.bytes)}) to the device in ${a.gc.runs} run(s) before retrying a request`);
  }
  if (a.failures > 10) {
    notes.push(`TensorFlow logs its dump for the first 10 failures of a process only; memsim gives it for every recorded OOM (${a.failures} failures)`);
  }
  return notes;
}
