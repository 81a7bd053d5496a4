import { replay, type RunResult } from '../../src/sim/run.js';
import type { EventObject } from '../../src/trace/from-events.js';
import { KiB, traceFromEvents } from '../helpers.js';

/** The header the allocator adds to every big request by default. */
export const HEADER = 64;

/** The request size whose tracked size (request + 64-byte header) is `kib` KiB. */
export const tracked = (kib: number): number => kib * KiB - HEADER;

/** One step's events: `a name KiB` allocates a request tracked as that many KiB, `f name` frees. */
export type Op = readonly ['a', string, number] | readonly ['f', string];

/** Events of one step; ids get the step as suffix so that each step has its own allocations. */
export function stepEvents(step: number, ops: readonly Op[]): EventObject[] {
  return ops.map((o) => (o[0] === 'a' ? { op: 'alloc', id: `${o[1]}@${step}`, size: tracked(o[2]), step } : { op: 'free', id: `${o[1]}@${step}`, step }));
}

/** Steps `from`..`to` (inclusive) of one pattern. */
export function repeat(from: number, to: number, ops: readonly Op[]): EventObject[] {
  const out: EventObject[] = [];
  for (let s = from; s <= to; s++) out.push(...stepEvents(s, ops));
  return out;
}

/** Replays events through lifetime-pool with the given options. */
export function runPool(events: readonly EventObject[], options: Record<string, unknown> = {}, capacityBytes?: number): RunResult {
  return replay(traceFromEvents(events), { allocator: 'lifetime-pool', options, ...(capacityBytes !== undefined ? { capacityBytes } : {}) });
}

/** The allocator's stats of a run, typed loosely for assertions. */
export const stats = (r: RunResult): Record<string, unknown> => r.report.allocator.stats as Record<string, unknown>;
