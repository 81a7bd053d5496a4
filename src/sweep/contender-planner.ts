import { opt, type OptionSpec } from '../allocators/options.js';
import { UsageError } from '../errors.js';
import type { Trace } from '../trace/model.js';
import type { Contender, ContenderProvider, ContenderRun } from './contender.js';
import type { OomRecord } from '../sim/replay.js';
import { ratio } from '../sim/report.js';
import { explainPlanOom } from '../attribution/index.js';

/**
 * What an offline planner yields for a whole trace: the arena it needs (null when the strategy
 * declined, e.g. a problem too large for it, with `status: 'skipped'` and a reason).
 */
export interface PlanFigures {
  totalBytes: number | null;
  lowerBoundBytes: number;
  status?: 'ok' | 'skipped';
  reason?: string;
}

/** An offline planner as `src/planners/` exposes it: `planTrace(trace, strategy, { alignmentBytes })`. */
export type PlanFunction = (trace: Trace, strategy: string, options: { alignmentBytes: number }) => PlanFigures;

/** The prefix of planner rows: `plan:greedy-by-size`. */
export const PLAN_PREFIX = 'plan:';

const plannerOptions: Record<string, OptionSpec<unknown>> = {
  alignment: opt.bytes(1, 'offset alignment of every tensor in the arena', { min: 1 }) as OptionSpec<unknown>,
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
        explanation: explainPlanOom(name, totalBytes, capacityBytes, peakLive),
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

/** The report's note when planner rows are compared: what their figures are, and are not. */
/** A plan's cost against a naive replay's (see {@link Contender.relativeCost}). */
const PLANNER_RELATIVE_COST = 15;

export const OFFLINE_BOUND_NOTE =
  'rows marked "offline bound" (plan:*) are offline plans: the planner saw every size and lifetime of the trace ahead, ' +
  'as no allocator serving requests in order can; they bound what is possible and are not allocators to run';

/**
 * The offline planners as `compare` rows (`plan:<strategy>`). The plan is computed once per row and
 * reused for every capacity, since it does not depend on it. Registration is one line:
 * `registerContenderProvider(plannerContenders(planTrace, strategyNames()))`.
 * @param listed the strategies `--allocators all` stands for (default: none, so that planners run
 *   only when named).
 */
export function plannerContenders(plan: PlanFunction, strategies: readonly string[], listed: readonly string[] = []): ContenderProvider {
  const names = strategies.map((s) => `${PLAN_PREFIX}${s}`);
  return {
    known: () => [...names],
    list: () => listed.map((s) => ({ name: `${PLAN_PREFIX}${s}` })),
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
      const planned = (t: Trace): PlanFigures => (figures ??= plan(t, strategy, { alignmentBytes: options['alignment'] as number }));
      return {
        name,
        kind: 'planner',
        options,
        // A plan sees the whole trace at once: a greedy one takes some ten times a replay's time.
        relativeCost: PLANNER_RELATIVE_COST,
        run(t, capacityBytes) {
          const f = planned(t);
          if (f.totalBytes === null) return { ...planRun(t, name, 0, capacityBytes), skipped: f.reason ?? 'the strategy declined this trace' };
          return planRun(t, name, f.totalBytes, capacityBytes);
        },
        probe(t, capacityBytes) {
          const total = planned(t).totalBytes ?? Infinity;
          return { fits: total <= capacityBytes, peakReservedBytes: total };
        },
      };
    },
  };
}
