import { SimDevice } from '../device.js';
import { type AllocationFailure, type AllocatorState, FAILED, NO_BLOCK, type OnlineAllocator } from '../types.js';
import { Bins, binForSize, MIN_ALLOCATION_BYTES, roundedBytes } from './bins.js';
import { BIN, ChunkTable, IN_USE, LINK_STRIDE, NEXT, NO_BIN, NO_CHUNK, NUM_STRIDE, PREV, PTR, REQUESTED, SIZE } from './chunks.js';
import { bfcOomSummary, bfcOomText } from './dump.js';
import { type Region, RegionManager } from './regions.js';
import { bfcNotes, bfcState, bfcStats } from './report.js';

/** The allocator's settings: `BFCAllocator::Options` plus the memory limit and the simulated device. */
export interface BfcSettings {
  /** `memory_limit_` (TensorFlow's `total_memory`). */
  memoryLimitBytes: number;
  allowGrowth: boolean;
  garbageCollection: boolean;
  fragmentationFraction: number;
  /** The device hands out contiguous regions that merge (`SubAllocator::SupportsCoalescing`). */
  coalesceRegions: boolean;
  /** Physical memory of the simulated device; Extend's device call fails past it. */
  deviceCapacityBytes: number;
  /** Address of the simulated device's first byte. */
  deviceBaseAddress: number;
  /** The allocator's name in its messages (`GPU_0_bfc`). */
  name: string;
  /** Op name of a trace event for the OOM text (TensorFlow's pending op annotation), or null. */
  opName?: (event: number) => string | null;
}

/** Address of the simulated device's first byte, as in the spec's example dump. */
export const BFC_DEVICE_BASE = 0x10000000000;
/** Alignment of separate regions: cudaMalloc hands out large allocations on 2 MiB pages. */
const SEPARATE_REGION_ALIGN = 2 * 1024 * 1024;
/** Default split threshold on internal fragmentation (`128 << 20`). */
const DEFAULT_MAX_INTERNAL_FRAGMENTATION = 128 * 1024 * 1024;
/** `kBackpedalFactor`, a float. */
const BACKPEDAL_FACTOR = Math.fround(0.9);

/**
 * TensorFlow's best-fit-with-coalescing allocator (`tsl::BFCAllocator`, TF 2.12–2.14) over a
 * simulated device. Block handles are chunk handles: a chunk keeps its handle while in use.
 */
export class BfcAllocator implements OnlineAllocator {
  readonly settings: BfcSettings;
  readonly chunks = new ChunkTable();
  readonly bins = new Bins(this.chunks);
  readonly regions = new RegionManager();
  readonly device: SimDevice;
  readonly limitBytes: number;
  /** `curr_region_allocation_bytes_`. */
  currRegionAllocationBytes: number;
  /** `total_region_allocated_bytes_`. */
  totalRegionAllocatedBytes = 0;
  /** `started_backpedal_`: the device refused a region once; no back-off ever again. */
  startedBackpedal = false;
  numAllocs = 0;
  bytesInUse = 0;
  peakBytesInUse = 0;
  largestAllocSize = 0;
  /** Region sizes the back-off went from and to (null: never backed off, or it found nothing). */
  backoff: { fromBytes: number; toBytes: number | null } | null = null;
  /** Garbage collections run, regions and bytes they returned. */
  gc = { runs: 0, regions: 0, bytes: 0 };
  /** Requests that failed. */
  failures = 0;
  /** Remarks fixed at creation (how the limit was chosen), before those the run adds. */
  staticNotes: string[] = [];
  /** Remarks on the trace, asked for when the report is made (the trace is complete then). */
  traceNotes: () => string[] = () => [];
  private readonly maxInternalFragmentation: number;
  private failNumBytes = 0;
  private failRounded = 0;
  private failEvent = -1;
  private failCache: AllocationFailure | null = null;

