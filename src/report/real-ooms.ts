import type { MomentHolders } from '../attribution/index.js';
import { type RealRunOom, realRunOoms } from '../sim/report.js';
import { formatBytes } from '../util/bytes.js';
import { formatCount } from './format.js';

/**
 * The real run's OOMs as a simulation of a recorded history saw them (the report's
 * `fidelity.recordedOoms`): the requests that failed on the GPU, which are no events of the trace.
 */
export { type RealRunOom, realRunOoms };

/** `before event N (device_traces[0][k])`. */
export function realOomAt(o: RealRunOom): string {
  return `before event ${formatCount(o.beforeEvent)}${o.entry ? ` (${o.entry})` : ''}`;
}

/**
 * Whether the simulation fails where the real run failed, and why: `reproduced: fragmentation` when
 * the live bytes and the request fit in what the real allocator could hold, `reproduced: too little
 * memory` when they do not, else not reproduced or not known.
 */
export function realOomVerdict(o: RealRunOom, held: MomentHolders | undefined): string {
  if (o.reproduced === null) return 'not known whether this simulation fails there (the free device memory is not recorded)';
  if (!o.reproduced) return 'not reproduced by this simulation (see the notes)';
  if (o.limitBytes === null || !held) return 'reproduced by this simulation';
  return `reproduced by this simulation: ${held.liveBytes + o.sizeBytes > o.limitBytes ? 'too little memory' : 'fragmentation'}`;
}

/** One line: `the real run's OOM before event N (…), a request of X: <verdict>`. */
export function realOomTitle(o: RealRunOom, held: MomentHolders | undefined): string {
  return `the real run's OOM ${realOomAt(o)}, a request of ${formatBytes(o.sizeBytes)}: ${realOomVerdict(o, held)}`;
}
