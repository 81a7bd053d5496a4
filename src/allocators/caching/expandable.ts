/**
 * Expandable segments (Note [Expandable Segments] in CUDACachingAllocator.cpp): one segment per
 * stream and pool reserves address space for 9/8 of the device, and physical pages (2 MiB in the
 * small pool, 20 MiB in the large pool) are mapped under blocks when they are needed and unmapped
 * when an allocation fails. New memory goes to the lowest address where free plus unmapped space
 * is enough.
 */
import { expandableSpaceBytes, UNLIMITED_DEVICE_BYTES } from './address-space.js';
import { BlockStore, F_UNMAPPED, type ExpandableSegment } from './blocks.js';
import { kLargeBuffer, kSmallBuffer } from './sizes.js';
import { RESERVED_BYTES } from './stats.js';

/** Where the recorded allocator placed new device memory, when replaying a recorded history. */
export interface SegmentPlacement {
  /** The recorded address of new device memory of `sizeBytes` at the current event, or NaN. */
  take(kind: 'alloc' | 'map', sizeBytes: number): number;
}

/** The expandable-segment half of the allocator (map_block, unmap_block and their helpers). */
export class ExpandableStore extends BlockStore {
  placement: SegmentPlacement | null = null;
  /**
   * The device total the reservations are made for (totalGlobalMem): the capacity, or an unlimited
   * device's default, unless a recorded history bounds it lower (see address-space.ts).
   */
  deviceTotalBytes = Number.isFinite(this.device.capacityBytes) ? this.device.capacityBytes : UNLIMITED_DEVICE_BYTES;

  /** Address space of one expandable segment: totalGlobalMem + totalGlobalMem / 8, in whole pages. */
  expandableSpaceBytes(pageBytes: number): number {
    return expandableSpaceBytes(this.deviceTotalBytes, pageBytes);
  }

  /** Registers a segment whose address space is already reserved; returns its unmapped block. */
  addExpandableSegment(base: number, sizeBytes: number, streamIndex: number, isSmall: boolean): number {
    const es: ExpandableSegment = { base, sizeBytes, pageBytes: isSmall ? kSmallBuffer : kLargeBuffer, streamIndex, isSmall };
    this.expandable.push(es);
    const id = this.newBlock(streamIndex, sizeBytes, base, isSmall, this.expandable.length - 1);
    this.flags[id] = (this.flags[id] as number) | F_UNMAPPED;
    this.insertUnmapped(id);
    return id;
  }

  private allocatable(id: number): boolean {
    return id >= 0 && !this.isAllocated(id);
  }

  private hasAvailableAddressSpace(id: number, sizeBytes: number): boolean {
    let bytes = 0;
    let b = id;
    while (bytes < sizeBytes && this.allocatable(b)) {
      bytes += this.size[b] as number;
      b = this.next[b] as number;
    }
    return bytes >= sizeBytes;
  }

  /**
   * find_expandable_block: the lowest-address unmapped range of this stream and pool (with the free
   * block just before it) that has room for `sizeBytes`, else a new segment.
   */
  findExpandableBlock(streamIndex: number, isSmall: boolean, sizeBytes: number): number {
    const set = this.unmappedSets[streamIndex * 2 + (isSmall ? 0 : 1)];
    if (set) {
      for (let node = set.first(); node >= 0; node = set.next(node)) {
        let c = set.payload(node);
        const p = this.prev[c] as number;
        if (this.allocatable(p)) c = p;
        if (this.hasAvailableAddressSpace(c, sizeBytes)) return c;
      }
    }
    const page = isSmall ? kSmallBuffer : kLargeBuffer;
    const space = this.expandableSpaceBytes(page);
    let base = this.placement ? this.placement.take('map', NaN) : NaN;
    if (!(Number.isFinite(base) && this.device.reserveAddressSpaceAt(base, space))) base = this.device.reserveAddressSpace(space, kSmallBuffer);
    if (base < 0) return -1;
    return this.addExpandableSegment(base, space, streamIndex, isSmall);
  }

