import { DEFAULT_DEVICE_BASE } from '../../src/allocators/index.js';
import type { CachingAllocator } from '../../src/allocators/caching/allocator.js';
import { replay, type RunResult } from '../../src/sim/run.js';
import type { StartMode } from '../../src/sim/start.js';
import type { Trace } from '../../src/trace/model.js';
import { traceFromEvents, type EventObject } from '../helpers.js';

export const BASE = DEFAULT_DEVICE_BASE;

/** A replay through `caching` with the address and block size of every served allocation by id. */
export interface CachingRun extends RunResult {
  at: Record<string, number>;
  bytes: Record<string, number>;
  alloc: CachingAllocator;
  stats: Record<string, number>;
}

/** Replays events (or a trace) through the caching allocator, going on after OOMs (`start`: see --start). */
export function runCaching(events: EventObject[] | Trace, options: Record<string, unknown> = {}, capacityBytes = Infinity, start?: StartMode): CachingRun {
  const trace = Array.isArray(events) ? traceFromEvents(events) : events;
  const at: Record<string, number> = {};
  const bytes: Record<string, number> = {};
  const r = replay(trace, {
    allocator: 'caching',
    options,
    capacityBytes,
    onOom: 'continue',
    ...(start ? { start } : {}),
    onPlacement: (_e, a, address, _size, allocated) => {
      at[trace.ids.get(a)] = address;
      bytes[trace.ids.get(a)] = allocated;
    },
  });
  return { ...r, at, bytes, alloc: r.allocator as CachingAllocator, stats: r.report.allocator.stats as Record<string, number> };
}
