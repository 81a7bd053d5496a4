import { POLICY_INTERVALS } from './bins.js';
import { LifetimePolicy, type StepLifetimes } from './policy.js';

/**
 * The statistics phase (DeepRec's `MemoryPlanner`): lifetimes recorded during a collected step are
 * packed by every policy at the end of that step (`StopCollect`); the steps that needed no new
 * block count as stable, and collection ends when the stable steps in a row exceed `stableSteps`
 * or the collected steps exceed `maxSteps`.
 */
export class MemoryPlanner {
  readonly policies: LifetimePolicy[] = POLICY_INTERVALS.map((a) => new LifetimePolicy(a));
  /** DeepRec's `current_stat_step_`. */
  collectedSteps = 0;
  /** DeepRec's `current_stable_step_`. */
  stableInARow = 0;
  /** Lifetimes recorded across all collected steps. */
  recordedLifetimes = 0;
  private readonly stableSteps: number;
  private readonly maxSteps: number;
  private readonly step: StepLifetimes = { begin: new Int32Array(1024), end: new Int32Array(1024), totalBytes: new Float64Array(1024), count: 0 };

  constructor(stableSteps: number, maxSteps: number) {
    this.stableSteps = stableSteps;
    this.maxSteps = maxSteps;
  }

  /** A big request of the current collected step (DeepRec's `TrackAllocate`), in every policy. */
  trackAllocate(totalBytes: number, alignBytes: number): void {
    for (const p of this.policies) p.trackAllocate(totalBytes, alignBytes);
  }

  /**
   * Records a lifetime that ended in the current collected step (DeepRec's `TrackDeallocate`): the
   * event index of its alloc and of its free, and its tracked size (header included).
   */
  record(beginEvent: number, endEvent: number, totalBytes: number): void {
    const s = this.step;
    if (s.count === s.begin.length) {
      const grow = <T extends Int32Array | Float64Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      s.begin = grow(s.begin);
      s.end = grow(s.end);
      s.totalBytes = grow(s.totalBytes);
    }
    s.begin[s.count] = beginEvent;
    s.end[s.count] = endEvent;
    s.totalBytes[s.count] = totalBytes;
    s.count++;
  }

  /**
   * Ends a collected step: every policy packs its lifetimes, then the stability counters move.
   * @returns true when collection is over (the pools are to be built now).
   */
  endStep(): boolean {
    this.collectedSteps++;
    let stable = true;
    // Every policy packs, even after one was found unstable (DeepRec does not short-circuit).
    for (const p of this.policies) if (!p.bestFit(this.step)) stable = false;
    this.recordedLifetimes += this.step.count;
    this.step.count = 0;
    this.stableInARow = stable ? this.stableInARow + 1 : 0;
    return this.stableInARow > this.stableSteps || this.collectedSteps > this.maxSteps;
  }

  /**
   * DeepRec's `BestLifetimePolicy`: the least total memory; a later policy must be strictly smaller
   * to win, so ties go to the smaller interval.
   */
  bestPolicy(): LifetimePolicy {
    let best = this.policies[0] as LifetimePolicy;
    for (const p of this.policies) if (p.totalBytes < best.totalBytes) best = p;
    return best;
  }
}
