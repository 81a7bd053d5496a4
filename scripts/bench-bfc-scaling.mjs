// Per-request cost of the bfc allocator as live blocks and free chunks grow.
//   node scripts/bench-bfc-scaling.mjs [requests=1000000] [N ...]
// For each N: allocate 2N blocks of random sizes (256 B..16 KiB) and free every other one, which
// leaves N live blocks and N free chunks that cannot coalesce. Then time `requests` random requests
// against the allocator itself, half frees of random live blocks and half allocations, in two mixes:
//   mixed: allocations of 256 B..16 KiB, which fill the holes (free chunks drop as the run goes on);
//   holes: allocations of 32..64 KiB, which no hole fits, so the free chunks stay at N and more.
// Prints the best of 5 runs (the least disturbed by other work on the machine) in ns per request.
import { getAllocator, resolveOptions, traceFromEvents } from '../dist/index.js';

const [reqArg, ...ns] = process.argv.slice(2);
const requests = Number(reqArg ?? 1e6);
const sizesN = ns.length > 0 ? ns.map(Number) : [1e3, 1e4, 1e5, 1e6];
let seed = 12345;
const rnd = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const small = () => 256 * (1 + Math.floor(rnd() * 64));
const large = () => 32768 + 256 * Math.floor(rnd() * 128);
const def = getAllocator('bfc');
const trace = traceFromEvents([]);
const { values } = resolveOptions(def, {}, trace);

function run(n, mix) {
  const a = def.create(values, { capacityBytes: 80 * 1024 ** 3, trace });
  const live = new Int32Array(2 * n + requests);
  let count = 0;
  for (let i = 0; i < 2 * n; i++) live[count++] = a.allocate(small(), 0, 0, i);
  let kept = 0;
  for (let i = 0; i < count; i++) if (i % 2 === 0) a.free(live[i]); else live[kept++] = live[i];
  count = kept;
  const freeAtStart = a.freeBlockCount();
  const isFree = new Uint8Array(requests);
  const pick = new Float64Array(requests);
  const size = new Float64Array(requests);
  for (let i = 0; i < requests; i++) {
    isFree[i] = i % 2;
    pick[i] = rnd();
    size[i] = mix === 'mixed' ? small() : large();
  }
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < requests; i++) {
    if (isFree[i] === 1) {
      const j = Math.floor(pick[i] * count);
      a.free(live[j]);
      live[j] = live[--count];
    } else {
      live[count++] = a.allocate(size[i], 0, 0, i);
    }
  }
  const ns = Number(process.hrtime.bigint() - t0) / requests;
  return { ns, freeAtStart, freeAtEnd: a.freeBlockCount(), live: count };
}

console.log('mix   |         N | free chunks start -> end | ns/request (best of 5)');
for (const mix of ['mixed', 'holes']) {
  for (const n of sizesN) {
    let best;
    for (let r = 0; r < 5; r++) {
      const res = run(n, mix);
      if (!best || res.ns < best.ns) best = res;
    }
    console.log(`${mix} | ${String(n).padStart(9)} | ${String(best.freeAtStart).padStart(8)} -> ${String(best.freeAtEnd).padEnd(8)} | ${best.ns.toFixed(0).padStart(5)}`);
  }
}
