#!/usr/bin/env node
// The cost of `memsim tune`: the caching allocator's full what-if space (60 configurations, each
// replayed at the capacity, unlimited, and through its minimum-capacity search) on training traces
// of 10^5 and 10^6 events, set against one plain replay of the same trace measured in the same run.
// Traces come from ../shared/peers/gen_train_trace.py when it is there (the benchmark trace of the
// peers' README), else from `memsim gen training`; they are cached in .bench-cache/.
// Usage: npm run bench:tune [-- --sizes 1e5,1e6 --jobs 2 --repeat 1]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cache = join(root, '.bench-cache');
const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const sizes = (args.sizes ?? '1e5,1e6').split(',').map(Number);
const jobs = String(args.jobs ?? 2);
const repeat = Math.max(1, Number(args.repeat ?? 1));
const peer = join(root, '..', 'shared', 'peers', 'gen_train_trace.py');
const memsim = join(root, 'bin', 'memsim.js');
mkdirSync(cache, { recursive: true });

/** The trace of about `events` events: the peers' generator (2,500 steps ≈ 10^6 events), else memsim gen. */
function trace(events) {
  const hasPeer = existsSync(peer) && spawnSync('python3', ['--version']).status === 0;
  const p = join(cache, hasPeer ? `train-peer-${events}.csv` : `training-${events}.csv`);
  if (!existsSync(p)) {
    process.stderr.write(`generating ${p} …\n`);
    if (hasPeer) execFileSync('python3', [peer, '--steps', String(Math.round((2500 * events) / 1e6)), '-o', p], { stdio: 'inherit' });
    else execFileSync(process.execPath, [memsim, 'gen', 'training', '--events', String(events), '--format', 'csv', '--output', p], { stdio: 'inherit' });
  }
  return p;
}

/** Seconds of the best of `repeat` runs of the CLI (a fresh process each), and its last stdout. */
function timed(argv) {
  let best = Infinity;
  let out = '';
  for (let k = 0; k < repeat; k++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [memsim, ...argv], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0 && r.status !== 1) throw new Error(`memsim ${argv.join(' ')} failed: ${r.stderr}`);
    best = Math.min(best, s);
    out = r.stdout;
  }
  return { seconds: best, out };
}

console.log(`memsim tune, caching's full space, --jobs ${jobs}, Node ${process.version}, best of ${repeat}`);
console.log('| events | configurations | replays | tune s | one replay s | tune / replay |');
console.log('|---:|---:|---:|---:|---:|---:|');
for (const n of sizes) {
  const p = trace(n);
  const replay = timed(['replay', p, '--allocator', 'caching', '--format', 'json']);
  const tune = timed(['tune', p, '--allocators', 'caching', '--jobs', jobs, '--format', 'json', '--progress', 'never']);
  const r = JSON.parse(tune.out);
  const events = JSON.parse(replay.out).trace.events;
  console.log(
    `| ${events.toLocaleString('en-US')} | ${r.rows.length} | ${r.replays.toLocaleString('en-US')} | ${tune.seconds.toFixed(1)} | ${replay.seconds.toFixed(2)} | ${(tune.seconds / replay.seconds).toFixed(0)}× |`,
  );
}
