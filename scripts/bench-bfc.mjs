// Replay speed of the bfc allocator on a trace file: node scripts/bench-bfc.mjs <trace> [runs] [--option k=v ...]
// Times replayTrace only (the trace is read first); prints events/s of the best and median runs.
import { getAllocator, readTrace, replayTrace, resolveOptions } from '../dist/index.js';

const [path, runsArg, ...rest] = process.argv.slice(2);
const runs = Number(runsArg ?? 3);
const given = {};
for (let i = 0; i < rest.length; i++) if (rest[i] === '--option') { const [k, v] = rest[++i].split('='); given[k] = v; }
const trace = readTrace(path);
const def = getAllocator('bfc');
const { values } = resolveOptions(def, given, trace);
const times = [];
const cpu = [];
for (let r = 0; r < runs; r++) {
  const a = def.create(values, { capacityBytes: Infinity, trace });
  const t0 = process.hrtime.bigint();
  const u0 = process.cpuUsage();
  const out = replayTrace(trace, a, Infinity);
  const u = process.cpuUsage(u0);
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  times.push(s);
  cpu.push((u.user + u.system) / 1e6);
  if (r === 0) console.log(`events ${trace.length}, completed ${out.completed}, peak allocated ${out.peakAllocatedBytes}, free chunks at end ${a.freeBlockCount()}`);
}
times.sort((x, y) => x - y);
cpu.sort((x, y) => x - y);
const best = times[0];
const median = times[Math.floor(times.length / 2)];
const rate = (sec) => `${(trace.length / sec / 1e6).toFixed(2)} M events/s (${((sec * 1e9) / trace.length).toFixed(0)} ns/event)`;
console.log(`wall: best ${rate(best)}, median ${rate(median)}; cpu time: best ${rate(cpu[0])}`);
