#!/usr/bin/env node
// The cost of attribution (who holds the memory at the peaks and OOMs) against the replay it adds to.
// Each round replays the same in-memory trace through one allocator twice, with and without
// attribution, in alternating order; the figures are the best of the rounds, and the ratio of the
// bests. Usage:
//   node bench/attribution.mjs [--trace FILE] [--allocators naive,caching] [--rounds 7] [--group-by tag]
// Without --trace it uses the peers' 10^6-event benchmark trace (python3 ../shared/peers/gen_train_trace.py),
// generated once into .bench-cache/train-1m.csv.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const { readTrace } = await import(join(root, 'dist', 'trace', 'read.js'));
const { replay } = await import(join(root, 'dist', 'sim', 'run.js'));
const { attributeReplay } = await import(join(root, 'dist', 'sim', 'holders.js'));

let tracePath = args.trace;
if (!tracePath) {
  const cache = join(root, '.bench-cache');
  mkdirSync(cache, { recursive: true });
  tracePath = join(cache, 'train-1m.csv');
  if (!existsSync(tracePath)) execFileSync('python3', [join(root, '..', 'shared', 'peers', 'gen_train_trace.py'), '-o', tracePath], { stdio: 'inherit' });
}
const allocators = (args.allocators ?? 'naive,caching').split(',');
const rounds = Math.max(1, Number(args.rounds ?? 7));
const attribution = args['group-by'] ? { groupBy: args['group-by'] } : {};

const trace = readTrace(tracePath);
const time = (f) => {
  globalThis.gc?.();
  const t0 = process.hrtime.bigint();
  const r = f();
  return [Number(process.hrtime.bigint() - t0) / 1e9, r];
};

console.log(`trace ${tracePath}: ${trace.length.toLocaleString('en-US')} events, ${trace.allocCount.toLocaleString('en-US')} allocations; best of ${rounds} rounds`);
console.log('| allocator | replay without attribution (s) | with attribution (s) | ratio | attribution alone (s) | share of the replay |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const name of allocators) {
  let without = Infinity;
  let withIt = Infinity;
  let alone = Infinity;
  for (let k = 0; k < rounds; k++) {
    const order = k % 2 === 0 ? [false, true] : [true, false];
    for (const on of order) {
      const [s, r] = time(() => replay(trace, { allocator: name, attribution: on ? attribution : false }));
      if (on) withIt = Math.min(withIt, s);
      else {
        without = Math.min(without, s);
        const [a] = time(() => attributeReplay(trace, r.outcome, name, attribution));
        alone = Math.min(alone, a);
      }
    }
  }
  console.log(`| ${name} | ${without.toFixed(3)} | ${withIt.toFixed(3)} | ${(withIt / without).toFixed(3)} | ${alone.toFixed(4)} | ${((100 * alone) / without).toFixed(2)}% |`);
}
