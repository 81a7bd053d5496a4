/**
 * The families of rows `memsim compare` knows, registered once. The compare worker imports this
 * module, so that every worker can rebuild any row from its name and options.
 *
 * Adding a family is one line here, e.g. for the offline planners of `src/planners/`:
 *   registerContenderProvider(plannerContenders(planTrace, PLAN_STRATEGIES));
 * The recorded history of a snapshot needs no line: the `recorded` allocator is in the allocator
 * registry with `needsRecordedHistory`, and appears as a row of kind `recorded` on traces that have one.
 */
import '../allocators/index.js';
import { planTrace, strategyNames } from '../planners/index.js';
import { allocatorContenders } from './contender-allocator.js';
import { registerContenderProvider } from './contender.js';
import { plannerContenders } from './contender-planner.js';

registerContenderProvider(allocatorContenders);
// Every strategy can be named (`plan:best`, `plan:xla-best-fit`, …); none is in `all`: a plan is an
// offline bound (it sees the whole trace ahead), not an allocator, and its cost is not a replay's.
registerContenderProvider(plannerContenders(planTrace, strategyNames()));

export { createContender, knownContenders, listContenders, registerContenderProvider, probeContender } from './contender.js';
export type { Contender, ContenderKind, ContenderListing, ContenderProbe, ContenderProvider, ContenderRun } from './contender.js';
export { plannerContenders, planRun, PLAN_PREFIX, type PlanFigures, type PlanFunction } from './contender-planner.js';
export { allocatorContender, probeAllocator } from './contender-allocator.js';
