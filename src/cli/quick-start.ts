/**
 * What `bin/memsim.js` runs before the CLI, bundled as CommonJS into dist/quick-bundle/loader.cjs
 * (scripts/bundle.mjs): the hint to malloc of a command on a large input, the early reading of a large
 * trace, then the quick bundle's loader.
 */
export { mallocHint } from '../util/malloc-hint.js';
export { readEarly } from '../trace/pipeline/early.js';
export { cacheFileName, CodeCachedBundle, isQuickLine, QUICK_COMMANDS, runQuick } from './quick-loader.js';
