/**
 * What `memsim tune` tries with TensorFlow's BFC allocator, and how a TensorFlow user sets it: the
 * environment variables GPUBFCAllocator reads (TF_FORCE_GPU_ALLOW_GROWTH,
 * TF_ENABLE_GPU_GARBAGE_COLLECTION) and, for the split threshold, the session's GPUOptions
 * (`experimental.internal_fragmentation_fraction`, which has no environment variable).
 */
import type { WhatIfSpace } from '../types.js';

/** The line that gives a TensorFlow program these effective options. */
export function tensorflowSetting(o: Record<string, unknown>): string {
  const env: string[] = [];
  if (o['allow_growth'] === true) env.push('TF_FORCE_GPU_ALLOW_GROWTH=true');
  if (o['garbage_collection'] === false) env.push('TF_ENABLE_GPU_GARBAGE_COLLECTION=false');
  const parts: string[] = [];
  if (env.length > 0) parts.push(env.join(' '));
  const fraction = o['fragmentation_fraction'];
  if (typeof fraction === 'number' && fraction > 0) {
    parts.push(
      `tf.compat.v1.ConfigProto(gpu_options=tf.compat.v1.GPUOptions(experimental=tf.compat.v1.GPUOptions.Experimental(internal_fragmentation_fraction=${fraction})))`,
    );
  }
  const limit = o['memory_limit'];
  if (typeof limit === 'number') {
    parts.push(`tf.config.set_logical_device_configuration(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=${Math.floor(limit / 1048576)})])`);
  }
  if (o['coalesce_regions'] === true) parts.push('a virtual-memory device (coalesce_regions: not a TensorFlow setting)');
  return parts.length === 0 ? 'unset TF_FORCE_GPU_ALLOW_GROWTH TF_ENABLE_GPU_GARBAGE_COLLECTION' : parts.join('; ');
}

/** The BFC allocator's what-if space: growth, garbage collection and the split threshold. */
export const bfcWhatIf: WhatIfSpace = {
  summary:
    'allow_growth {false, true} × garbage_collection {true, false} × fragmentation_fraction {0, 0.05, 0.1}; written as TF_FORCE_GPU_ALLOW_GROWTH, TF_ENABLE_GPU_GARBAGE_COLLECTION and GPUOptions.experimental.internal_fragmentation_fraction',
  keys: () => [
    { key: 'allow_growth', values: ['false', 'true'] },
    { key: 'garbage_collection', values: ['true', 'false'] },
    { key: 'fragmentation_fraction', values: ['0', '0.05', '0.1'] },
  ],
  setting: tensorflowSetting,
};
