/**
 * The size arithmetic of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp):
 * request rounding, pool choice and the segment size asked of the device.
 */

/** All sizes are rounded to at least this (kMinBlockSize). */
export const kMinBlockSize = 512;
/** Largest "small" request (kSmallSize): rounded sizes up to it go to the small pool. */
export const kSmallSize = 1048576;
/** Small requests are packed in segments of this size (kSmallBuffer). */
export const kSmallBuffer = 2097152;
/** Requests between 1 and 10 MiB share 20 MiB segments (kMinLargeAlloc). */
export const kMinLargeAlloc = 10485760;
/** Larger segments are rounded up to a multiple of this (kRoundLarge). */
export const kRoundLarge = 2097152;
/** Segment size for requests between 1 and 10 MiB, and the large pool's expandable page (kLargeBuffer). */
export const kLargeBuffer = 20971520;
/** Number of power-of-two intervals that `roundup_power2_divisions` configures (from 1 MiB). */
export const kRoundUpPowerOfTwoIntervals = 16;

const TWO32 = 4294967296;

/** floor(log2(n)) for a positive safe integer, exact where Math.log2 may round (as 63 - clz64). */
export function floorLog2(n: number): number {
  if (n < TWO32) return 31 - Math.clz32(n);
  return 63 - Math.clz32(Math.floor(n / TWO32));
}

/** True for 1, 2, 4, … (llvm::isPowerOf2_64; 0 is not a power of two). */
export function isPowerOf2(n: number): boolean {
  return n > 0 && 2 ** floorLog2(n) === n;
}

/** The interval of `roundup_power2_divisions` that a size falls in (AllocatorConfig::roundup_power2_divisions). */
export function divisionsIndex(size: number): number {
  const index = floorLog2(size) - 20;
  return index < 0 ? 0 : index > kRoundUpPowerOfTwoIntervals - 1 ? kRoundUpPowerOfTwoIntervals - 1 : index;
}

/**
 * Rounds up to the next of `divisions` equal steps between the surrounding powers of two; powers of
 * two stay (DeviceCachingAllocator::roundup_power2_next_division).
 */
export function roundupPower2NextDivision(size: number, divisions: number): number {
  if (isPowerOf2(size)) return size;
  const power2Floor = 2 ** floorLog2(size);
  const step = Math.floor(power2Floor / 2 ** floorLog2(divisions));
  if (step === 0) return power2Floor * 2;
  const floor = Math.floor(size / step) * step;
  return floor === size ? size : floor + step;
}

/**
 * The block size a request of `size` bytes is served with (DeviceCachingAllocator::round_size):
 * 512 at least, power-of-two divisions where configured for the size's interval and the size is
 * above 512·d, else a multiple of 512.
 */
export function roundSize(size: number, divisions: ArrayLike<number>): number {
  if (size < kMinBlockSize) return kMinBlockSize;
  const d = divisions[divisionsIndex(size)] as number;
  if (d > 1 && size > kMinBlockSize * d) return roundupPower2NextDivision(size, d);
  return kMinBlockSize * Math.ceil(size / kMinBlockSize);
}

/** The segment size asked of cudaMalloc for a rounded size (get_allocation_size). */
export function allocationSize(size: number): number {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * Math.ceil(size / kRoundLarge);
}
