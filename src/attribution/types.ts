/**
 * Who holds the memory: the live allocations at a few moments of a replay (the peaks, each OOM),
 * grouped by a key (the allocating frame, stack or file, or the tag) and ranked by bytes.
 */

/** What live allocations are grouped by. */
export type GroupBy = 'frame' | 'stack' | 'file' | 'tag';

/** The `--group-by` values, for help and validation. */
export const GROUP_BY: readonly GroupBy[] = ['frame', 'stack', 'file', 'tag'];

/** How to attribute. */
export interface AttributionOptions {
  /** Default: `frame` when the trace has call stacks, else `tag`. */
  groupBy?: GroupBy;
  /** Groups listed before the "everything else" row (default 10). */
  top?: number;
  /** Frames of a `stack` key (default 4). */
  stackDepth?: number;
}

export const DEFAULT_TOP = 10;
export const DEFAULT_STACK_DEPTH = 4;

/** One group of live allocations. */
export interface Holder {
  /** The group's key: `file:line:function`, frames joined by ` ← `, a file, or a tag. */
  key: string;
  /** Requested bytes of its live allocations. */
  bytes: number;
  /** Its live allocations. */
  count: number;
  /** `bytes` over the live bytes of the moment. */
  share: number;
  /** Requested bytes of its largest live allocation. */
  largestBytes: number;
  /** The full user stack (innermost first) of its largest allocation, when the trace has stacks. */
  frames?: string[];
}

/** The holders at one moment. */
export interface MomentHolders {
  /** The live set after this event (for an OOM: when the request at this event failed). */
  event: number;
  /** Live bytes and allocations at the moment. */
  liveBytes: number;
  liveCount: number;
  /** The largest groups, by bytes (ties: by key). */
  top: Holder[];
  /** The rest ("everything else"): bytes, allocations, their largest one, and their share. */
  otherBytes: number;
  otherCount: number;
  otherLargestBytes: number;
  otherShare: number;
  /** Groups in all (top and the rest). */
  groups: number;
}
