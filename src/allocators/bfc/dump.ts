/**
 * The text TensorFlow's BFC allocator logs when a request fails, line by line as TF 2.12 prints it
 * (log prefixes left out): the warning of `AllocateRawInternal`, `DumpMemoryLog`, `RenderOccupancy`,
 * then the warning of `AllocateRaw`. Built only when a report asks for it.
 */
import type { BfcAllocator } from './allocator.js';
import { binForSize, binSize, NUM_BINS } from './bins.js';
import { NO_CHUNK } from './chunks.js';
import { hex, humanReadableNumBytes as H, INVALID_HANDLE_TEXT, statsRow } from './format.js';

/** Columns of the occupancy map (`RenderOccupancy`'s resolution). */
const OCCUPANCY_COLUMNS = 100;

/** Calls `fn(handle)` for every chunk, region by region in address order, chunks in address order. */
export function forEachChunk(a: BfcAllocator, fn: (h: number, regionIndex: number) => void): void {
  const c = a.chunks;
  a.regions.regions.forEach((r, i) => {
    for (let h = r.firstChunk; h !== NO_CHUNK; h = c.next(h)) fn(h, i);
  });
}

/** The first lines: `AllocateRawInternal`'s warning. */
function headLines(a: BfcAllocator, numBytes: number, rounded: number, op: string | null): string[] {
  const name = a.settings.name;
  const first = `Allocator (${name}) ran out of memory trying to allocate ${H(numBytes)} (rounded to ${rounded})requested by op ${op ?? ''}`;
  // Without an op name TF streams a null char*, which puts the stream in a failed state: the rest
  // of that message (the advice and the "summary follows" lines) is never printed.
  if (op === null) return [first];
  return [
    first,
    "If the cause is memory fragmentation maybe the environment variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' will improve the situation. ",
    'Current allocation summary follows.',
    'Current allocation summary follows.',
  ];
}

/** `Chunk::DebugString`. */
function chunkDebug(a: BfcAllocator, h: number, recurse: boolean): string {
  const c = a.chunks;
  let s =
    `  Size: ${H(c.size(h))} | Requested Size: ${H(c.requested(h))} | in_use: ${c.inUse(h) ? 1 : 0}` +
    ` | bin_num: ${c.bin(h)}`;
  const prev = c.prev(h);
  const next = c.next(h);
  if (recurse && prev !== NO_CHUNK) s += `, prev: ${chunkDebug(a, prev, false)}`;
  if (recurse && next !== NO_CHUNK) s += `, next: ${chunkDebug(a, next, false)}`;
  return s;
}

/** `get_bin_debug_info` and the bin lines of `DumpMemoryLog`. */
function binLines(a: BfcAllocator): string[] {
  const c = a.chunks;
  const total = new Array<number>(NUM_BINS).fill(0);
  const chunks = new Array<number>(NUM_BINS).fill(0);
  const inUse = new Array<number>(NUM_BINS).fill(0);
  const inUseChunks = new Array<number>(NUM_BINS).fill(0);
  const requested = new Array<number>(NUM_BINS).fill(0);
  forEachChunk(a, (h) => {
    const size = c.size(h);
    const b = binForSize(size);
    total[b] = (total[b] as number) + size;
    chunks[b] = (chunks[b] as number) + 1;
    if (c.inUse(h)) {
      inUse[b] = (inUse[b] as number) + size;
      requested[b] = (requested[b] as number) + c.requested(h);
      inUseChunks[b] = (inUseChunks[b] as number) + 1;
    }
  });
  const out: string[] = [];
  for (let b = 0; b < NUM_BINS; b++) {
    out.push(
      `Bin (${binSize(b)}): \tTotal Chunks: ${chunks[b]}, Chunks in use: ${inUseChunks[b]}. ${H(total[b] as number)} allocated for chunks. ` +
        `${H(inUse[b] as number)} in use in bin. ${H(requested[b] as number)} client-requested in use in bin.`,
    );
  }
  return out;
}

/** The free chunks of the bin the request maps to, in the bin's order. */
function binChunkHandles(a: BfcAllocator, rounded: number): number[] {
  return a.bins.handles(binForSize(rounded));
}

/** The region and chunk lines of `DumpMemoryLog`, and the in-use sizes they count. */
function regionLines(a: BfcAllocator, inUseBySize: Map<number, number>): string[] {
  const c = a.chunks;
  const out: string[] = [];
  for (const r of a.regions.regions) {
    out.push(`Next region of size ${r.sizeBytes}`);
    for (let h = r.firstChunk; h !== NO_CHUNK; h = c.next(h)) {
      const used = c.inUse(h);
      const size = c.size(h);
      if (used) inUseBySize.set(size, (inUseBySize.get(size) ?? 0) + 1);
      const next = c.next(h);
      out.push(`${used ? 'InUse' : 'Free '} at ${hex(c.ptr(h))} of size ${size} next ${next === NO_CHUNK ? INVALID_HANDLE_TEXT : next}`);
    }
  }
  return out;
}

/** `floor(num * cols / den)` exactly (the size_t arithmetic of `RenderRegion`). */
function column(offset: number, den: number): number {
  const num = offset * OCCUPANCY_COLUMNS;
  let q = Math.floor(num / den);
  if (q * den > num) q--;
  else if ((q + 1) * den <= num) q++;
  return q;
}

