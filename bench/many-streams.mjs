// Cost of a replay against the number of streams, caching beside bfc (which ignores streams).
//   npm run build && node bench/many-streams.mjs [events=400000] [streams=1,1000,10000,20000,100000]
// The trace: allocations of 512 B..12 MiB, each on the next stream in turn, with about 64 live at a
// time (a random one freed after each allocation), in steps of 1,000. Each stream gets its own
// free sets and segments in the caching allocator, as in PyTorch, so a request costs the same
// however many streams there are only if nothing is walked per stream: the figure per event should
// stay flat as streams grow, as bfc's does, but for the segments: each stream takes segments of
// its own from the device (PyTorch's pools are per stream), and those calls are counted beside.
// Prints the best of 3 replays (engine and allocator, the trace in memory) in ns per event, and
// caching's time over bfc's.
import { getAllocator, loadAllocator, replay, TraceBuilder } from '../dist/index.js';

const events = Number(process.argv[2] ?? 4e5);
const streamCounts = (process.argv[3] ?? '1,1000,10000,20000,100000').split(',').map(Number);
const SIZES = [512, 4096, 65536, 1 << 20, 3 << 20, 12 << 20];

function makeTrace(streams) {
  let seed = 2463534242;
  const rnd = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  const b = new TraceBuilder(`streams-${streams}`, { expectedEvents: events + 64 });
  const live = [];
  let n = 0;
  let i = 0;
  while (n < events) {
    const stream = i % streams;
    b.addAlloc(`a${i}`, SIZES[Math.floor(rnd() * SIZES.length)], Math.floor(i / 1000), stream, undefined, undefined, 0);
    live.push(i);
    n++;
    if (live.length > 64) {
      const j = Math.floor(rnd() * live.length);
      const k = live[j];
      live[j] = live[live.length - 1];
      live.pop();
      b.addFree(`a${k}`, Math.floor(i / 1000), undefined, undefined, 0);
      n++;
    }
    i++;
  }
  for (const k of live) b.addFree(`a${k}`, Math.floor(i / 1000), undefined, undefined, 0);
  return b.finish('bench');
}

function best(trace, allocator) {
  let ns = Infinity;
  let calls = 0;
  for (let r = 0; r < 3; r++) {
    const t0 = process.hrtime.bigint();
    const { report } = replay(trace, { allocator });
    ns = Math.min(ns, Number(process.hrtime.bigint() - t0) / trace.length);
    calls = report.summary.deviceAllocCalls;
  }
  return { ns, calls };
}

if (typeof loadAllocator === 'function') {
  await loadAllocator('caching');
  await loadAllocator('bfc');
}
getAllocator('caching');
console.log(`${events.toLocaleString('en-US')} events per trace; best of 3 replays, ns per event`);
console.log('| streams | caching ns/event | bfc ns/event | caching / bfc | caching segments |');
console.log('|---:|---:|---:|---:|---:|');
for (const s of streamCounts) {
  const trace = makeTrace(s);
  const c = best(trace, 'caching');
  const f = best(trace, 'bfc');
  console.log(`| ${s.toLocaleString('en-US')} | ${c.ns.toFixed(0)} | ${f.ns.toFixed(0)} | ${(c.ns / f.ns).toFixed(2)} | ${c.calls.toLocaleString('en-US')} |`);
}
