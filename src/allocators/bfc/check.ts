/**
 * A full consistency check of a BFC allocator's structures, for tests and debugging (O(chunks)):
 * what must hold after every request if the simulation is right.
 */
import type { BfcAllocator } from './allocator.js';
import { binForSize, MIN_ALLOCATION_BYTES, NUM_BINS } from './bins.js';
import { NO_BIN, NO_CHUNK } from './chunks.js';

/**
 * Returns the first broken invariant, or null:
 * - the chunks of each region tile it exactly (addresses contiguous, sizes sum to the region,
 *   prev/next links agree), and every size is a multiple of 256;
 * - no two adjacent chunks of a region are both free;
 * - every free chunk is in the bin its size maps to, keyed by (size, address); in-use chunks are in
 *   no bin; the bins hold nothing else;
 * - bytes_in_use, the region total and the per-region in-use counts equal the sums over chunks;
 *   regions are sorted and do not overlap.
 */
export function checkBfc(a: BfcAllocator): string | null {
  const c = a.chunks;
  let inUseBytes = 0;
  let freeChunks = 0;
  let regionBytes = 0;
  let lastEnd = -Infinity;
  for (const r of a.regions.regions) {
    if (r.ptr < lastEnd) return `region at ${r.ptr} overlaps the previous one`;
    lastEnd = r.ptr + r.sizeBytes;
    regionBytes += r.sizeBytes;
    let at = r.ptr;
    let prev = NO_CHUNK;
    let prevFree = false;
    let used = 0;
    for (let h = r.firstChunk; h !== NO_CHUNK; h = c.next(h)) {
      const size = c.size(h);
      if (c.ptr(h) !== at) return `chunk ${h} at ${c.ptr(h)} should start at ${at}`;
      if (c.prev(h) !== prev) return `chunk ${h} has prev ${c.prev(h)}, expected ${prev}`;
      if (c.region(h) !== r.id) return `chunk ${h} names region ${c.region(h)}, lies in ${r.id}`;
      if (size <= 0 || size % MIN_ALLOCATION_BYTES !== 0) return `chunk ${h} has size ${size}`;
      const isFree = !c.inUse(h);
      if (isFree && prevFree) return `chunks ${prev} and ${h} are adjacent and both free`;
      if (isFree) {
        freeChunks++;
        const b = binForSize(size);
        if (c.bin(h) !== b) return `free chunk ${h} of ${size} B is in bin ${c.bin(h)}, expected ${b}`;
        if (!a.bins.contains(b, h)) return `free chunk ${h} is missing from bin ${b}`;
      } else {
        if (c.bin(h) !== NO_BIN) return `chunk ${h} is in use and in bin ${c.bin(h)}`;
        inUseBytes += size;
        used++;
      }
      prevFree = isFree;
      prev = h;
      at += size;
    }
    if (at !== r.ptr + r.sizeBytes) return `chunks of region ${r.id} end at ${at}, the region at ${r.ptr + r.sizeBytes}`;
    if (a.regions.inUse[r.id] !== used) return `region ${r.id} counts ${a.regions.inUse[r.id]} chunks in use, has ${used}`;
  }
  if (freeChunks !== a.bins.count) return `the bins hold ${a.bins.count} chunks, the regions ${freeChunks} free ones`;
  let binned = 0;
  for (let b = 0; b < NUM_BINS; b++) {
    const handles = a.bins.handles(b);
    if (handles.length !== a.bins.sizeOf(b)) return `bin ${b} counts ${a.bins.sizeOf(b)} chunks, holds ${handles.length}`;
    if (((a.bins.nonEmpty >> b) & 1) !== (handles.length > 0 ? 1 : 0)) return `bin ${b}'s non-empty bit is wrong`;
    for (let i = 1; i < handles.length; i++) {
      const x = handles[i - 1] as number;
      const y = handles[i] as number;
      const sx = c.size(x);
      const sy = c.size(y);
      if (sx > sy || (sx === sy && c.ptr(x) >= c.ptr(y))) return `bin ${b} is out of (size, address) order`;
    }
    for (const h of handles) {
      if (c.inUse(h) || c.bin(h) !== b) return `bin ${b} holds chunk ${h}, which is not a free chunk of that bin`;
      if (!a.bins.heapOrdered(h)) return `bin ${b}'s heap order is broken at chunk ${h}`;
    }
    binned += handles.length;
  }
  if (binned !== freeChunks) return `the bins hold ${binned} chunks, the regions ${freeChunks} free ones`;
  if (inUseBytes !== a.bytesInUse) return `bytes_in_use is ${a.bytesInUse}, the chunks in use sum to ${inUseBytes}`;
  if (regionBytes !== a.totalRegionAllocatedBytes) return `total_region_allocated_bytes is ${a.totalRegionAllocatedBytes}, regions sum to ${regionBytes}`;
  if (a.bytesInUse > a.peakBytesInUse) return 'bytes_in_use above its peak';
  if (a.totalRegionAllocatedBytes > a.limitBytes) return 'regions exceed the memory limit';
  return null;
}
