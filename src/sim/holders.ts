import { explainOom, holdersAt, resolveAttributionOptions, type AttributionOptions, type GroupBy, type MomentHolders } from '../attribution/index.js';
import type { Trace } from '../trace/model.js';
import type { ReplayOutcome } from './replay.js';

/** The `attribution` section of a replay: who held the memory at the peaks and at each OOM. */
export interface AttributionSection {
  groupBy: GroupBy;
  /** Groups listed before the "everything else" row. */
  top: number;
  /** Frames of a `stack` key (null for other groupings). */
  stackDepth: number | null;
  /** At the peak of live bytes. */
  peakLive: MomentHolders | null;
  /** At the allocator's peak of reserved bytes. */
  peakReserved: MomentHolders | null;
  /** At each recorded OOM, in the order of the report's `ooms`. */
  ooms: MomentHolders[];
  /**
   * For a simulation of a recorded history: at each of the real run's OOMs (requests that failed on
   * the device and are no events of the trace), in the order of `fidelity.recordedOoms`.
   */
  realRunOoms?: MomentHolders[];
}

/** Writes each OOM's explanation into its record, without holders (a replay run without attribution). */
export function explainOoms(outcome: ReplayOutcome, allocatorName: string): void {
  for (const rec of outcome.ooms) rec.explanation = explainOom(rec, allocatorName);
}

/**
 * Reads who held the memory at the moments a replay found (its peaks and recorded OOMs) from the
 * live sets of the trace at those events, in one more pass over the allocations (never per event),
 * and writes each OOM's explanation into its record.
 */
export function attributeReplay(trace: Trace, outcome: ReplayOutcome, allocatorName: string, options: AttributionOptions = {}): AttributionSection {
  const o = resolveAttributionOptions(trace, options);
  // A failure of the real run (a recorded history's) came before its event: the live set after the one before.
  const events = [outcome.peakLiveEvent, outcome.peakReservedEvent, ...outcome.ooms.map((x) => (x.recorded ? x.event - 1 : x.event))];
  // A simulation of a recorded history: the real run's failures are no OOMs of its own.
  const real = outcome.ooms.some((x) => x.recorded) ? [] : (trace.recorded?.ooms ?? []).map((x) => x.beforeEvent - 1);
  const at = holdersAt(trace, [...events, ...real], outcome.droppedAllocations, o);
  const realAt = at.splice(events.length);
  const [peakLive, peakReserved, ...ooms] = at;
  outcome.ooms.forEach((rec, k) => {
    rec.explanation = explainOom(rec, allocatorName, ooms[k]);
  });
  return {
    groupBy: o.groupBy,
    top: o.top,
    stackDepth: o.groupBy === 'stack' ? o.stackDepth : null,
    peakLive: outcome.peakLiveEvent >= 0 ? (peakLive as MomentHolders) : null,
    peakReserved: outcome.peakReservedEvent >= 0 ? (peakReserved as MomentHolders) : null,
    ooms,
    ...(real.length > 0 ? { realRunOoms: realAt } : {}),
  };
}
