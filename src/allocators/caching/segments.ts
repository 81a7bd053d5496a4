/**
 * Device memory of the caching allocator: new segments (alloc_block), returning cached segments
 * (release_block, release_available_cached_blocks, release_cached_blocks) and garbage collection
 * (garbage_collect_cached_blocks), as in CUDACachingAllocator.cpp.
 */
import type { SimDevice } from '../device.js';
import type { CachingSettings } from './config.js';
import { ExpandableStore } from './expandable.js';
import { kRoundLarge } from './sizes.js';
import { RESERVED_BYTES, SEGMENT } from './stats.js';

/** The segment-level half of the allocator. */
export class SegmentStore extends ExpandableStore {
  /** A memory fraction is in force (set_fraction). */
  readonly setFraction: boolean;
  /** allowed_memory_maximum: fraction · capacity. */
  readonly allowedBytes: number;
  /** Garbage collection runs (set_fraction and a threshold). */
  readonly gcActive: boolean;

  constructor(settings: CachingSettings, device: SimDevice) {
    super(settings, device);
    const f = settings.perProcessMemoryFraction;
    this.setFraction = f !== null;
    this.allowedBytes = f === null ? Infinity : Number.isFinite(device.capacityBytes) ? Math.floor(f * device.capacityBytes) : Infinity;
    this.gcActive = this.setFraction && settings.garbageCollectionThreshold > 0;
    this.trackAges = this.gcActive;
  }

  /** Registers a segment at `address` (already taken from the device) as a free, unsplit block. */
  addSegment(address: number, sizeBytes: number, streamIndex: number, isSmall: boolean): number {
    const id = this.newBlock(streamIndex, sizeBytes, address, isSmall, -1);
    this.totalAllocatedMemory += sizeBytes;
    this.counters.inc(SEGMENT, isSmall, 1);
    this.counters.inc(RESERVED_BYTES, isSmall, sizeBytes);
    if (sizeBytes >= this.settings.maxSplitSizeBytes) this.counters.oversizeSegments++;
    if (this.counters.oversizeSegments > this.counters.oversizeSegmentsPeak) this.counters.oversizeSegmentsPeak = this.counters.oversizeSegments;
    return id;
  }

  /**
   * alloc_block: a new segment of `allocSize` bytes from the device (or pages of an expandable
   * segment for `size`), as a block outside the free set; -1 when the device or the fraction refuses.
   */
  allocBlock(streamIndex: number, isSmall: boolean, size: number, allocSize: number, isRetry: boolean): number {
    if (isRetry) this.counters.numAllocRetries++;
    if (this.setFraction && this.totalAllocatedMemory + allocSize > this.allowedBytes) return -1;
    if (this.expandableMode) return this.tryAllocateExpandableBlock(streamIndex, isSmall, size);
    let address = -1;
    const recorded = this.placement ? this.placement.take('alloc', allocSize) : NaN;
    if (Number.isFinite(recorded) && this.device.mallocAt(recorded, allocSize)) address = recorded;
    else address = this.device.malloc(allocSize, kRoundLarge);
    if (address < 0) return -1;
    this.counters.numDeviceAlloc++;
    return this.addSegment(address, allocSize, streamIndex, isSmall);
  }

  /** release_block: a cached, unsplit segment goes back to the device. */
  releaseBlock(id: number): void {
    const size = this.size[id] as number;
    const small = this.isSmall(id);
    this.counters.numDeviceFree++;
    this.device.free(this.ptr[id] as number, size);
    this.totalAllocatedMemory -= size;
    this.counters.dec(SEGMENT, small, 1);
    this.counters.dec(RESERVED_BYTES, small, size);
    if (size >= this.settings.maxSplitSizeBytes) this.counters.oversizeSegments--;
    this.eraseFromBlocks(id);
    this.deleteBlock(id);
  }

