import { formatSize, oomMessage } from './caching/oom.js';

/**
 * PyTorch's `format_size` (c10/cuda/CUDACachingAllocator.cpp): `N bytes` up to 1024, then two
 * decimals of KiB up to 1 MiB, MiB up to 1 GiB, else GiB, rounded half to even as the C++ stream
 * prints the exact binary value (1.125 MiB prints as 1.12 MiB).
 */
export const pytorchFormatSize = formatSize;

/**
 * The OOM message of PyTorch's caching allocator (DeviceCachingAllocator::malloc) for a replay of
 * the recorded history, without the NVML process line a simulation cannot know.
 */
export function pytorchOomText(triedBytes: number, device: number, capacityBytes: number, reservedBytes: number, allocatedBytes: number): string {
  return oomMessage({
    allocSizeBytes: triedBytes,
    device,
    totalBytes: capacityBytes,
    freeBytes: Math.max(0, capacityBytes - reservedBytes),
    allowedBytes: null,
    allocatedBytes,
    reservedBytes: Math.max(reservedBytes, allocatedBytes),
  });
}
