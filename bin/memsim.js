#!/usr/bin/env node
// CommonJS (bin/package.json), the quickest entry for Node to start. `memsim --version` and
// `memsim replay` run from the quick bundle, which Node compiles from V8's code cache
// (src/cli/quick-loader.ts); every other command line runs in the whole CLI, an ES module.
'use strict';
const { runQuick } = require('../dist/quick-bundle/loader.cjs');

runQuick(process.argv).then((code) => {
  if (code === undefined) return import('../dist/cli-bundle/index.js');
  process.exitCode = code;
  return undefined;
});
