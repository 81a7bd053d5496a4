// Writes a synthetic TensorFlow memory log (stderr of a training run with TF_CPP_VMODULE=log_memory=2):
//   node scripts/gen-tflog.mjs <out.log> <size, e.g. 1GB> [--noise N] [--steps N]
// Each step logs a MemoryLogStep, tensor allocations with their MemoryLogTensorOutput, GPU Eigen
// scratch (raw allocation, deferred deallocation and its confirmation), a host buffer on
// "cuda_host_bfc", and the step's deallocations; `--noise N` adds N other lines per allocation,
// `--steps N` stops after N steps.
// Used by the streaming tests and by scripts/bench-tflog.mjs.
import { closeSync, openSync, writeSync } from 'node:fs';

const PREFIX = '2024-05-01 10:00:01.123456: I tensorflow/core/framework/log_memory.cc:35] __LOG_MEMORY__ ';
const NOISE = '2024-05-01 10:00:01.123457: I tensorflow/core/common_runtime/executor.cc:1197] [/device:GPU:0] Executor start (step not really) some other verbose output line';
const BASE = 0x7f2a00000000;
const HOST_BASE = 0x7f3000000000;

/**
 * Writes about `targetBytes` of log to `path`.
 * @returns what a reader must find: allocations and deallocations of GPU_0_bfc, its peak live bytes, lines.
 */
export function writeTfLog(path, targetBytes, options = {}) {
  const noise = options.noise ?? 0;
  const maxSteps = options.steps ?? Infinity;
  const fd = openSync(path, 'w');
  let chunk = '';
  let bytes = 0;
  let lines = 0;
  const emit = (line) => {
    chunk += line + '\n';
    lines++;
    if (chunk.length > 1 << 20) {
      bytes += writeSync(fd, chunk);
      chunk = '';
    }
  };
  let id = 0;
  let hostId = 0;
  let allocs = 0;
  let frees = 0;
  let peakLive = 0;
  let step = 0;
  emit('2024-05-01 10:00:00.000001: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1928] Created device /job:localhost/replica:0/task:0/device:GPU:0');
  while (bytes + chunk.length < targetBytes && step < maxSteps) {
    step++;
    emit(`${PREFIX}MemoryLogStep { step_id: ${step} handle: "->/train_op/0/;${step}" }`);
    const live = [];
    let offset = 0;
    let liveBytes = 0;
    for (let k = 0; k < 40; k++) {
      const elems = 256 * ((k * 7919 + step) % 97 + 1);
      const requested = elems * 4;
      const allocated = Math.ceil(requested / 256) * 256;
      const ptr = BASE + offset;
      offset += allocated;
      liveBytes += requested;
      id++;
      allocs++;
      const kernel = `model/layer_${k}/conv2d/Conv2D`;
      const tensor = `tensor { dtype: DT_FLOAT shape { dim { size: ${elems / 256} } dim { size: 16 } dim { size: 16 } } allocation_description { requested_bytes: ${requested} allocated_bytes: ${allocated} allocator_name: "GPU_0_bfc" allocation_id: ${id} has_single_reference: true ptr: ${ptr} } }`;
      emit(`${PREFIX}MemoryLogTensorAllocation { step_id: ${step} kernel_name: "${kernel}" ${tensor} }`);
      emit(`${PREFIX}MemoryLogTensorOutput { step_id: ${step} kernel_name: "${kernel}" ${tensor} }`);
      for (let n = 0; n < noise; n++) emit(NOISE);
      live.push(id);
      if (k % 10 === 0) {
        id++;
        allocs++;
        frees++;
        const op = `model/layer_${k}/Sum/EigenAllocator`;
        emit(`${PREFIX}MemoryLogRawAllocation { step_id: ${step} operation: "${op}" num_bytes: 1024 ptr: ${BASE + offset} allocation_id: ${id} allocator_name: "GPU_0_bfc" }`);
        if (liveBytes + 1024 > peakLive) peakLive = liveBytes + 1024;
        emit(`${PREFIX}MemoryLogRawDeallocation { step_id: ${step} operation: "${op}" allocation_id: ${id} allocator_name: "GPU_0_bfc" deferred: true }`);
        emit(`${PREFIX}MemoryLogRawDeallocation { step_id: ${step} operation: "${op}" allocation_id: ${id} allocator_name: "GPU_0_bfc" }`);
      }
      if (liveBytes > peakLive) peakLive = liveBytes;
    }
    hostId++;
    emit(`${PREFIX}MemoryLogRawAllocation { step_id: -5 operation: "SetProtoFromGPU" num_bytes: 4 ptr: ${HOST_BASE} allocation_id: ${hostId} allocator_name: "cuda_host_bfc" }`);
    emit(`${PREFIX}MemoryLogRawDeallocation { step_id: -5 operation: "SetProtoFromGPU" allocation_id: ${hostId} allocator_name: "cuda_host_bfc" }`);
    for (const x of live) {
      frees++;
      emit(`${PREFIX}MemoryLogTensorDeallocation { allocation_id: ${x} allocator_name: "GPU_0_bfc" }`);
    }
  }
  if (chunk.length > 0) bytes += writeSync(fd, chunk);
  closeSync(fd);
  return { bytes, lines, steps: step, allocs, frees, peakLiveBytes: peakLive };
}

const units = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3 };
if (import.meta.url === `file://${process.argv[1]}`) {
  const [out, size, ...rest] = process.argv.slice(2);
  const m = /^([\d.]+)\s*([a-z]*)$/i.exec(size ?? '');
  if (!out || !m) {
    console.error('usage: node scripts/gen-tflog.mjs <out.log> <size, e.g. 1GB> [--noise N] [--steps N]');
    process.exit(2);
  }
  const flag = (name) => (rest.indexOf(name) >= 0 ? Number(rest[rest.indexOf(name) + 1]) : undefined);
  const r = writeTfLog(out, Number(m[1]) * (units[(m[2] || 'B').toUpperCase()] ?? NaN), { noise: flag('--noise') ?? 0, steps: flag('--steps') ?? Infinity });
  console.log(JSON.stringify(r));
}
