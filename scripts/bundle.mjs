#!/usr/bin/env node
// Bundles the CLI (dist/cli/index.js and what it imports, commander, chalk and cli-table3 included)
// into dist/cli-bundle/: a few files instead of a few hundred modules, so that `memsim` starts about
// 15 ms sooner (Node's ES module loader costs some 0.3 ms per module). Commands and allocators stay
// in chunks of their own, loaded when used. The library (dist/index.js) and the worker threads
// (dist/sweep/worker.js, dist/trace/pipeline/reader-thread.js) are not bundled.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'cli-bundle');
rmSync(out, { recursive: true, force: true });
await build({
  input: join(root, 'dist', 'cli', 'index.js'),
  platform: 'node',
  logLevel: 'warn',
  output: { dir: out, format: 'esm', entryFileNames: 'index.js', chunkFileNames: '[name]-[hash].js' },
});