  constructor(settings: BfcSettings) {
    this.settings = settings;
    this.limitBytes = settings.memoryLimitBytes;
    this.device = new SimDevice(settings.deviceCapacityBytes, settings.deviceBaseAddress);
    const limit = settings.memoryLimitBytes;
    // As the BFCAllocator constructor: 2 MiB to start with when growing, else the whole limit.
    this.currRegionAllocationBytes = roundedBytes(settings.allowGrowth ? Math.min(limit, 2 * 1024 * 1024) : limit);
    // An int64 from a double, as FindChunkPtr computes it.
    this.maxInternalFragmentation =
      settings.fragmentationFraction > 0 ? Math.trunc(settings.fragmentationFraction * limit) : DEFAULT_MAX_INTERNAL_FRAGMENTATION;
  }

  get allocatedBytes(): number {
    return this.bytesInUse;
  }
  get reservedBytes(): number {
    return this.totalRegionAllocatedBytes;
  }
  get deviceAllocCalls(): number {
    return this.device.allocCalls;
  }
  get deviceFreeCalls(): number {
    return this.device.freeCalls;
  }

  /** As `BFCAllocator::AllocateRawInternal`: best fit, else Extend, else free empty regions and Extend. */
  allocate(sizeBytes: number, _stream: number, _step: number, event: number): number {
    if (sizeBytes === 0) return NO_BLOCK;
    const rounded = roundedBytes(sizeBytes);
    const bin = binForSize(rounded);
    const h = this.findChunk(bin, rounded, sizeBytes, event);
    return h >= 0 ? h : this.allocateSlow(bin, rounded, sizeBytes, event);
  }

  private allocateSlow(bin: number, rounded: number, sizeBytes: number, event: number): number {
    if (this.extend(rounded)) {
      const h = this.findChunk(bin, rounded, sizeBytes, event);
      if (h >= 0) return h;
    }
    if (this.deallocateFreeRegions(rounded) && this.extend(rounded)) {
      const h = this.findChunk(bin, rounded, sizeBytes, event);
      if (h >= 0) return h;
    }
    this.failures++;
    this.failNumBytes = sizeBytes;
    this.failRounded = rounded;
    this.failEvent = event;
    this.failCache = null;
    return FAILED;
  }

  /** As `BFCAllocator::FindChunkPtr`: take the best fit, split it if worth it, mark it in use. */
  private findChunk(bin: number, rounded: number, numBytes: number, event: number): number {
    const h = this.bins.bestFit(bin, rounded);
    if (h < 0) return -1;
    this.removeFree(h);
    const size = this.chunks.num[h * NUM_STRIDE + SIZE] as number;
    if (size >= rounded * 2 || size - rounded >= this.maxInternalFragmentation) this.split(h, rounded);
    // The chunk table may have grown in split: read its arrays now.
    const c = this.chunks;
    c.num[h * NUM_STRIDE + REQUESTED] = numBytes;
    c.link[h * LINK_STRIDE + IN_USE] = 1;
    c.event[h] = event;
    const got = c.num[h * NUM_STRIDE + SIZE] as number;
    this.numAllocs++;
    this.bytesInUse += got;
    if (this.bytesInUse > this.peakBytesInUse) this.peakBytesInUse = this.bytesInUse;
    if (got > this.largestAllocSize) this.largestAllocSize = got;
    (this.regions.inUse[c.regionOf[h] as number] as number)++;
    return h;
  }

  /** As `BFCAllocator::SplitChunk`: the high remainder becomes a new free chunk after `h`. */
  private split(h: number, numBytes: number): void {
    // The new handle first, as TensorFlow takes it before touching the chunk.
    const c = this.chunks;
    const n = c.allocate();
    const { num, link } = c;
    const hn = h * NUM_STRIDE;
    const nn = n * NUM_STRIDE;
    num[nn + PTR] = (num[hn + PTR] as number) + numBytes;
    num[nn + SIZE] = (num[hn + SIZE] as number) - numBytes;
    num[hn + SIZE] = numBytes;
    c.regionOf[n] = c.regionOf[h] as number;
    const hl = h * LINK_STRIDE;
    const nl = n * LINK_STRIDE;
    link[nl + IN_USE] = 0;
    const neighbour = link[hl + NEXT] as number;
    link[nl + PREV] = h;
    link[nl + NEXT] = neighbour;
    link[hl + NEXT] = n;
    if (neighbour !== NO_CHUNK) link[neighbour * LINK_STRIDE + PREV] = n;
    this.insertFree(n);
  }

