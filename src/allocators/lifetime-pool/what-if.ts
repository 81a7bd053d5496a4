/**
 * What `memsim tune` tries with DeepRec's pooled allocator: when the statistics start and how many
 * stable steps end them, on a grid fitted to the trace's runs (DeepRec counts session runs, one per
 * stretch of events with the same step id), set through DeepRec's environment variables.
 */
import type { Trace } from '../../trace/model.js';
import type { WhatIfSpace } from '../types.js';

/** DeepRec's defaults (memory_planner.cc: DEFAULT_START/STABLE/MAX_STATISTIC_STEP). */
const DEFAULTS = { start_step: 100, stable_steps: 10, max_steps: 100 } as const;
const ENV = { start_step: 'START_STATISTIC_STEP', stable_steps: 'STABLE_STATISTIC_STEP', max_steps: 'MAX_STATISTIC_STEP' } as const;

/** Runs of the trace: maximal stretches of events with the same step id. */
export function countRuns(trace: Trace): number {
  const step = trace.step;
  let runs = 0;
  for (let i = 0; i < trace.length; i++) if (i === 0 || step[i] !== step[i - 1]) runs++;
  return runs;
}

const GRID = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/**
 * Up to four values of the grid no larger than `max` (at least the first): statistics must start
 * and settle early enough that pools serve a good part of the trace.
 */
function fitted(max: number): string[] {
  const out = GRID.filter((v) => v <= Math.max(1, max)).slice(0, 4);
  return out.map(String);
}

/** The DeepRec environment variables for these effective options (only those off their defaults). */
export function deeprecSetting(o: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of ['start_step', 'stable_steps', 'max_steps'] as const) {
    if (typeof o[key] === 'number' && o[key] !== DEFAULTS[key]) parts.push(`${ENV[key]}=${o[key]}`);
  }
  return parts.length === 0 ? 'unset START_STATISTIC_STEP STABLE_STATISTIC_STEP MAX_STATISTIC_STEP' : parts.join(' ');
}

/** lifetime-pool's what-if space: start_step up to half the runs, stable_steps up to a quarter. */
export const lifetimePoolWhatIf: WhatIfSpace = {
  summary:
    'start_step {1, 2, 5, 10, 20, …} up to half the trace\'s runs × stable_steps {1, 2, 5, 10, …} up to a quarter (four values each at most); written as START_STATISTIC_STEP, STABLE_STATISTIC_STEP',
  keys(trace) {
    const runs = countRuns(trace);
    return [
      { key: 'start_step', values: fitted(Math.floor(runs / 2)) },
      { key: 'stable_steps', values: fitted(Math.floor(runs / 4)) },
    ];
  },
  setting: deeprecSetting,
};
