// Offline planners on the peers' generated training traces (bench/peers.mjs): `memsim plan` end to
// end (start-up, reading the CSV, planning, writing the offsets) for the greedy strategies that scale,
// with its wall time, CPU time and peak RSS; 10^7 events with --huge. Each figure is the best of `repeat` runs
// (time) and the largest RSS.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { peerTrace } from './peers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const say = (s) => process.stdout.write(`${s}\n`);

export const PLAN_STRATEGIES = ['greedy-by-size:offsets', 'xla-best-fit'];

/** One `memsim plan` run in a process of its own: seconds and peak RSS (bytes). */
function planOnce(trace, strategy) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(root, 'bench', 'rss.mjs'), 'plan', trace, '--strategy', strategy, '--format', 'csv', '--output', '/dev/null', '--time-limit', '10m'], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const seconds = (performance.now() - t0) / 1000;
  const m = /maxRSS (\d+)\ncpuUser (\d+)/.exec(r.stderr ?? '');
  if (r.status !== 0 || !m) throw new Error(`memsim plan ${trace} --strategy ${strategy} failed: ${r.stderr}`);
  return { seconds, cpuSeconds: Number(m[2]) / 1e6, rssBytes: Number(m[1]) * 1024 };
}

/** The planners section; returns rows for --json. */
export function benchPlanners({ repeat = 3, huge = false } = {}) {
  const rows = [];
  say(`\nplanners: memsim plan TRACE --strategy S --format csv --output /dev/null --time-limit 10m (best of ${repeat})`);
  for (const events of huge ? [1e6, 1e7] : [1e6]) {
    const trace = peerTrace(events);
    for (const strategy of PLAN_STRATEGIES) {
      let best = null;
      for (let k = 0; k < repeat; k++) {
        const r = planOnce(trace, strategy);
        best = best ? { seconds: Math.min(best.seconds, r.seconds), cpuSeconds: Math.min(best.cpuSeconds, r.cpuSeconds), rssBytes: Math.max(best.rssBytes, r.rssBytes) } : r;
      }
      rows.push({ kind: 'plan', events, strategy, ...best });
      say(`  ${events.toExponential(0)} events, ${strategy}: ${best.seconds.toFixed(2)} s (${best.cpuSeconds.toFixed(2)} s of CPU), peak RSS ${(best.rssBytes / 2 ** 20).toFixed(0)} MiB`);
    }
  }
  return rows;
}
