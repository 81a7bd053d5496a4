#!/usr/bin/env node
// CommonJS (bin/package.json), the quickest entry for Node to start. A large trace to replay starts
// reading before the CLI loads (src/trace/pipeline/early.ts): its reading thread boots, or its bytes
// are read, meanwhile. `memsim --version`, `memsim replay`, `memsim plan` and `memsim compare` run
// from the quick bundle, which Node compiles from V8's code cache (src/cli/quick-loader.ts); every
// other command line runs in the whole CLI, an ES module.
'use strict';
// A hint to glibc's malloc, taken once by the first collection: freeing a block it had mapped on its
// own raises its thresholds (to map apart, and to give freed memory back) to that block's size, here
// just under 32 MiB, the most it takes. Without it, each of V8's compiles and each thread gives back
// the memory it freed and takes it again, fresh, for the next: some 2,000 page faults of a 10^6-event
// replay (17.2k -> 15.3k; 0.435 -> 0.400 s median on 2 cores), for ~10 MB more peak memory. The
// block is never touched (no page of it is used); elsewhere than glibc it is only 32 MiB of address space.
new ArrayBuffer((32 << 20) - (64 << 10));
let loader;
try {
  loader = require('../dist/quick-bundle/loader.cjs');
} catch (e) {
  if (!e || e.code !== 'MODULE_NOT_FOUND' || !String(e.message).includes('loader.cjs')) throw e;
  process.stderr.write('memsim: this copy is not built (no dist/quick-bundle/loader.cjs): run `npm install` or `npm run build` in it\n');
  process.exit(2);
}
const { readEarly, runQuick } = loader;

(async () => {
  await readEarly(process.argv);
  const code = await runQuick(process.argv);
  if (code === undefined) await import('../dist/cli-bundle/index.js');
  // Everything is written by then (memsim writes synchronously): exiting here spares the teardown of
  // the heap that a process ending on its own goes through (some 2-3 ms of a small replay).
  else process.exit(code);
})();
