import { defineAllocator, FAILED, NO_BLOCK, type OnlineAllocator } from '../../src/allocators/types.js';
import { listAllocators, registerAllocator } from '../../src/allocators/registry.js';
import { naive } from '../../src/allocators/naive.js';

/**
 * A test allocator whose region size depends on the memory limit, as BFC's does: each region is
 * 60% of the limit (rounded down to 1 KiB), or the request when larger; requests are bumped into the
 * current region and nothing is reused. With requests of 2 KiB then 3 KiB it fits at 6 KiB
 * (regions 3+3), fails at 7 KiB (4+4 > 7), fits at 8 KiB (4+4) and at 9 KiB (one region of 5): not
 * monotone in capacity.
 */
class SixtyPercentRegions implements OnlineAllocator {
  allocatedBytes = 0;
  reservedBytes = 0;
  deviceAllocCalls = 0;
  deviceFreeCalls = 0;
  private regionLeft = 0;
  private sizes: number[] = [];
  private failed = 0;
  constructor(private readonly limit: number) {}
  allocate(sizeBytes: number): number {
    if (sizeBytes === 0) return NO_BLOCK;
    if (this.regionLeft < sizeBytes) {
      const region = Number.isFinite(this.limit) ? Math.max(sizeBytes, Math.floor((0.6 * this.limit) / 1024) * 1024) : sizeBytes;
      if (this.reservedBytes + region > this.limit) {
        this.failed = region;
        return FAILED;
      }
      this.reservedBytes += region;
      this.deviceAllocCalls++;
      this.regionLeft = region;
    }
    this.regionLeft -= sizeBytes;
    this.allocatedBytes += sizeBytes;
    this.sizes.push(sizeBytes);
    return this.sizes.length - 1;
  }
  free(handle: number): void {
    this.allocatedBytes -= this.sizes[handle] as number;
  }
  address(handle: number): number {
    return handle;
  }
  blockBytes(handle: number): number {
    return this.sizes[handle] as number;
  }
  largestFreeBlockBytes(): number {
    return this.regionLeft;
  }
  freeBlockCount(): number {
    return this.regionLeft > 0 ? 1 : 0;
  }
  lastFailure() {
    return { roundedBytes: this.failed, native: `region of ${this.failed} bytes refused` };
  }
  state() {
    return { segments: [] };
  }
  stats() {
    return {};
  }
}

export const sixtyPercent = defineAllocator({
  name: 'test-sixty-percent',
  summary: 'test only: regions of 60% of the limit',
  options: {},
  create: (_o, ctx) => new SixtyPercentRegions(ctx.capacityBytes),
});

/** A test allocator that needs a recorded history (it is never created on traces without one). */
export const needsHistory = defineAllocator({
  name: 'test-needs-history',
  summary: 'test only: needs a recorded history',
  options: {},
  needsRecordedHistory: true,
  create: (_o, ctx) => new SixtyPercentRegions(ctx.capacityBytes),
});

/** Names of the copies of `naive` that workers register from `naive-copies.mjs` (built code). */
export const NAIVE_COPIES = ['naive-b', 'naive-c', 'naive-d'];

/** Registers the test allocators in this thread's registry (once per test file). */
export function registerFakes(...defs: { name: string }[]): void {
  for (const d of defs) {
    if (!listAllocators().some((x) => x.name === d.name)) registerAllocator(d as never);
  }
}

/** Registers copies of naive under {@link NAIVE_COPIES} in this thread's registry. */
export function registerNaiveCopies(): void {
  registerFakes(...NAIVE_COPIES.map((name) => ({ ...naive, name })));
}