  /** As `BFCAllocator::DeallocateRawInternal`: mark free, coalesce, put in its bin. */
  free(handle: number): void {
    const c = this.chunks;
    c.link[handle * LINK_STRIDE + IN_USE] = 0;
    this.bytesInUse -= c.num[handle * NUM_STRIDE + SIZE] as number;
    (this.regions.inUse[c.regionOf[handle] as number] as number)--;
    this.insertFree(this.tryToCoalesce(handle));
  }

  /** As `BFCAllocator::TryToCoalesce`: merge the next chunk in, then merge into the previous one. */
  private tryToCoalesce(h: number): number {
    const link = this.chunks.link;
    let out = h;
    const next = link[h * LINK_STRIDE + NEXT] as number;
    if (next !== NO_CHUNK && link[next * LINK_STRIDE + IN_USE] === 0) {
      this.removeFree(next);
      this.merge(h, next);
    }
    const prev = link[h * LINK_STRIDE + PREV] as number;
    if (prev !== NO_CHUNK && link[prev * LINK_STRIDE + IN_USE] === 0) {
      out = prev;
      this.removeFree(prev);
      this.merge(prev, h);
    }
    return out;
  }

  /** As `BFCAllocator::Merge`: `h2` (right after `h1`) joins `h1`; its handle is released. */
  private merge(h1: number, h2: number): void {
    const c = this.chunks;
    const { num, link } = c;
    const h3 = link[h2 * LINK_STRIDE + NEXT] as number;
    link[h1 * LINK_STRIDE + NEXT] = h3;
    if (h3 !== NO_CHUNK) link[h3 * LINK_STRIDE + PREV] = h1;
    num[h1 * NUM_STRIDE + SIZE] = (num[h1 * NUM_STRIDE + SIZE] as number) + (num[h2 * NUM_STRIDE + SIZE] as number);
    c.release(h2);
  }

  private insertFree(h: number): void {
    const c = this.chunks;
    const b = binForSize(c.num[h * NUM_STRIDE + SIZE] as number);
    c.link[h * LINK_STRIDE + BIN] = b;
    this.bins.insert(b, h);
  }

  private removeFree(h: number): void {
    const link = this.chunks.link;
    this.bins.remove(link[h * LINK_STRIDE + BIN] as number, h);
    link[h * LINK_STRIDE + BIN] = NO_BIN;
  }

  /**
   * As `BFCAllocator::Extend`: a new region of `curr_region_allocation_bytes_` (doubled until the
   * request fits, capped by what the limit leaves), backing off by 0.9 in float once per lifetime when
   * the device refuses; the size doubles for next time when it did not have to grow now.
   */
  private extend(rounded: number): boolean {
    const available = Math.floor((this.limitBytes - this.totalRegionAllocatedBytes) / MIN_ALLOCATION_BYTES) * MIN_ALLOCATION_BYTES;
    if (rounded > available) return false;
    let increased = false;
    while (rounded > this.currRegionAllocationBytes) {
      this.currRegionAllocationBytes *= 2;
      increased = true;
    }
    let bytes = Math.min(this.currRegionAllocationBytes, available);
    let addr = this.deviceMalloc(bytes);
    if (addr < 0 && !this.startedBackpedal) {
      this.startedBackpedal = true;
      const fromBytes = bytes;
      while (addr < 0) {
        // size_t * float is a float product; the conversion back to size_t truncates.
        bytes = roundedBytes(Math.trunc(Math.fround(Math.fround(bytes) * BACKPEDAL_FACTOR)));
        if (bytes < rounded) break;
        addr = this.deviceMalloc(bytes);
      }
      this.backoff = { fromBytes, toBytes: addr < 0 ? null : bytes };
    }
    if (addr < 0) return false;
    if (!increased) this.currRegionAllocationBytes *= 2;
    this.totalRegionAllocatedBytes += bytes;

    const extended = this.settings.coalesceRegions ? this.regions.precedingAt(addr) : undefined;
    const c = this.chunks;
    const h = c.allocate();
    c.setPtr(h, addr);
    c.setSize(h, bytes);
    c.setInUse(h, false);
    c.setPrev(h, NO_CHUNK);
    c.setNext(h, NO_CHUNK);
    if (extended) {
      // The new memory continues a region: link the new chunk after its last one.
      extended.sizeBytes += bytes;
      let last = extended.firstChunk;
      while (c.next(last) !== NO_CHUNK) last = c.next(last);
      c.setPrev(h, last);
      c.setNext(last, h);
      c.setRegion(h, extended.id);
    } else {
      c.setRegion(h, this.regions.add(addr, bytes, h).id);
    }
    this.insertFree(this.tryToCoalesce(h));
    return true;
  }