  /**
   * release_available_cached_blocks (with max_split_size set): frees the smallest cached oversize
   * block that covers the request, else oversize blocks from the largest down until enough.
   */
  releaseAvailableCachedBlocks(streamIndex: number, isSmall: boolean, size: number): boolean {
    const maxSplit = this.settings.maxSplitSizeBytes;
    if (!Number.isFinite(maxSplit)) return false;
    if (streamIndex * 2 >= this.setCount) return false;
    const set = streamIndex * 2 + (isSmall ? 0 : 1);
    const key = size < maxSplit ? maxSplit : size;
    const found = this.setFirstAtLeast(set, key);
    if (found >= 0 && (this.seg[found] as number) < 0) {
      this.releaseBlock(found);
      return true;
    }
    // Back up one: the largest blocks of this stream below the key (expandable blocks are never
    // released here: release_block asserts they are not, so the walk stops at one).
    let id = found >= 0 ? this.setPrev(set, found) : this.setLast(set);
    let released = 0;
    while (id >= 0 && released < key && (this.size[id] as number) >= maxSplit) {
      if ((this.seg[id] as number) >= 0) break;
      const before = this.setPrev(set, id);
      released += this.size[id] as number;
      this.releaseBlock(id);
      id = before;
    }
    return released >= key;
  }

  /** The free blocks of a pool in BlockComparatorSize order (stream, size, address). */
  poolBlocksInOrder(isSmall: boolean): number[] {
    const out: number[] = [];
    for (const k of this.streamsInOrder()) {
      const set = k * 2 + (isSmall ? 0 : 1);
      if (this.count(set) > 0) out.push(...this.setBlocks(set));
    }
    return out;
  }

  /** release_blocks: every unsplit cached segment of a pool goes back; expandable free pages are unmapped. */
  releaseBlocks(isSmall: boolean): void {
    const toUnmap: number[] = [];
    for (const id of this.poolBlocksInOrder(isSmall)) {
      if ((this.seg[id] as number) >= 0) toUnmap.push(id);
      else if (!this.isSplit(id)) this.releaseBlock(id);
    }
    for (const id of toUnmap) {
      this.unmapBlock(id);
      if (!this.isSplit(id) && !this.isMapped(id)) this.releaseExpandableSegment(id);
    }
  }

  /** release_cached_blocks: after synchronizing, the large pool then the small pool. */
  releaseCachedBlocks(): boolean {
    this.counters.numSyncAllStreams++;
    this.releaseBlocks(false);
    this.releaseBlocks(true);
    return true;
  }

  /**
   * A failed request of the recorded history that the simulation fails too: as malloc does before
   * it raises, release_cached_blocks synchronises, the retry is counted, then the OOM.
   */
  countRecordedFailure(): void {
    this.counters.numSyncAllStreams++;
    this.counters.numAllocRetries++;
    this.counters.numOoms++;
  }

  /**
   * garbage_collect_cached_blocks: above threshold · allowed, frees unsplit cached large-pool blocks
   * whose age (best-fit searches of the pool since they were cached) is at least the average, and
   * repeats with the new average until the excess is reclaimed or nothing more can be freed.
   */
  garbageCollect(): void {
    const threshold = Math.floor(this.settings.garbageCollectionThreshold * this.allowedBytes);
    if (this.totalAllocatedMemory <= threshold) return;
    const target = this.totalAllocatedMemory - threshold;
    const calls = this.gcCalls[1] as number;
    const candidates = this.poolBlocksInOrder(false).filter((id) => !this.isSplit(id));
    const ages = candidates.map((id) => calls - (this.gcBase[id] as number));
    let totalAge = ages.reduce((s, a) => s + a, 0);
    let count = candidates.length;
    if (count === 0) return;
    const freed = new Uint8Array(count);
    let reclaimed = 0;
    let blockFreed = true;
    while (reclaimed < target && blockFreed && count > 0) {
      const ageThreshold = totalAge / count;
      blockFreed = false;
      for (let k = 0; k < candidates.length; k++) {
        const age = ages[k] as number;
        if (freed[k] || age < ageThreshold) continue;
        const id = candidates[k] as number;
        blockFreed = true;
        freed[k] = 1;
        reclaimed += this.size[id] as number;
        totalAge -= age;
        count--;
        this.releaseBlock(id);
      }
    }
  }
}
