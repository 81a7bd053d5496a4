import { opt, type OptionSpec } from '../allocators/options.js';
import { UsageError } from '../errors.js';
import type { Trace } from '../trace/model.js';
import type { Contender, ContenderProvider, ContenderRun } from './contender.js';
import type { OomRecord } from './replay.js';
import { ratio } from './report.js';

/** What an offline planner yields for a whole trace: the arena it needs, and its own lower bound. */
export interface PlanFigures {
  totalBytes: number;
  lowerBoundBytes: number;
}

/** An offline planner as `src/planners/` exposes it: `planTrace(trace, strategy, { alignment })`. */
export type PlanFunction = (trace: Trace, strategy: string, options: { alignment: number }) => PlanFigures;

/** The prefix of planner rows: `plan:greedy-by-size`. */
export const PLAN_PREFIX = 'plan:';

const plannerOptions: Record<string, OptionSpec<unknown>> = {
  alignment: opt.bytes(64, 'offset alignment of every tensor in the arena', { min: 1 }) as OptionSpec<unknown>,
};

/**
 * The figures of a static plan in the shape of a replay: one arena of `totalBytes`, reserved once,
 * each tensor given exactly its bytes. The arena does not depend on the capacity; it fits or it does
 * not, and when it does not, the failure is the arena's own reservation before the first event.
 */
export function planRun(trace: Trace, name: string, totalBytes: number, capacityBytes: number): ContenderRun {
  const peakLive = trace.summary.peakLiveBytes;
  const fits = totalBytes <= capacityBytes;
  const finite = Number.isFinite(capacityBytes);
  const firstOom: OomRecord | null = fits
    ? null
    : {
        event: 0, line: null, step: trace.length > 0 ? (trace.step[0] as number) : 0, id: '', tag: null,
        sizeBytes: totalBytes, roundedBytes: totalBytes, liveBytes: 0, allocatedBytes: 0, reservedBytes: 0,
        capacityBytes: finite ? capacityBytes : null, deviceFreeBytes: finite ? capacityBytes : null,
        largestFreeBlockBytes: 0, freeBlocks: 0,
        kind: peakLive > capacityBytes ? 'capacity' : 'fragmentation',
        native: `${name}: the plan needs an arena of ${totalBytes} bytes; the capacity is ${capacityBytes} bytes`,
      };
  const reserved = fits ? totalBytes : 0;
  const utilization = totalBytes > 0 ? peakLive / totalBytes : 1;
  return {
    completed: fits,
    firstOom,
    notes: [],
    summary: {
      peakLiveBytes: fits ? peakLive : 0, peakLiveEvent: fits ? trace.summary.peakLiveEvent : -1,
      peakAllocatedBytes: fits ? peakLive : 0,
      peakReservedBytes: reserved, peakReservedEvent: fits && trace.length > 0 ? 0 : -1,
      finalLiveBytes: fits ? trace.summary.finalLiveBytes : 0,
      finalAllocatedBytes: fits ? trace.summary.finalLiveBytes : 0,
      finalReservedBytes: reserved,
      utilization: ratio(fits ? utilization : 1), fragmentation: ratio(fits ? 1 - utilization : 0),
      // A plan hands each tensor its own bytes; what it wastes is gaps in the arena (external).
      internalFragmentation: 0,
      externalFragmentation: 0,
      overheadVsLowerBound: ratio(fits && peakLive > 0 ? totalBytes / peakLive - 1 : 0),
      deviceAllocCalls: fits && totalBytes > 0 ? 1 : 0, deviceFreeCalls: 0,
      oomCount: fits ? 0 : 1, eventsReplayed: fits ? trace.length : 0, ignoredFrees: 0,
    },
  };
}

/**
 * The offline planners as `compare` rows (`plan:<strategy>`). The plan is computed once per row and
 * reused for every capacity, since it does not depend on it. Registration is one line:
 * `registerContenderProvider(plannerContenders(planTrace, PLAN_STRATEGIES))`.
 */
export function plannerContenders(plan: PlanFunction, strategies: readonly string[]): ContenderProvider {
  const names = strategies.map((s) => `${PLAN_PREFIX}${s}`);
  return {
    known: () => [...names],
    list: () => names.map((name) => ({ name })),
    owns: (name) => names.includes(name),
    create(name, given): Contender {
      const strategy = name.slice(PLAN_PREFIX.length);
      const options: Record<string, unknown> = {};
      for (const [key, spec] of Object.entries(plannerOptions)) {
        const raw = given[key];
        const parsed = raw === undefined ? { success: true as const, data: spec.default } : spec.schema.safeParse(raw);
        if (!parsed.success) throw new UsageError(`${name}, option ${key}=${String(raw)}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
        options[key] = parsed.data;
      }
      for (const key of Object.keys(given)) {
        if (!(key in plannerOptions)) throw new UsageError(`${name} has no option "${key}" (its options: ${Object.keys(plannerOptions).join(', ')})`);
      }
      let figures: PlanFigures | undefined;
      const total = (t: Trace): number => (figures ??= plan(t, strategy, { alignment: options['alignment'] as number })).totalBytes;
      return {
        name,
        kind: 'planner',
        options,
        run: (t, capacityBytes) => planRun(t, name, total(t), capacityBytes),
        probe: (t, capacityBytes) => ({ fits: total(t) <= capacityBytes, peakReservedBytes: total(t) }),
      };
    },
  };
}
