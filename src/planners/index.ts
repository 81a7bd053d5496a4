/**
 * Offline planners: given every record's size and lifetime, place them in shared objects or at
 * offsets in one arena, as TFLite's GPU delegate, XLA and minimalloc do. The registry is filled once
 * here; adding a planner is one module and one line.
 */
import type { Trace } from '../trace/model.js';
import { recordsFromTrace } from './records.js';
import { registerPlanner, selectStrategies } from './registry.js';
import { type PlanResult, runPlan } from './run.js';
import { equality } from './strategies/equality.js';
import { greedyBest } from './strategies/greedy-best.js';
import { greedyByBreadth } from './strategies/greedy-by-breadth.js';
import { greedyBySizeObjectsPlanner } from './strategies/greedy-by-size-objects.js';
import { greedyBySizeOffsetsPlanner } from './strategies/greedy-by-size-offsets.js';
import { greedyInOrder } from './strategies/greedy-in-order.js';
import { minCostFlow } from './strategies/min-cost-flow.js';
import { naive } from './strategies/naive.js';
import { xlaSpatial, xlaTemporal } from './strategies/xla-best-fit.js';
import type { PlanKind } from './types.js';

registerPlanner(naive);
registerPlanner(equality);
registerPlanner(greedyInOrder);
registerPlanner(greedyByBreadth);
registerPlanner(greedyBySizeObjectsPlanner);
registerPlanner(greedyBySizeOffsetsPlanner);
registerPlanner(greedyBest);
registerPlanner(minCostFlow);
registerPlanner(xlaSpatial);
registerPlanner(xlaTemporal);

export * from './types.js';
export { recordsFromTrace, makeRecords, conflict, recordId, alignUp, idList, type RecordObject } from './records.js';
export { readRecordsCsv, sniffRecordsCsv, type RecordsCsvFormat } from './records-csv.js';
export { offsetsLowerBound, objectsLowerBound, positionalMaxima, positionalMaximaByTree, lowerBounds, type LowerBounds } from './lower-bounds.js';
export { objectsToOffsets, assignmentTotal, type ObjectLayout } from './layout.js';
export { checkOffsets, checkObjects, type CheckResult } from './check.js';
export { listPlanners, strategyNames, selectStrategies, registerPlanner, BEST, type StrategySelection } from './registry.js';
export { runPlan, resultOffsets, skipReason, type PlanReport, type PlanResult, type PlanResultOk, type PlanResultSkipped, type PlanRunOptions } from './run.js';
export { bestPacking, DEFAULT_WORK_BUDGET, defaultNodeBudget, IMPROVING_WINDOW, nodeCost, SEARCH_LIMITS, type BestLimits, type BestOutcome, type Candidate, type SearchReport } from './strategies/best.js';
export { Clock, NO_LIMITS, OutOfTime, PlanLimitError, startLimits, type PlanLimits } from './limits.js';

/** What `compare` shows in a `plan:<strategy>` row. */
export interface PlanSummary {
  /** The strategy as asked (`greedy-by-size`, `best`, `greedy-by-size:objects`). */
  strategy: string;
  status: 'ok' | 'skipped';
  /** The kind of the plan reported (the smaller when a strategy has both). */
  kind: PlanKind;
  /** Bytes the plan needs; null when skipped. */
  totalBytes: number | null;
  /** The lower bound of its kind (objects or offsets), and both bounds. */
  lowerBoundBytes: number;
  offsetsLowerBoundBytes: number;
  objectsLowerBoundBytes: number;
  ratioToLowerBound: number | null;
  /** `best` only: whether the total is proven optimal. */
  proven?: boolean;
  /** Why it was skipped. */
  reason?: string;
}

/**
 * Plans a trace with one strategy and returns its total next to the lower bound, for `compare`'s
 * `plan:<strategy>` rows. When a strategy has both kinds (greedy-by-size), the smaller total is
 * reported (offsets on ties). Throws a UsageError for an unknown strategy.
 */
export function planTrace(
  trace: Trace,
  strategy: string,
  options: { alignmentBytes?: number; timeLimitMs?: number } = {},
): PlanSummary {
  selectStrategies(strategy); // validate before the work
  const report = runPlan(recordsFromTrace(trace), { strategy, ...options });
  let pick = report.results[0] as PlanResult;
  for (const r of report.results) {
    if (r.status !== 'ok') continue;
    if (pick.status !== 'ok' || r.totalBytes < pick.totalBytes || (r.totalBytes === pick.totalBytes && r.kind === 'offsets')) pick = r;
  }
  const bounds = report.lowerBounds;
  const lowerBoundBytes = pick.kind === 'objects' ? bounds.objectsBytes : bounds.offsetsBytes;
  const summary: PlanSummary = {
    strategy,
    status: pick.status,
    kind: pick.kind,
    totalBytes: pick.status === 'ok' ? pick.totalBytes : null,
    lowerBoundBytes,
    offsetsLowerBoundBytes: bounds.offsetsBytes,
    objectsLowerBoundBytes: bounds.objectsBytes,
    ratioToLowerBound: pick.status === 'ok' ? pick.ratioToLowerBound : null,
  };
  if (pick.status === 'ok' && pick.proven !== undefined) summary.proven = pick.proven;
  if (pick.status === 'skipped') summary.reason = pick.reason;
  return summary;
}