  /**
   * map_block: maps whole pages under the first `sizeBytes` of an unmapped block; the rest stays
   * unmapped after it; the mapped part merges with free neighbours and joins the free set.
   */
  mapBlock(id: number, sizeBytes: number): boolean {
    const es = this.expandable[this.seg[id] as number] as ExpandableSegment;
    const start = this.ptr[id] as number;
    const begin = Math.floor((start - es.base) / es.pageBytes);
    const end = Math.ceil((start + sizeBytes - es.base) / es.pageBytes);
    if (begin === end) return false;
    const mapped = (end - begin) * es.pageBytes;
    if (!this.device.mapPhysical(mapped)) return false;
    this.eraseUnmapped(id);
    this.flags[id] = (this.flags[id] as number) & ~F_UNMAPPED;
    const whole = this.size[id] as number;
    if (mapped < whole) {
      const rest = this.newBlock(this.streamOf[id] as number, whole - mapped, start + mapped, es.isSmall, this.seg[id] as number);
      this.flags[rest] = (this.flags[rest] as number) | F_UNMAPPED;
      this.splice(rest, id, this.next[id] as number);
      this.insertUnmapped(rest);
      this.size[id] = mapped;
    }
    this.tryMerge(id, this.prev[id] as number);
    this.tryMerge(id, this.next[id] as number);
    this.insertIntoBlocks(id);
    this.totalAllocatedMemory += mapped;
    this.counters.inc(RESERVED_BYTES, es.isSmall, mapped);
    this.counters.numDeviceAlloc++;
    return true;
  }

  /** try_allocate_expandable_block: a free, mapped block of at least `sizeBytes`, outside the free set; -1 on OOM. */
  tryAllocateExpandableBlock(streamIndex: number, isSmall: boolean, sizeBytes: number): number {
    let c = this.findExpandableBlock(streamIndex, isSmall, sizeBytes);
    if (c < 0) return -1;
    if (!this.isMapped(c) && !this.mapBlock(c, Math.min(this.size[c] as number, sizeBytes))) return -1;
    while ((this.size[c] as number) < sizeBytes) {
      const nc = this.next[c] as number;
      if (nc < 0 || this.isMapped(nc)) return -1;
      if (!this.mapBlock(nc, Math.min(sizeBytes - (this.size[c] as number), this.size[nc] as number))) return -1;
      c = nc;
    }
    this.eraseFromBlocks(c);
    return c;
  }

  /**
   * unmap_block: gives back the whole pages inside a free block; the partial pages at its ends stay
   * as free blocks, and the unmapped range merges with unmapped neighbours.
   */
  unmapBlock(id: number): void {
    const es = this.expandable[this.seg[id] as number] as ExpandableSegment;
    const start = this.ptr[id] as number;
    const whole = this.size[id] as number;
    const begin = Math.ceil((start - es.base) / es.pageBytes);
    const end = Math.floor((start + whole - es.base) / es.pageBytes);
    if (begin >= end) return;
    this.unmapRange(id, es.base + begin * es.pageBytes, (end - begin) * es.pageBytes);
  }

  /**
   * Unmaps the whole pages [uStart, uStart + uSize) of the free, mapped block `id` (in the free set);
   * the parts of the block around them stay free blocks.
   */
  unmapRange(id: number, uStart: number, uSize: number): void {
    const es = this.expandable[this.seg[id] as number] as ExpandableSegment;
    const start = this.ptr[id] as number;
    const whole = this.size[id] as number;
    this.eraseFromBlocks(id);
    const before = uStart - start;
    const stream = this.streamOf[id] as number;
    if (before > 0) {
      const b = this.newBlock(stream, before, start, es.isSmall, this.seg[id] as number);
      this.splice(b, this.prev[id] as number, id);
      this.insertIntoBlocks(b);
    }
    const after = whole - (before + uSize);
    if (after > 0) {
      const a = this.newBlock(stream, after, uStart + uSize, es.isSmall, this.seg[id] as number);
      this.splice(a, id, this.next[id] as number);
      this.insertIntoBlocks(a);
    }
    this.ptr[id] = uStart;
    this.size[id] = uSize;
    this.flags[id] = (this.flags[id] as number) | F_UNMAPPED;
    this.tryMerge(id, this.prev[id] as number);
    this.tryMerge(id, this.next[id] as number);
    this.insertUnmapped(id);
    this.totalAllocatedMemory -= uSize;
    this.device.unmapPhysical(uSize);
    this.counters.dec(RESERVED_BYTES, es.isSmall, uSize);
    this.counters.numDeviceFree++;
  }

  /** release_expandable_segment: a wholly unmapped segment gives its address space back. */
  releaseExpandableSegment(id: number): void {
    const k = this.seg[id] as number;
    const es = this.expandable[k] as ExpandableSegment;
    this.eraseUnmapped(id);
    this.device.releaseAddressSpace(es.base, es.sizeBytes);
    this.expandable[k] = null;
    this.deleteBlock(id);
  }
}