  private deviceMalloc(bytes: number): number {
    return this.device.malloc(bytes, this.settings.coalesceRegions ? MIN_ALLOCATION_BYTES : SEPARATE_REGION_ALIGN);
  }

  /**
   * As `BFCAllocator::DeallocateFreeRegions`: when garbage collection is on, return every region with
   * no chunk in use to the device, if that could make room for the request within the limit.
   */
  private deallocateFreeRegions(rounded: number): boolean {
    if (!this.settings.garbageCollection) return false;
    const empty: Region[] = [];
    let freeBytes = 0;
    for (const r of this.regions.regions) {
      if (this.regions.inUse[r.id] === 0) {
        empty.push(r);
        freeBytes += r.sizeBytes;
      }
    }
    if (freeBytes === 0) return false;
    if (rounded > this.limitBytes - this.totalRegionAllocatedBytes + freeBytes) return false;
    const c = this.chunks;
    for (const r of empty) {
      // As DeallocateRegions: chunks leave their bins and release their handles in address order.
      let h = r.firstChunk;
      while (h !== NO_CHUNK) {
        if (c.bin(h) !== NO_BIN) this.removeFree(h);
        const next = c.next(h);
        c.release(h);
        h = next;
      }
      this.device.free(r.ptr, r.sizeBytes);
      this.totalRegionAllocatedBytes -= r.sizeBytes;
      this.regions.remove(r);
    }
    this.gc.runs++;
    this.gc.regions += empty.length;
    this.gc.bytes += freeBytes;
    return true;
  }

  address(handle: number): number {
    return this.chunks.ptr(handle);
  }

  blockBytes(handle: number): number {
    return this.chunks.size(handle);
  }

  largestFreeBlockBytes(): number {
    return this.bins.largest();
  }

  freeBlockCount(): number {
    return this.bins.count;
  }

  /** `GetFragmentation`: the share of free bytes outside the largest free chunk (0 when none is free). */
  fragmentationMetric(): number {
    const available = this.totalRegionAllocatedBytes - this.bytesInUse;
    return available > 0 ? (available - this.bins.largest()) / available : 0;
  }

  lastFailure(): AllocationFailure {
    if (!this.failCache) {
      const op = this.failEvent >= 0 ? (this.settings.opName?.(this.failEvent) ?? null) : null;
      this.failCache = {
        roundedBytes: this.failRounded,
        native: bfcOomText(this, this.failNumBytes, this.failRounded, op),
        nativeSummary: bfcOomSummary(this, this.failNumBytes, this.failRounded, op),
      };
    }
    return this.failCache;
  }

  state(): AllocatorState {
    return bfcState(this);
  }

  stats(): Record<string, unknown> {
    return bfcStats(this);
  }

  notes(): string[] {
    return [...this.staticNotes, ...this.traceNotes(), ...bfcNotes(this)];
  }
}
