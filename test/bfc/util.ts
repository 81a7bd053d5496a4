import { expect } from 'vitest';
import { BFC_DEVICE_BASE, BfcAllocator, type BfcSettings, checkBfc } from '../../src/allocators/bfc/index.js';
import { FAILED } from '../../src/allocators/types.js';

export const BASE = BFC_DEVICE_BASE;

/** A BFC allocator with TensorFlow's GPU defaults, a memory limit, and a device of that size. */
export function makeBfc(limitBytes: number, settings: Partial<BfcSettings> = {}): BfcAllocator {
  return new BfcAllocator({
    memoryLimitBytes: limitBytes,
    allowGrowth: false,
    garbageCollection: true,
    fragmentationFraction: 0,
    coalesceRegions: false,
    deviceCapacityBytes: limitBytes,
    deviceBaseAddress: BASE,
    name: 'GPU_0_bfc',
    ...settings,
  });
}

let event = 0;

/** Allocates and checks every invariant after it; returns the handle (or FAILED). */
export function take(a: BfcAllocator, bytes: number): number {
  const h = a.allocate(bytes, 0, 0, event++);
  expect(checkBfc(a)).toBeNull();
  return h;
}

/** Allocates what must succeed (checking every invariant); returns the handle. */
export function must(a: BfcAllocator, bytes: number): number {
  const h = take(a, bytes);
  expect(h).not.toBe(FAILED);
  return h;
}

/** Frees and checks every invariant after it. */
export function give(a: BfcAllocator, h: number): void {
  a.free(h);
  expect(checkBfc(a)).toBeNull();
}

/** Offset of a live block from the device base. */
export function off(a: BfcAllocator, h: number): number {
  return a.address(h) - BASE;
}

/** [offset, size, isFree] of every chunk, region by region. */
export function layout(a: BfcAllocator): [number, number, boolean][][] {
  return a.state().segments.map((s) => s.blocks.map((b) => [b.address - BASE, b.sizeBytes, b.isFree] as [number, number, boolean]));
}
