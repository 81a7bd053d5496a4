import { groupKeys, holdersWithKeys, resolveAttributionOptions, type AttributionOptions, type GroupBy, type MomentHolders } from '../attribution/index.js';
import type { Trace } from '../trace/model.js';
import { PIECE_FIELDS, PIECE_UNKNOWN } from './visual-state.js';

/** Who held the memory at a drawn state, and which of its pieces belong to which group. */
export interface VisualHolders {
  moment: MomentHolders;
  /** Per piece of the state: the index of its group in `moment.top`, or -1 (free, aggregated, the rest). */
  piece: number[];
}

/** The grouping of a run's holders, for the page. */
export interface VisualAttribution {
  groupBy: GroupBy;
  top: number;
  stackDepth: number | null;
}

/**
 * The holders at each drawn state (one pass over the allocations for all of them), with each
 * block of the state mapped to its group so that the page can light up a group's blocks. Frames are
 * kept for the detailed moments (peaks, OOMs) only, to keep the page small.
 */
export function holdersOfStates(
  trace: Trace,
  states: readonly { event: number; pieces: number[]; reason: string }[],
  dropped: readonly number[],
  options: AttributionOptions,
): { attribution: VisualAttribution; holders: VisualHolders[] } {
  const o = resolveAttributionOptions(trace, options);
  const keys = groupKeys(trace, o.groupBy, o.stackDepth);
  const moments = holdersWithKeys(trace, keys, states.map((s) => s.event), dropped, o.top);
  const holders = states.map((st, k) => {
    const m = moments[k] as MomentHolders;
    const index = new Map(m.top.map((h, i) => [h.key, i]));
    const piece: number[] = [];
    const p = st.pieces;
    for (let j = 0; j < p.length; j += PIECE_FIELDS) {
      const req = p[j + 2] as number;
      const ev = p[j + 4] as number;
      piece.push((req >= 0 || req === PIECE_UNKNOWN) && ev >= 0 && ev < trace.length ? (index.get(keys.name(keys.keyOf(trace.alloc[ev] as number))) ?? -1) : -1);
    }
    const moment = st.reason === 'sample' ? { ...m, top: m.top.map(({ frames: _f, ...h }) => h) } : m;
    return { moment, piece };
  });
  return { attribution: { groupBy: o.groupBy, top: o.top, stackDepth: o.groupBy === 'stack' ? o.stackDepth : null }, holders };
}
