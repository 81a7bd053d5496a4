#!/usr/bin/env node
// CommonJS (bin/package.json), the quickest entry for Node to start. A large trace to replay starts
// reading before the CLI loads (src/trace/pipeline/early.ts): its reading thread boots, or its bytes
// are read, meanwhile. `memsim --version`, `memsim replay`, `memsim plan` and `memsim compare` run
// from the quick bundle, which Node compiles from V8's code cache (src/cli/quick-loader.ts); every
// other command line runs in the whole CLI, an ES module.
'use strict';
let loader;
try {
  loader = require('../dist/quick-bundle/loader.cjs');
} catch (e) {
  if (!e || e.code !== 'MODULE_NOT_FOUND' || !String(e.message).includes('loader.cjs')) throw e;
  process.stderr.write('memsim: this copy is not built (no dist/quick-bundle/loader.cjs): run `npm install` or `npm run build` in it\n');
  process.exit(2);
}
const { mallocHint, readEarly, runQuick } = loader;
// A command on a large input starts with a hint to glibc's malloc (src/util/malloc-hint.ts).
mallocHint(process.argv);

(async () => {
  await readEarly(process.argv);
  const code = await runQuick(process.argv);
  if (code === undefined) await import('../dist/cli-bundle/index.js');
  // Everything is written by then (memsim writes synchronously): exiting here spares the teardown of
  // the heap that a process ending on its own goes through (some 2-3 ms of a small replay).
  else process.exit(code);
})();
