/**
 * The families of rows `memsim compare` knows (registered in contender-families.ts), with every
 * allocator of the registry loaded.
 *
 * Adding a family is one line in contender-families.ts, e.g. for the offline planners of `src/planners/`:
 *   registerContenderProvider(plannerContenders(planTrace, PLAN_STRATEGIES));
 * The recorded history of a snapshot needs no line: the `recorded` allocator is in the allocator
 * registry with `needsRecordedHistory`, and appears as a row of kind `recorded` on traces that have one.
 */
import '../allocators/index.js';
import './contender-families.js';

export { createContender, knownContenders, listContenders, registerContenderProvider, probeContender } from './contender.js';
export type { Contender, ContenderKind, ContenderListing, ContenderProbe, ContenderProvider, ContenderRun } from './contender.js';
export { plannerContenders, planRun, PLAN_PREFIX, type PlanFigures, type PlanFunction } from './contender-planner.js';
export { allocatorContender, probeAllocator } from './contender-allocator.js';
