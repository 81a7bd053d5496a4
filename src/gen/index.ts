import { UsageError } from '../errors.js';
import { fragmentation } from './fragmentation.js';
import { inference } from './inference.js';
import { training } from './training.js';
import type { Workload } from './workload.js';

export type { Workload, WorkloadOptions } from './workload.js';

/** Every synthetic workload `memsim gen` knows. */
export const workloads: readonly Workload[] = [training, inference, fragmentation];

/** The workload called `name`, or a usage error listing them. */
export function getWorkload(name: string): Workload {
  const w = workloads.find((x) => x.name === name);
  if (!w) throw new UsageError(`unknown workload "${name}" (known: ${workloads.map((x) => x.name).join(', ')})`);
  return w;
}
