/**
 * Before a long replay, a few dozen made-up requests through a throwaway allocator of the same kind
 * and options: every path of its code (small and large sizes, byte counts past 2^31, frees that merge
 * with either neighbour, new regions) is met once before V8 optimizes it. Met first in the middle of
 * the replay (the first size past 2^31, the first merge on the left), such a path throws the optimized
 * code of the allocator and of the replay loop away, and the loop runs unoptimized until it is
 * compiled again: a 10^6-event replay met about ten of these. The throwaway allocator shares nothing
 * with the real one; the replay's figures are the same with or without it.
 */
import type { AllocatorDefinition, OnlineAllocator } from '../allocators/types.js';
import type { Trace } from '../trace/model.js';

/** Replays shorter than this are over before V8 optimizes anything: no warm-up. */
export const WARM_UP_MIN_EVENTS = 1 << 16;

/** The capacity the throwaway allocator is made with: room for every made-up request. */
const WARM_UP_CAPACITY = 2 ** 40;

/** Request sizes, from a few bytes to past 2^32. */
const SIZES = [256, 1000, 4096, 65_536, 1 << 20, 3 << 20, 100 << 20, 2 ** 31 + 4096, 5 * 2 ** 30];

/**
 * Runs the made-up requests through a new allocator from `def` with `values`, when its creation
 * needs nothing of the trace beyond its meta (`streams` says so) and the trace has no recorded
 * history (whose allocators start from its recorded state). Returns whether it ran.
 */
export function warmUp(def: AllocatorDefinition, values: Record<string, unknown>, trace: Trace): boolean {
  if (trace.recorded || !def.streams?.(values as never, WARM_UP_CAPACITY)) return false;
  const a: OnlineAllocator = def.create(values as never, { capacityBytes: WARM_UP_CAPACITY, trace });
  let event = 0;
  const handles: number[] = [];
  // What the replay loop asks after each event, asked here too.
  const figures = (): number => a.allocatedBytes + a.reservedBytes;
  for (let round = 0; round < 3; round++) {
    for (const size of SIZES) {
      const h = a.allocate(size + round * 512, 0, round, event++);
      if (h >= 0) {
        handles.push(h);
        a.address(h);
        a.blockBytes(h);
      }
      figures();
    }
    a.largestFreeBlockBytes();
    // Every other block first, then the rest from the end: frees that merge on one side, then both.
    for (let k = 0; k < handles.length; k += 2) a.free(handles[k] as number, round, event++);
    for (let k = handles.length - 1; k >= 0; k--) if (k % 2 === 1) a.free(handles[k] as number, round, event++);
    handles.length = 0;
    figures();
    a.largestFreeBlockBytes();
  }
  return true;
}
