#!/usr/bin/env node
// `memsim --version` and `memsim replay` run from the quick bundle, which Node compiles from V8's code
// cache (dist/cli/quick-loader.js); every other command line runs in the whole CLI.
import { runQuick } from '../dist/cli/quick-loader.js';

const code = await runQuick(process.argv);
if (code === undefined) await import('../dist/cli-bundle/index.js');
else process.exitCode = code;
