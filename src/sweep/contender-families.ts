/**
 * Registers the families of rows `memsim compare` knows, once (contenders.ts also loads every
 * allocator of the registry; a compare worker loads them itself, see worker-work.ts, so that its
 * bundle needs no module that awaits at top level).
 */
import { planTrace, strategyNames } from '../planners/index.js';
import { allocatorContenders } from './contender-allocator.js';
import { registerContenderProvider } from './contender.js';
import { plannerContenders } from './contender-planner.js';

registerContenderProvider(allocatorContenders);
// Every strategy can be named (`plan:best`, `plan:xla-best-fit`, …); none is in `all`: a plan is an
// offline bound (it sees the whole trace ahead), not an allocator, and its cost is not a replay's.
registerContenderProvider(plannerContenders(planTrace, strategyNames()));
