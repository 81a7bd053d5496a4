#!/usr/bin/env node
// memsim benchmarks: parse MB/s per format, replay events/s per allocator, memory of in-memory traces.
// Traces are generated once with `memsim gen` and cached in .bench-cache/ (git-ignored).
// Usage: npm run bench [-- --sizes 1e5,1e6,1e7 --formats csv,jsonl,json --allocators all --workload training --repeat 3
//                         --sections parse,replay,peers,binary,e2e,minimalloc,planners,snapshot --huge --minimalloc <binary> --minimalloc-benchmarks <dir>
//                         --plan-args '--node-budget 400000' --snapshot-mb 100]
// `peers`: memsim end to end beside TensorFlow's BFC and DynaPipe's simulator (bench/peers.mjs);
// `binary`: the same replays from the traces' binary form (.mst) beside CSV and the peers (bench/binary.mjs);
// `--formats` may name `mst` for the parse table (converted from the CSV);
// `e2e`: start-up, --placements, compare, peak memory (bench/endtoend.mjs); --huge adds 10^8 events.
// `minimalloc`: plan --strategy best on minimalloc's A and B, beside its solver when given (bench/planners.mjs);
// --plan-args: more options for memsim plan there, space-separated.
// `planners`: greedy planning of the peers' 10^6-event trace, time and peak RSS (bench/greedy.mjs); --huge adds 10^7.
// `snapshot`: PyTorch snapshots read (MB/s, beside the plain route) and `memsim replay` of a 100 MB one (bench/snapshot-load.mjs; --snapshot-mb N).
// Each figure is the best of --repeat runs, each in a fresh process: on a shared machine one run can
// be half as fast as the next, and the best run is the one least disturbed.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchBinary } from './binary.mjs';
import { benchEndToEnd } from './endtoend.mjs';
import { benchPeers, hostNote } from './peers.mjs';
import { benchPlanners } from './greedy.mjs';
import { benchMinimalloc } from './planners.mjs';
import { benchSnapshot } from './snapshot-load.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cache = join(root, '.bench-cache');
const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') && a !== '--huge' ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const sizes = (args.sizes ?? '1e5,1e6,1e7').split(',').map(Number);
const formats = (args.formats ?? 'csv,jsonl,json,mst').split(',');
const workload = args.workload ?? 'training';
const allocatorsArg = args.allocators ?? 'all';
const repeat = Math.max(1, Number(args.repeat ?? 3));
const sections = (args.sections ?? 'parse,replay,peers,binary,e2e,minimalloc,planners,snapshot').split(',');
const huge = process.argv.includes('--huge');

mkdirSync(cache, { recursive: true });

function tracePath(events, format) {
  return join(cache, `${workload}-${events}.${format}`);
}

function ensureTrace(events, format) {
  const p = tracePath(events, format);
  if (!existsSync(p)) {
    process.stderr.write(`generating ${p} …\n`);
    // The binary form is written from the CSV (`gen` writes text formats).
    const gen = format === 'mst' ? ['convert', ensureTrace(events, 'csv'), p] : ['gen', workload, '--events', String(events), '--format', format, '--output', p];
    execFileSync(process.execPath, [join(root, 'bin', 'memsim.js'), ...gen], { stdio: 'inherit' });
  }
  return p;
}

function measureOnce(task) {
  const r = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=4096', join(root, 'bench', 'task.mjs'), JSON.stringify(task)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`bench task failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The best of `repeat` runs: the shortest times, the largest RSS. */
function measure(task) {
  let best;
  for (let i = 0; i < repeat; i++) {
    const r = measureOnce(task);
    if (!best) {
      best = r;
      continue;
    }
    best.maxRssMiB = Math.max(best.maxRssMiB, r.maxRssMiB);
    if (r.seconds !== undefined) best.seconds = Math.min(best.seconds, r.seconds);
    if (r.replays) r.replays.forEach((x, k) => (best.replays[k].seconds = Math.min(best.replays[k].seconds, x.seconds)));
  }
  return best;
}

const fmt = (x, d = 1) => x.toFixed(d);
const mega = (x) => `${fmt(x / 1e6, 2)} M`;
const rows = [];
console.log(`memsim bench · node ${process.version} · ${workload} traces · best of ${repeat}`);
console.log(hostNote());
if (sections.includes('parse')) {
console.log('\nparse (readTrace: syntax + semantic checks + columnar build)');
console.log('events      format  file MB   MB/s     events/s   trace MiB   max RSS MiB');
for (const n of sizes) {
  for (const f of formats) {
    const p = ensureTrace(n, f);
    const r = measure({ kind: 'parse', path: p });
    const mb = statSync(p).size / 1e6;
    rows.push({ kind: 'parse', events: r.events, format: f, mbPerSec: mb / r.seconds, ...r });
    console.log(
      `${String(r.events).padEnd(11)} ${f.padEnd(7)} ${fmt(mb).padStart(7)} ${fmt(mb / r.seconds).padStart(7)}  ${mega(r.events / r.seconds).padStart(10)}   ${fmt(r.traceMiB).padStart(9)}   ${fmt(r.maxRssMiB).padStart(11)}`,
    );
  }
}
}
if (sections.includes('replay')) {
console.log('\nreplay (engine + allocator, trace already in memory)');
console.log('events      allocator        events/s     seconds   peak reserved       max RSS MiB');
for (const n of sizes) {
  const p = ensureTrace(n, 'csv');
  const r = measure({ kind: 'replay', path: p, allocators: allocatorsArg });
  for (const a of r.replays) {
    rows.push({ kind: 'replay', events: r.events, ...a });
    console.log(
      `${String(r.events).padEnd(11)} ${a.allocator.padEnd(16)} ${mega(r.events / a.seconds).padStart(10)}   ${fmt(a.seconds, 2).padStart(7)}   ${String(a.peakReservedBytes).padStart(16)}   ${fmt(r.maxRssMiB).padStart(11)}`,
    );
  }
}
}
if (sections.includes('peers')) rows.push(...(await benchPeers({ repeat: Math.max(repeat, 5) })));
if (sections.includes('binary')) rows.push(...benchBinary({ repeat: Math.max(repeat, 5) }));
if (sections.includes('e2e')) rows.push(...benchEndToEnd({ repeat: Math.max(repeat, 5), huge }));
if (sections.includes('minimalloc')) rows.push(...benchMinimalloc({ repeat, minimalloc: args.minimalloc, benchmarks: args['minimalloc-benchmarks'], planArgs: args['plan-args']?.split(' ').filter(Boolean) ?? [] }));
if (sections.includes('planners')) rows.push(...benchPlanners({ repeat, huge }));
if (sections.includes('snapshot')) rows.push(...benchSnapshot({ repeat, mb: Number(args['snapshot-mb'] ?? 100) }));
if (args.json) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(args.json, JSON.stringify(rows, null, 2));
}
