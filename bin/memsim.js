#!/usr/bin/env node
// A large trace to replay starts reading before the CLI loads (src/trace/pipeline/early.ts): its
// reading thread boots, or its bytes are read, meanwhile. `memsim --version` and `memsim replay` run
// from the quick bundle, which Node compiles from V8's code cache (dist/cli/quick-loader.js); every
// other command line runs in the whole CLI.
import { readEarly } from '../dist/trace/pipeline/early.js';
import { runQuick } from '../dist/cli/quick-loader.js';

await readEarly(process.argv);
const code = await runQuick(process.argv);
if (code === undefined) await import('../dist/cli-bundle/index.js');
else process.exitCode = code;
