// Times `compare --min-capacity` on a generated trace of about 10^6 events with 4 rows (naive and
// three registered copies of it with other page sizes), with worker threads and in one thread, and
// checks that both give byte-identical JSON.
//   npm run build && node bench/compare.mjs [events]
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { COPIES } from './compare-naive-copies.mjs';
import { compareTrace, readTrace } from '../dist/index.js';
import { renderJson } from '../dist/report/index.js';

const events = Number(process.argv[2] ?? 1_000_000);
const path = `/tmp/memsim-bench-training-${events}.csv`;
if (!existsSync(path)) {
  execFileSync(process.execPath, ['bin/memsim.js', 'gen', 'training', '--events', String(events), '--format', 'csv', '--output', path]);
}
let t0 = performance.now();
const trace = readTrace(path);
const readS = (performance.now() - t0) / 1000;
const options = {
  allocators: ['naive', ...COPIES],
  options: { 'naive-b': { page: '64KiB' }, 'naive-c': { page: '4MiB' }, 'naive-d': { alignment: '4KiB' } },
  minCapacity: true,
  workerModules: [new URL('./compare-naive-copies.mjs', import.meta.url).href],
};
const runs = {};
for (const jobs of [availableParallelism(), 1]) {
  t0 = performance.now();
  const { report, execution } = await compareTrace(trace, { ...options, jobs });
  const s = (performance.now() - t0) / 1000;
  runs[jobs] = renderJson(report);
  const replays = report.allocators.map((a) => `${a.name}:${a.replays}`).join(' ');
  console.log(`jobs=${jobs} (${execution.mode}, ${execution.threads} thread(s)): ${s.toFixed(2)} s; replays ${replays}`);
}
const [a, b] = Object.values(runs);
console.log(`trace: ${trace.length} events, read in ${readS.toFixed(2)} s; JSON identical across thread counts: ${a === b}`);