/** `RenderOccupancy`: `_` free, `*` requested bytes, `x` rounding waste, over all regions end to end. */
export function renderOccupancy(a: BfcAllocator): string {
  const total = a.regions.totalBytes();
  if (total === 0) return '<allocator contains no memory>';
  const cells = new Array<string>(OCCUPANCY_COLUMNS).fill('_');
  const paint = (start: number, size: number, ch: string): void => {
    const last = column(start + size - 1, total);
    for (let i = column(start, total); i <= last; i++) cells[i] = ch;
  };
  const c = a.chunks;
  let regionOffset = 0;
  for (const r of a.regions.regions) {
    for (let h = r.firstChunk; h !== NO_CHUNK; h = c.next(h)) {
      if (!c.inUse(h)) continue;
      const at = regionOffset + c.ptr(h) - r.ptr;
      const requested = c.requested(h);
      const wasted = c.size(h) - requested;
      if (wasted > 0) paint(at + requested, wasted, 'x');
      paint(at, requested, '*');
    }
    regionOffset += r.sizeBytes;
  }
  return cells.join('');
}

/** `AllocatorStats::DebugString` of the stats BFC keeps (it never sets the reserved figures). */
function statsLines(a: BfcAllocator): string[] {
  return [
    statsRow('Limit:', a.limitBytes),
    statsRow('InUse:', a.bytesInUse),
    statsRow('MaxInUse:', a.peakBytesInUse),
    statsRow('NumAllocs:', a.numAllocs),
    statsRow('MaxAllocSize:', a.largestAllocSize),
    statsRow('Reserved:', 0),
    statsRow('PeakReserved:', 0),
    statsRow('LargestFreeBlock:', 0),
  ];
}

/** The totals line after the chunk summary. */
function totalsLine(a: BfcAllocator): string {
  return (
    `total_region_allocated_bytes_: ${a.totalRegionAllocatedBytes} memory_limit_: ${a.limitBytes} ` +
    `available bytes: ${a.limitBytes - a.totalRegionAllocatedBytes} curr_region_allocation_bytes_: ${a.currRegionAllocationBytes}`
  );
}

/** TensorFlow's complete OOM text for a failed request of `numBytes` (rounded to `rounded`). */
export function bfcOomText(a: BfcAllocator, numBytes: number, rounded: number, op: string | null): string {
  const name = a.settings.name;
  const out = [...headLines(a, numBytes, rounded, op), `BFCAllocator dump for ${name}`, ...binLines(a)];
  out.push(`Bin for ${H(rounded)} was ${H(binSize(binForSize(rounded)))}, Chunk State: `);
  for (const h of binChunkHandles(a, rounded)) out.push(chunkDebug(a, h, true));
  const bySize = new Map<number, number>();
  out.push(...regionLines(a, bySize));
  out.push('     Summary of in-use Chunks by size: ');
  let totalBytes = 0;
  for (const [size, count] of [...bySize.entries()].sort((x, y) => x[0] - y[0])) {
    out.push(`${count} Chunks of size ${size} totalling ${H(size * count)}`);
    totalBytes += size * count;
  }
  out.push(`Sum Total of in-use chunks: ${H(totalBytes)}`, totalsLine(a), 'Stats: ', ...statsLines(a), '');
  out.push(renderOccupancy(a), `Allocator (${name}) ran out of memory trying to allocate ${H(numBytes)} with freed_by_count=0.`);
  return out.join('\n');
}

/**
 * A short form of the dump for the text report: the warning line, the request's bin, one line per
 * region (memsim's summary of its chunks), TensorFlow's totals and the occupancy map.
 */
export function bfcOomSummary(a: BfcAllocator, numBytes: number, rounded: number, op: string | null): string {
  const c = a.chunks;
  const out = [headLines(a, numBytes, rounded, op)[0] as string];
  const inBin = binChunkHandles(a, rounded);
  out.push(`Bin for ${H(rounded)} was ${H(binSize(binForSize(rounded)))}, Chunk State: ${inBin.length} free chunk${inBin.length === 1 ? '' : 's'}`);
  for (const h of inBin.slice(-2)) out.push(chunkDebug(a, h, false));
  const maxRegions = 8;
  let inUseBytes = 0;
  a.regions.regions.forEach((r, i) => {
    let used = 0;
    let usedBytes = 0;
    let free = 0;
    let largest = 0;
    for (let h = r.firstChunk; h !== NO_CHUNK; h = c.next(h)) {
      const size = c.size(h);
      if (c.inUse(h)) {
        used++;
        usedBytes += size;
      } else {
        free++;
        largest = Math.max(largest, size);
      }
    }
    inUseBytes += usedBytes;
    if (i < maxRegions) {
      out.push(`Next region of size ${r.sizeBytes} at ${hex(r.ptr)}: ${used} in use (${H(usedBytes)}), ${free} free (largest ${H(largest)})`);
    }
  });
  if (a.regions.regions.length > maxRegions) out.push(`… ${a.regions.regions.length - maxRegions} more regions`);
  out.push(`Sum Total of in-use chunks: ${H(inUseBytes)}`, totalsLine(a), renderOccupancy(a));
  return out.join('\n');
}
