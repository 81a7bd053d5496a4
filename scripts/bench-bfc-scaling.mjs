// Per-request cost of the bfc allocator as free chunks and live blocks grow.
//   node scripts/bench-bfc-scaling.mjs [requests=400000]
// Table 1 (free chunks grow, live blocks fixed at 10^5): allocate 10^5 + F blocks of random sizes
// (256 B..16 KiB) and free F of them, evenly spaced so that no two are adjacent: 10^5 live blocks and
// F free chunks that cannot coalesce. Then time `requests` requests against the allocator itself,
// in pairs: allocate a temporary of a random size (256 B..16 KiB), which takes the best-fitting
// hole (split when it is twice as large), and free it, which coalesces the hole back: the free chunk
// count stays at F, and every request searches, removes from and inserts into trees of F chunks.
// Table 2 (both grow): N live blocks and N free chunks for N = 10^3..10^6, same requests; here the
// whole working set grows too, so memory latency adds to the tree depth. Requests come in pairs:
// free a random live block, allocate a block of its size (the free chunks decay as holes merge).
// Prints the best of 5 runs (the least disturbed by other work on the machine) in ns per request,
// by the wall clock and by the process's CPU time.
import { getAllocator, resolveOptions, traceFromEvents } from '../dist/index.js';

const requests = Number(process.argv[2] ?? 4e5);
let seed = 12345;
const rnd = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const small = () => 256 * (1 + Math.floor(rnd() * 64));
const def = getAllocator('bfc');
const trace = traceFromEvents([]);
const { values } = resolveOptions(def, {}, trace);

function run(liveCount, freeCount, temporaries) {
  const a = def.create(values, { capacityBytes: 80 * 1024 ** 3, trace });
  const total = liveCount + freeCount;
  const live = new Int32Array(total + requests);
  const all = new Int32Array(total);
  for (let i = 0; i < total; i++) all[i] = a.allocate(small(), 0, 0, i);
  // Free F blocks spread evenly (every stride-th, stride >= 2: never two neighbours), keep the rest.
  const stride = freeCount > 0 ? Math.floor(total / freeCount) : Infinity;
  let count = 0;
  for (let i = 0; i < total; i++) {
    if (i % stride === stride - 1) a.free(all[i]);
    else live[count++] = all[i];
  }
  const freeAtStart = a.freeBlockCount();
  const pick = new Float64Array(requests);
  const size = new Float64Array(requests);
  for (let i = 0; i < requests; i++) {
    pick[i] = rnd();
    size[i] = small();
  }
  const t0 = process.hrtime.bigint();
  const u0 = process.cpuUsage();
  if (temporaries) {
    for (let i = 0; i < requests; i += 2) a.free(a.allocate(size[i], 0, 0, i));
  } else {
    for (let i = 0; i < requests; i += 2) {
      const j = Math.floor(pick[i] * count);
      const bytes = a.blockBytes(live[j]);
      a.free(live[j]);
      live[j] = a.allocate(bytes, 0, 0, i);
    }
  }
  const u = process.cpuUsage(u0);
  const ns = Number(process.hrtime.bigint() - t0) / requests;
  return { ns, cpuNs: ((u.user + u.system) * 1000) / requests, freeAtStart, freeAtEnd: a.freeBlockCount() };
}

function row(label, liveCount, freeCount, temporaries) {
  let best;
  let bestCpu = Infinity;
  for (let r = 0; r < 5; r++) {
    const res = run(liveCount, freeCount, temporaries);
    if (!best || res.ns < best.ns) best = res;
    bestCpu = Math.min(bestCpu, res.cpuNs);
  }
  console.log(
    `${label.padEnd(26)} | ${String(best.freeAtStart).padStart(8)} -> ${String(best.freeAtEnd).padEnd(8)} | ${best.ns.toFixed(0).padStart(5)} | ${bestCpu.toFixed(0).padStart(5)}`,
  );
}

console.log(`${requests} requests; ns per request, best of 5`);
console.log('live blocks, free chunks   | free chunks start -> end | wall | cpu');
for (const f of [10, 1e3, 1e4, 1e5]) row(`1e5 live, ${f} free`, 1e5, f, true);
for (const n of [1e3, 1e4, 1e5, 1e6]) row(`${n} live, ${n} free`, n, n, false);
