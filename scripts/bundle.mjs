#!/usr/bin/env node
// Bundles the CLI (dist/cli/index.js and what it imports, commander, chalk and cli-table3 included)
// into dist/cli-bundle/: a few files instead of a few hundred modules, so that `memsim` starts about
// 15 ms sooner (Node's ES module loader costs some 0.3 ms per module). Commands and allocators stay
// in chunks of their own, loaded when used. The reading thread of a pipelined replay
// (dist/trace/pipeline/reader-thread.js) is bundled apart into dist/reader-bundle/, so that it starts
// sooner too. The library (dist/index.js) and the compare workers (dist/sweep/worker.js, which load
// allocator modules by URL) are not bundled.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Bundles `entry` (a module of dist/) into `dir` with the chunk names of the CLI bundle. */
async function bundle(entry, dir, entryFileName) {
  const out = join(root, 'dist', dir);
  rmSync(out, { recursive: true, force: true });
  await build({
    input: join(root, 'dist', entry),
    platform: 'node',
    logLevel: 'warn',
    output: { dir: out, format: 'esm', entryFileNames: entryFileName, chunkFileNames: '[name]-[hash].js' },
  });
}

await bundle(join('cli', 'index.js'), 'cli-bundle', 'index.js');
await bundle(join('trace', 'pipeline', 'reader-thread.js'), 'reader-bundle', 'reader-thread.js');
