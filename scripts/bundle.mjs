#!/usr/bin/env node
// Bundles the CLI (dist/cli/index.js and what it imports, commander, chalk and cli-table3 included)
// into dist/cli-bundle/: a few files instead of a few hundred modules, so that `memsim` starts about
// 15 ms sooner (Node's ES module loader costs some 0.3 ms per module). Commands and allocators stay
// in chunks of their own, loaded when used. The reading thread of a pipelined replay is bundled apart
// into dist/reader-bundle/ as CommonJS (its code, dist/trace/pipeline/reader-work.js, and its entry
// start.cjs, which compiles that code with V8's code cache, written here by reading a small trace
// once), so that it starts reading sooner too. The compare workers are bundled apart the same way into dist/worker-bundle/ (entry start.cjs, code
// worker-work.cjs); dist/sweep/worker.js, which imports a sweep's extra modules first, and the
// library (dist/index.js) are not bundled.
//
// `memsim --version`, `memsim replay`, `memsim plan` and `memsim compare` run from a third bundle, dist/quick-bundle/ (entry
// dist/cli/quick.js): CommonJS, which its loader (dist/cli/quick-loader.js, bundled with the early
// reading of a large trace as dist/quick-bundle/loader.cjs for bin/memsim.js) compiles with V8's code cache (Node 20 keeps no
// code cache for ES modules). The cache is written here, by running the four command lines once
// on a small trace, and again by any run that finds none that fits its Node.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Two substitutions in both CLI bundles, each for start-up (loading `node:child_process` or `node:tty`
 * loads Node's sockets and streams, some 5 ms together):
 * - chalk's colour support detection (it asks `node:tty` at import) answers "no colour": memsim gives
 *   every chalk instance its level (src/report/format.ts) and never uses chalk's default instance;
 * - commander's `node:child_process`, for subcommands that are executables (memsim has none), loads
 *   when one is spawned.
 */
const startUp = {
  name: 'memsim-start-up',
  resolveId(source, importer) {
    if (source === '#supports-color' && /[/\\]chalk[/\\]/.test(importer ?? '')) return '\0memsim:no-colour-detection';
    if (source === 'node:child_process' && /[/\\]commander[/\\]/.test(importer ?? '')) return '\0memsim:child-process-when-used';
    return null;
  },
  load(id) {
    if (id === '\0memsim:no-colour-detection') return 'export default { stdout: false, stderr: false };';
    if (id === '\0memsim:child-process-when-used') {
      return [
        "import { createRequire } from 'node:module';",
        'export function spawn(...args) {',
        "  return createRequire(import.meta.url)('node:child_process').spawn(...args);",
        '}',
      ].join('\n');
    }
    return null;
  },
};

/** Bundles `entry` (a module of dist/) into `dir` with the chunk names of the CLI bundle. */
async function bundle(entry, dir, entryFileName) {
  const out = join(root, 'dist', dir);
  rmSync(out, { recursive: true, force: true });
  await build({
    input: join(root, 'dist', entry),
    platform: 'node',
    plugins: [startUp],
    logLevel: 'warn',
    output: { dir: out, format: 'esm', entryFileNames: entryFileName, chunkFileNames: '[name]-[hash].js' },
  });
}

/**
 * The quick bundle: CommonJS, without the HTML report of `replay` (whose modules await at top level).
 * Without comments and in ASCII (other characters escaped), a quarter smaller: Node reads a file with
 * any other character through V8's slower UTF-8 decoder into a string of two bytes per character (some
 * 6 million instructions of a small replay's start-up went there).
 */
async function quickBundle() {
  const out = join(root, 'dist', 'quick-bundle');
  rmSync(out, { recursive: true, force: true });
  await build({
    input: join(root, 'dist', 'cli', 'quick.js'),
    platform: 'node',
    plugins: [startUp],
    logLevel: 'warn',
    // quick.js hands `replay --format html` and `compare --format html` to the whole CLI before
    // their actions start: their page code (replay-html.js, cli/html.js) stays out of this bundle.
    external: (id) => /[/\\]replay-html\.js$/.test(id) || /[/\\]cli[/\\]html\.js$/.test(id),
    output: { dir: out, format: 'cjs', entryFileNames: 'index.cjs', chunkFileNames: '[name]-[hash].cjs', dynamicImportInCjs: false, comments: false, charset: 'ascii' },
  });
}

/**
 * What bin/memsim.js requires first (dist/cli/quick-start.js: the early reading of a large trace and
 * the quick bundle's loader), as one CommonJS file.
 */
async function quickLoader() {
  await build({
    input: join(root, 'dist', 'cli', 'quick-start.js'),
    platform: 'node',
    logLevel: 'warn',
    output: { file: join(root, 'dist', 'quick-bundle', 'loader.cjs'), format: 'cjs', codeSplitting: false, dynamicImportInCjs: false },
  });
}

/**
 * Runs `--version`, a replay, a plan and a compare of a small trace once, so that the quick bundle's
 * code cache is written (compare's chunks too).
 */
