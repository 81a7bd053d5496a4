import { formatBytes } from '../../util/bytes.js';
import type { LifetimePoolOptions, Phase } from './allocator.js';
import type { MemoryPlanner } from './planner.js';
import type { Pools } from './pools.js';

/** What the allocator counted during a run, for its statistics and notes. */
export interface RunFacts {
  opts: LifetimePoolOptions;
  firstStep: number;
  lastStep: number;
  /** Session runs seen (DeepRec counts one per change of step id). */
  runs: number;
  collectionStartStep: number | null;
  /** The step after whose end the pools were built (they serve from the next step on). */
  poolsBuiltAfterStep: number | null;
  /** The step after whose end collection ended (whether or not the pools were then built). */
  collectionEndStep: number | null;
  /** Big requests served from a pool after the build; `borrowedHits` of them from a larger bin. */
  hits: number;
  borrowedHits: number;
  /** Big requests after the build that went to the device; `missesWithoutBin` had no bin at all. */
  misses: number;
  missesWithoutBin: number;
  smallRequests: number;
  fallbackPeakBytes: number;
  fallbackPeakAfterBuildBytes: number | null;
  /** Bytes the pools needed when they did not fit on the device. */
  failedPoolBytes: number;
}

const kib = (bytes: number): string => `${bytes / 1024} KiB`;
const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function policyTotals(planner: MemoryPlanner): string {
  return planner.policies.map((p) => `${kib(p.intervalBytes)}: ${formatBytes(p.totalBytes)}`).join(', ');
}

function collectionRule(o: LifetimePoolOptions): string {
  return `collection ends after more than ${o.stable_steps} stable steps in a row (stable_steps) or more than ${o.max_steps} collected steps (max_steps)`;
}

/** Plain-language remarks on how far the statistics phase got and what the pools did. */
export function describeRun(f: RunFacts, phase: Phase, planner: MemoryPlanner, pools: Pools | null): string[] {
  const o = f.opts;
  if (Number.isNaN(f.firstStep)) return ['the trace has no events: nothing was collected and no pools were built'];
  const everything = 'every request went straight to the device (the fallback), as with naive';
  switch (phase) {
    case 'waiting':
      return [
        `the pools were never built: start_step ${o.start_step} is beyond the trace's ${count(f.runs, 'session run')} ` +
          `(DeepRec counts a run per change of step id; the ids run from ${f.firstStep} to ${f.lastStep}), ` +
          `so the statistics phase never started and ${everything}; ` +
          // Named as a configuration, which every command that names an allocator accepts.
          `set a smaller start_step, e.g. 'lifetime-pool[start_step=${Math.max(0, Math.min(f.runs - 1, 2))},stable_steps=1]' as the allocator`,
      ];
    case 'collecting':
      return [
        `the pools were never built: the trace ended while collecting statistics (${planner.collectedSteps} steps collected from step ${f.collectionStartStep}, ` +
          `${planner.stableInARow} stable in a row; ${collectionRule(o)}), so ${everything}`,
      ];
    case 'ended': {
      const best = planner.bestPolicy();
      return [
        `the pools were never built: collection ended with the trace's last step (${f.collectionEndStep}); DeepRec would now build ` +
          `${formatBytes(best.totalBytes)} of pools (${kib(best.intervalBytes)} policy, ${count(best.blockCount, 'block')}) but no event is left to serve, so ${everything}`,
      ];
    }
    case 'build-failed':
      return [
        `the pools were never built: after step ${f.collectionEndStep} they needed ${formatBytes(f.failedPoolBytes)} (policy totals ${policyTotals(planner)}) ` +
          `and the device had less free; DeepRec would abort there, memsim went on and ${everything}`,
      ];
    case 'built': {
      const p = pools as Pools;
      const big = f.hits + f.misses;
      const rate = big === 0 ? 'no big request came after the build' : `hit rate ${((100 * f.hits) / big).toFixed(1)}%`;
      return [
        `pools built after step ${f.poolsBuiltAfterStep} (collected ${planner.collectedSteps} steps from step ${f.collectionStartStep}): ` +
          `${kib(p.intervalBytes)} policy (totals ${policyTotals(planner)}), ${count(p.binsWithBlocks, 'bin')}, ${count(p.chunkCount, 'block')}, ${formatBytes(p.poolBytes)}`,
        `after step ${f.poolsBuiltAfterStep}: ${count(f.hits, 'hit')} (${f.borrowedHits} from a larger bin), ${count(f.misses, 'miss', 'misses')} to the device ` +
          `(${f.missesWithoutBin} with no bin), ${rate}; ${count(f.smallRequests, 'small request')} (<= ${formatBytes(o.small_threshold)}) always to the device; ` +
          `device bytes at most ${formatBytes(f.fallbackPeakBytes)} outside the pools (${formatBytes(f.fallbackPeakAfterBuildBytes ?? 0)} after the build)`,
      ];
    }
  }
}
