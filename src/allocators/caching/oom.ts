/**
 * PyTorch's out-of-memory text, byte for byte as DeviceCachingAllocator::malloc builds it (PyTorch
 * 2.11, checked against the messages in test/fixtures/pytorch-gpu), with format_size's number
 * formatting.
 */

const KiB = 1024n;
const MiB = 1048576n;
const GiB = 1073741824n;

/**
 * `x / unit` with two decimals, as `std::fixed` with precision 2 prints the exact binary value:
 * round to nearest, ties to even (1.125 MiB prints as 1.12 MiB, where toFixed would say 1.13).
 */
function fixed2(size: bigint, unit: bigint): string {
  const scaled = size * 100n;
  let q = scaled / unit;
  const r2 = (scaled % unit) * 2n;
  if (r2 > unit || (r2 === unit && q % 2n === 1n)) q += 1n;
  const whole = q / 100n;
  const cents = q % 100n;
  return `${whole}.${cents < 10n ? '0' : ''}${cents}`;
}

/** PyTorch's format_size: `N bytes` up to 1024, then KiB up to 1 MiB, MiB up to 1 GiB, else GiB. */
export function formatSize(sizeBytes: number): string {
  const n = BigInt(Math.max(0, Math.round(sizeBytes)));
  if (n <= KiB) return `${n} bytes`;
  if (n <= MiB) return `${fixed2(n, KiB)} KiB`;
  if (n <= GiB) return `${fixed2(n, MiB)} MiB`;
  return `${fixed2(n, GiB)} GiB`;
}

/** What the OOM message is built from, captured when the request failed. */
export interface OomFigures {
  /** The segment size it tried to get from the device (alloc_size), not the request. */
  allocSizeBytes: number;
  device: number;
  totalBytes: number;
  freeBytes: number;
  /** The memory-fraction limit, or null when no fraction is in force. */
  allowedBytes: number | null;
  allocatedBytes: number;
  reservedBytes: number;
}

/**
 * The message of torch.OutOfMemoryError. A simulation has no NVML process list, so the
 * "Including non-PyTorch memory, this process has …" part is absent, and it has no CUDA-graph
 * private pools, so "with … allocated in private pools" never appears.
 */
export function oomMessage(f: OomFigures): string {
  const allowed = f.allowedBytes === null ? '' : `${formatSize(f.allowedBytes)} allowed; `;
  return (
    `CUDA out of memory. Tried to allocate ${formatSize(f.allocSizeBytes)}. GPU ${f.device} has a total capacity of ` +
    `${formatSize(f.totalBytes)} of which ${formatSize(f.freeBytes)} is free. ${allowed}Of the allocated memory ` +
    `${formatSize(f.allocatedBytes)} is allocated by PyTorch, and ${formatSize(f.reservedBytes - f.allocatedBytes)} ` +
    'is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting ' +
    'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management ' +
    ' (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)'
  );
}
