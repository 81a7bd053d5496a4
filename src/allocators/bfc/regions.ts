/**
 * BFC's region manager (`BFCAllocator::RegionManager`): the device allocations the allocator holds,
 * in address order. Each region records its first chunk; the chunks of a region form a linked list
 * through `ChunkTable.prev/next` and tile it exactly. Regions are few (one per Extend), so plain
 * arrays do; the per-event work is only the in-use counter of a chunk's region.
 */

import { grown } from '../../util/typed-arrays.js';

/** One region (`AllocationRegion`). */
export interface Region {
  /** memsim's stable id, for the per-region in-use counts. */
  id: number;
  ptr: number;
  sizeBytes: number;
  /** Handle of the chunk at `ptr`; it stays the same for the region's lifetime. */
  firstChunk: number;
}

export class RegionManager {
  /** Regions sorted by address (TensorFlow keeps them sorted by end address: the same order). */
  readonly regions: Region[] = [];
  /** In-use chunks per region id. */
  inUse = new Int32Array(16);
  private nextId = 0;

  /** Adds a separate region (`AddAllocationRegion`). */
  add(ptr: number, sizeBytes: number, firstChunk: number): Region {
    const id = this.nextId++;
    if (id === this.inUse.length) this.inUse = grown(this.inUse, id * 2);
    const region = { id, ptr, sizeBytes, firstChunk };
    this.regions.splice(this.insertionIndex(ptr), 0, region);
    return region;
  }

  /**
   * The region that ends exactly at `ptr`, which `AddOrExtendAllocationRegion` extends instead of
   * adding a new one; undefined when there is none.
   */
  precedingAt(ptr: number): Region | undefined {
    const i = this.insertionIndex(ptr);
    const before = i > 0 ? this.regions[i - 1] : undefined;
    return before && before.ptr + before.sizeBytes === ptr ? before : undefined;
  }

  /** Removes a region (`RemoveAllocationRegion`). */
  remove(region: Region): void {
    const i = this.regions.indexOf(region);
    if (i >= 0) this.regions.splice(i, 1);
  }

  /** Sum of region sizes. */
  totalBytes(): number {
    let t = 0;
    for (const r of this.regions) t += r.sizeBytes;
    return t;
  }

  /** Index of the first region whose end is past `ptr` (std::upper_bound with the end comparator). */
  private insertionIndex(ptr: number): number {
    let lo = 0;
    let hi = this.regions.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const r = this.regions[mid] as Region;
      if (ptr < r.ptr + r.sizeBytes) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