function warmQuickBundle() {
  const dir = mkdtempSync(join(tmpdir(), 'memsim-warm-'));
  try {
    const trace = join(dir, 'warm.csv');
    writeFileSync(trace, 'op,id,size,step\nalloc,a,1000,0\nalloc,b,2000,0\nfree,a,,1\nfree,b,,1\n');
    const bin = join(root, 'bin', 'memsim.js');
    for (const args of [['replay', trace], ['plan', trace, '--format', 'csv', '--strategy', 'greedy-by-size:offsets,xla-best-fit', '--output', join(dir, 'plan.csv')], ['compare', trace, '--format', 'json', '--jobs', '1'], ['--version']]) {
      const r = spawnSync(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
      if (r.status !== 0) throw new Error(`memsim ${args.join(' ')} failed while warming the quick bundle: ${r.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The reading thread's bundle: its code (reader-work.cjs and chunks, CommonJS) and its entry
 * (start.cjs, one file), which loads that code with V8's code cache.
 */
async function readerBundle() {
  await threadBundle('reader-bundle', join('trace', 'pipeline'), 'reader');
}

/**
 * Runs `script`, written to `file`, in a plain Node process (a script file, not `node -e`: a process
 * with flags of its own, as -e is, writes no cache); `who` names what failed if it fails.
 */
function runWarmScript(file, script, who) {
  writeFileSync(file, script);
  const r = spawnSync(process.execPath, [file], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  if (r.status !== 0) throw new Error(`${who} failed while warming its bundle: ${r.stderr}`);
}

/** Reads a small CSV trace once on the bundled reading thread, so that its code cache is written. */
async function warmReaderBundle() {
  const dir = mkdtempSync(join(tmpdir(), 'memsim-warm-'));
  try {
    const trace = join(dir, 'warm.csv');
    writeFileSync(trace, 'op,id,size,step\nalloc,a,1000,0\nalloc,1,2000,0\nfree,a,,1\nfree,1,,1\n');
    const start = join(root, 'dist', 'reader-bundle', 'start.cjs');
    const script = [
      "const { Worker } = require('node:worker_threads');",
      `const w = new Worker(${JSON.stringify(start)}, { workerData: { path: ${JSON.stringify(trace)}, every: 65536, options: {} } });`,
      "w.on('message', (m) => { if (m.kind !== 'events') { if (m.kind !== 'done') { console.error(m); process.exitCode = 1; } void w.terminate(); } });",
      "w.on('error', (e) => { console.error(e); process.exitCode = 1; });",
    ].join('\n');
    runWarmScript(join(dir, 'warm.cjs'), script, 'the reading thread');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The compare workers' bundle, as the reading thread's: their code (worker-work.cjs and chunks,
 * CommonJS) and their entry (start.cjs), which loads that code with V8's code cache.
 */
async function workerBundle() {
  await threadBundle('worker-bundle', 'sweep', 'worker');
}

/**
 * A thread's bundle in dist/`out`/: its code (dist/`dir`/`name`-work.js and what it imports, as
 * `name`-work.cjs and chunks, CommonJS) and its entry (dist/`dir`/`name`-start.js as start.cjs, one
 * file), which loads that code with V8's code cache.
 */
async function threadBundle(out, dir, name) {
  const to = join(root, 'dist', out);
  rmSync(to, { recursive: true, force: true });
  await build({
    input: join(root, 'dist', dir, `${name}-work.js`),
    platform: 'node',
    logLevel: 'warn',
    output: { dir: to, format: 'cjs', entryFileNames: `${name}-work.cjs`, chunkFileNames: '[name]-[hash].cjs', dynamicImportInCjs: false },
  });
  await build({
    input: join(root, 'dist', dir, `${name}-start.js`),
    platform: 'node',
    logLevel: 'warn',
    output: { file: join(to, 'start.cjs'), format: 'cjs', codeSplitting: false, dynamicImportInCjs: false },
  });
}

/** Runs one job of each default allocator on the bundled compare worker, so that its code cache is written. */
function warmWorkerBundle() {
  const dir = mkdtempSync(join(tmpdir(), 'memsim-warm-'));
  try {
    const trace = join(dir, 'warm.csv');
    const rows = ['op,id,size,step'];
    for (let k = 0; k < 400; k++) rows.push(`alloc,${k},${(k % 7) * 4096 + 512},${k >> 4}`, ...(k >= 3 ? [`free,${k - 3},,${k >> 4}`] : []));
    writeFileSync(trace, rows.join('\n') + '\n');
    const start = join(root, 'dist', 'worker-bundle', 'start.cjs');
    const script = [
      "import { Worker } from 'node:worker_threads';",
      `import { readTrace } from ${JSON.stringify(join(root, 'dist', 'index.js'))};`,
      `import { shareTrace } from ${JSON.stringify(join(root, 'dist', 'sweep', 'shared-trace.js'))};`,
      `const w = new Worker(${JSON.stringify(start)}, { workerData: { modules: [] } });`,
      `w.postMessage({ trace: shareTrace(readTrace(${JSON.stringify(trace)})) });`,
      "const claims = new Int32Array(new SharedArrayBuffer(16));",
      "const job = { contender: { name: 'caching', given: {} }, capacityBytes: Infinity, onOom: 'stop', search: null };",
      "w.postMessage({ index: 0, claims, slot: 0, job });",
      "w.on('message', (m) => { if (m.kind === 'reply') { if (!m.reply.ok) { console.error(m.reply.error); process.exitCode = 1; } void w.terminate(); } });",
      "w.on('error', (e) => { console.error(e); process.exitCode = 1; });",
    ].join('\n');
    runWarmScript(join(dir, 'warm.mjs'), script, 'the compare worker');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await bundle(join('cli', 'index.js'), 'cli-bundle', 'index.js');
await quickBundle();
await quickLoader();
warmQuickBundle();
await readerBundle();
await warmReaderBundle();
await workerBundle();
warmWorkerBundle();
