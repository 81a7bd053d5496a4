/** The dump of spec/bfc.md's small example, as TensorFlow 2.12 prints it (log prefixes left out). */

const emptyBin = (size: number): string =>
  `Bin (${size}): \tTotal Chunks: 0, Chunks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.`;

/** The spec's example, with the 19 empty bin lines TensorFlow prints and the example leaves out. */
export const SPEC_DUMP = [
  'Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.00GiB (rounded to 2147483648)requested by op ',
  'BFCAllocator dump for GPU_0_bfc',
  'Bin (256): \tTotal Chunks: 3, Chunks in use: 2. 768B allocated for chunks. 512B in use in bin. 512B client-requested in use in bin.',
  emptyBin(512), emptyBin(1024), emptyBin(2048), emptyBin(4096), emptyBin(8192), emptyBin(16384), emptyBin(32768),
  emptyBin(65536), emptyBin(131072), emptyBin(262144), emptyBin(524288), emptyBin(1048576), emptyBin(2097152),
  emptyBin(4194304), emptyBin(8388608), emptyBin(16777216), emptyBin(33554432), emptyBin(67108864), emptyBin(134217728),
  'Bin (268435456): \tTotal Chunks: 1, Chunks in use: 0. 1024.00MiB allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.',
  'Bin for 2.00GiB was 256.00MiB, Chunk State: ',
  '  Size: 1024.00MiB | Requested Size: 0B | in_use: 0 | bin_num: 20, prev:   Size: 256B | Requested Size: 256B | in_use: 1 | bin_num: -1',
  'Next region of size 1073741824',
  'InUse at 10000000000 of size 256 next 1',
  'Free  at 10000000100 of size 256 next 2',
  'InUse at 10000000200 of size 256 next 3',
  'Free  at 10000000300 of size 1073741056 next 18446744073709551615',
  '     Summary of in-use Chunks by size: ',
  '2 Chunks of size 256 totalling 512B',
  'Sum Total of in-use chunks: 512B',
  'total_region_allocated_bytes_: 1073741824 memory_limit_: 1073741824 available bytes: 0 curr_region_allocation_bytes_: 2147483648',
  'Stats: ',
  'Limit:                      1073741824',
  'InUse:                             512',
  'MaxInUse:                          768',
  'NumAllocs:                           3',
  'MaxAllocSize:                      256',
  'Reserved:                            0',
  'PeakReserved:                        0',
  'LargestFreeBlock:                    0',
  '',
  '*___________________________________________________________________________________________________',
  'Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.00GiB with freed_by_count=0.',
].join('\n');
