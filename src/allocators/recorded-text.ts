/**
 * PyTorch's `format_size` (c10/cuda/CUDACachingAllocator.cpp): `N bytes` up to 1024, then two
 * decimals of KiB up to 1 MiB, MiB up to 1 GiB, else GiB. The decimals round half to even, as the
 * C++ stream does on the exact binary value (1.125 MiB prints as 1.12 MiB).
 */
export function pytorchFormatSize(size: number): string {
  if (size <= 1024) return `${size} bytes`;
  const [unit, name] = size <= 1048576 ? [1024, 'KiB'] : size <= 1073741824 ? [1048576, 'MiB'] : [1073741824, 'GiB'];
  // size * 100 / unit is exact: the unit is a power of two and size * 100 stays below 2^53.
  const scaled = (size * 100) / unit;
  let r = Math.floor(scaled);
  const frac = scaled - r;
  if (frac > 0.5 || (frac === 0.5 && r % 2 === 1)) r++;
  return `${Math.floor(r / 100)}.${String(r % 100).padStart(2, '0')} ${name}`;
}

/**
 * The OOM message of PyTorch's caching allocator (DeviceCachingAllocator::malloc), without the
 * NVML process line a simulation cannot know.
 */
export function pytorchOomText(triedBytes: number, device: number, capacityBytes: number, reservedBytes: number, allocatedBytes: number): string {
  const f = pytorchFormatSize;
  return (
    `CUDA out of memory. Tried to allocate ${f(triedBytes)}. GPU ${device} has a total capacity of ${f(capacityBytes)} of which ` +
    `${f(Math.max(0, capacityBytes - reservedBytes))} is free. Of the allocated memory ${f(allocatedBytes)} is allocated by PyTorch, and ` +
    `${f(Math.max(0, reservedBytes - allocatedBytes))} is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting ` +
    'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  ' +
    '(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)'
  );
}
