// Reading speed and peak memory of the TensorFlow memory-log reader on a (large) log:
//   node scripts/gen-tflog.mjs /tmp/tf-1g.log 1GB      # once
//   node scripts/bench-tflog.mjs /tmp/tf-1g.log [--allocator-name NAME] [--replay ALLOCATOR]
// Prints the read time, MB/s, the trace's size and the process's peak RSS (run it alone: the figure
// is this process's own).
import { statSync } from 'node:fs';
import { readTrace, replay } from '../dist/index.js';

const [path, ...rest] = process.argv.slice(2);
if (!path) {
  console.error('usage: node scripts/bench-tflog.mjs <log> [--allocator-name NAME] [--replay ALLOCATOR]');
  process.exit(2);
}
const arg = (name) => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1] : undefined;
};
const allocatorName = arg('--allocator-name');
const replayWith = arg('--replay');
const bytes = statSync(path).size;
const t0 = process.hrtime.bigint();
const trace = readTrace(path, allocatorName ? { allocatorName } : {});
const readSec = Number(process.hrtime.bigint() - t0) / 1e9;
const mb = bytes / 1e6;
console.log(
  `read ${mb.toFixed(0)} MB in ${readSec.toFixed(2)} s (${(mb / readSec).toFixed(1)} MB/s): ${trace.length} events, ${trace.allocCount} allocations, ` +
    `${trace.summary.steps} steps, peak live ${trace.summary.peakLiveBytes} B`,
);
if (replayWith) {
  const t1 = process.hrtime.bigint();
  const r = replay(trace, { allocator: replayWith });
  const s = Number(process.hrtime.bigint() - t1) / 1e9;
  console.log(`replay ${replayWith}: ${s.toFixed(2)} s, peak reserved ${r.report.summary.peakReservedBytes} B`);
}
const rss = process.resourceUsage().maxRSS / 1024;
console.log(`peak RSS ${rss.toFixed(0)} MiB; heap used now ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`);
