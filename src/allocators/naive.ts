import { SimDevice } from './device.js';
import { opt } from './options.js';
import { type AllocatorState, defineAllocator, FAILED, NO_BLOCK, type OnlineAllocator, type SegmentState } from './types.js';

const roundUp = (n: number, m: number): number => Math.ceil(n / m) * m;

/** The naive allocator's options (see its registry entry). */
export interface NaiveOptions {
  alignment: number;
  page: number;
  large_threshold: number;
}

/**
 * Every request straight to the device and every free straight back (cudaMalloc/cudaFree with no
 * caching): the baseline that caching allocators beat on device calls.
 */
export class NaiveAllocator implements OnlineAllocator {
  private readonly device: SimDevice;
  private readonly opts: NaiveOptions;
  private addr = new Float64Array(1024);
  private bytes = new Float64Array(1024);
  private req = new Float64Array(1024);
  private evt = new Int32Array(1024);
  private nextHandle = 0;
  private freeHandles = new Int32Array(1024);
  private freeTop = 0;
  allocatedBytes = 0;
  private liveBlocks = 0;
  private failRounded = 0;

  /**
   * @param device the device to allocate from; other allocators that fall back to plain device
   *   calls (`lifetime-pool`) pass the one they share with their own pools.
   */
  constructor(opts: NaiveOptions, capacityBytes: number, device: SimDevice = new SimDevice(capacityBytes)) {
    this.opts = opts;
    this.device = device;
  }

  get reservedBytes(): number {
    return this.allocatedBytes;
  }
  get deviceAllocCalls(): number {
    return this.device.allocCalls;
  }
  get deviceFreeCalls(): number {
    return this.device.freeCalls;
  }

  /** The bytes the device grants for a request. */
  granted(size: number): number {
    return size > this.opts.large_threshold ? roundUp(size, this.opts.page) : roundUp(size, this.opts.alignment);
  }

  allocate(sizeBytes: number, _stream: number, _step: number, event: number): number {
    return this.allocateAligned(sizeBytes, 1, event);
  }

  /** A request whose block must be aligned to `alignBytes` as well (an aligned malloc). */
  allocateAligned(sizeBytes: number, alignBytes: number, event: number): number {
    if (sizeBytes === 0) return NO_BLOCK;
    const g = this.granted(sizeBytes);
    const granule = sizeBytes > this.opts.large_threshold ? this.opts.page : this.opts.alignment;
    const a = this.device.malloc(g, alignBytes > granule ? alignBytes : granule);
    if (a < 0) {
      this.failRounded = g;
      return FAILED;
    }
    const h = this.freeTop > 0 ? (this.freeHandles[--this.freeTop] as number) : this.newHandle();
    this.addr[h] = a;
    this.bytes[h] = g;
    this.req[h] = sizeBytes;
    this.evt[h] = event;
    this.allocatedBytes += g;
    this.liveBlocks++;
    return h;
  }

  private newHandle(): number {
    const h = this.nextHandle++;
    if (h === this.addr.length) {
      const grow = <T extends Float64Array | Int32Array>(a: T): T => {
        const b = new (a.constructor as { new (n: number): T })(a.length * 2);
        b.set(a);
        return b;
      };
      this.addr = grow(this.addr);
      this.bytes = grow(this.bytes);
      this.req = grow(this.req);
      this.evt = grow(this.evt);
      this.freeHandles = grow(this.freeHandles);
    }
    return h;
  }

  free(handle: number): void {
    const g = this.bytes[handle] as number;
    this.device.free(this.addr[handle] as number, g);
    this.allocatedBytes -= g;
    this.liveBlocks--;
    this.bytes[handle] = 0;
    this.freeHandles[this.freeTop++] = handle;
  }

  address(handle: number): number {
    return this.addr[handle] as number;
  }

  blockBytes(handle: number): number {
    return this.bytes[handle] as number;
  }

  largestFreeBlockBytes(): number {
    return 0;
  }

  freeBlockCount(): number {
    return 0;
  }

  lastFailure() {
    // What the CUDA runtime itself says: the error name and its string for cudaMalloc.
    return {
      roundedBytes: this.failRounded,
      native: `cudaMalloc(${this.failRounded}) failed: cudaErrorMemoryAllocation: out of memory`,
    };
  }

  state(): AllocatorState {
    const segments: SegmentState[] = [];
    for (let h = 0; h < this.nextHandle; h++) {
      const size = this.bytes[h] as number;
      if (size === 0) continue;
      const address = this.addr[h] as number;
      segments.push({
        address,
        sizeBytes: size,
        kind: 'block',
        blocks: [{ address, sizeBytes: size, requestedBytes: this.req[h] as number, allocEvent: this.evt[h] as number, isFree: false }],
      });
    }
    segments.sort((x, y) => x.address - y.address);
    return { segments };
  }

  stats(): Record<string, unknown> {
    return {
      allocated_bytes: this.allocatedBytes,
      live_blocks: this.liveBlocks,
      device_used_bytes: this.device.usedBytes,
      num_device_alloc: this.device.allocCalls,
      num_device_free: this.device.freeCalls,
    };
  }
}

export const naive = defineAllocator({
  name: 'naive',
  summary: 'every request straight to the device and back (cudaMalloc/cudaFree, no caching)',
  options: {
    alignment: opt.bytes(512, 'granularity of small device allocations', { min: 1 }),
    page: opt.bytes(2 * 1024 * 1024, 'physical page granularity of large allocations', { min: 1 }),
    large_threshold: opt.bytes(1024 * 1024, 'requests above this size take whole pages', { min: 0 }),
  },
  streams: () => true,
  create(options, ctx) {
    return new NaiveAllocator(options, ctx.capacityBytes);
  },
});
