/** Who holds the memory: live allocations at chosen moments, grouped and ranked (see types.ts). */
export { holdersAt, holdersWithKeys, defaultGroupBy, resolveAttributionOptions } from './attribute.js';
export { explainOom, explainPlanOom, type OomFigures } from './explain.js';
export { checkGroupBy, groupKeys, BEFORE_WINDOW, NO_STACK, NO_TAG, STACK_JOINER, type GroupKeys } from './keys.js';
export { forEachLiveSet } from './live-sets.js';
export * from './types.js';
