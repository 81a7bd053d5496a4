// `memsim plan --strategy best` (default options) on minimalloc's challenging benchmarks shipped in
// ../shared/traces/minimalloc (A and B, capacity 1,048,576), each run end to end in a fresh process,
// the plan checked with memsim's own checker. With --minimalloc <binary> (google/minimalloc built from
// source), that solver runs at --capacity=1048576 right before each memsim run, so both times come
// from the same moment of a shared machine. With --minimalloc-benchmarks <dir> (its
// benchmarks/challenging, A to K), every CSV there instead of the two shipped ones.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkOffsets, readRecordsCsv } from '../dist/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, '..', 'shared', 'traces', 'minimalloc');
const NAMES = ['A', 'B'];

// CPU seconds (user + system) of the children this process has waited for, from /proc/self/stat
// (Linux; null elsewhere). On a shared machine a child's CPU time varies far less than its wall time.
function childCpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100; // cutime, cstime (clock ticks, USER_HZ 100)
  } catch {
    return null;
  }
}

function timed(cmd, args) {
  const c0 = childCpuSeconds();
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = (performance.now() - t0) / 1000;
  const c1 = childCpuSeconds();
  return { r, seconds, cpuSeconds: c0 === null || c1 === null ? null : c1 - c0 };
}

function runMinimalloc(bin, file) {
  const outDir = mkdtempSync(join(tmpdir(), 'memsim-bench-'));
  const out = join(outDir, 'out.csv');
  let rows;
  let timing;
  try {
    timing = timed(bin, ['--capacity=1048576', `--input=${file}`, `--output=${out}`]);
    if (timing.r.status !== 0) throw new Error(`minimalloc failed on ${file}: ${timing.r.stderr}`);
    rows = readFileSync(out, 'utf8').trim().split('\n');
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  const { seconds, cpuSeconds } = timing;
  const col = rows[0].split(',');
  const [iOff, iSize] = [col.indexOf('offset'), col.indexOf('size')];
  const peak = Math.max(...rows.slice(1).map((l) => Number(l.split(',')[iOff]) + Number(l.split(',')[iSize])));
  return { peak, seconds, cpuSeconds };
}

/** Rows for the JSON output; prints a table. */
export function benchMinimalloc({ repeat = 3, minimalloc, benchmarks, planArgs = [] } = {}) {
  const rows = [];
  console.log('\nplan --strategy best on minimalloc\'s benchmarks (default options, end to end, plan checked)');
  const files = benchmarks
    ? readdirSync(benchmarks).filter((f) => f.endsWith('.csv')).sort().map((f) => [f.split('.')[0], join(benchmarks, f)])
    : NAMES.map((n) => [n, join(dir, `${n}.1048576.csv`)]);
  const missing = files.filter(([, f]) => !existsSync(f));
  if (missing.length > 0) {
    console.log(`skipped: ${missing.map(([, f]) => f).join(', ')} absent (google/minimalloc's benchmarks/challenging)`);
    return rows;
  }
  if (planArgs.length > 0) console.log(`memsim plan options: ${planArgs.join(' ')}`);
  console.log(`input   total       status        nodes      seconds   cpu s${minimalloc ? '   minimalloc total   seconds   cpu s   ratio   cpu ratio' : ''}`);
  for (const [name, file] of files) {
    let best;
    let mm;
    for (let i = 0; i < repeat; i++) {
      if (minimalloc) {
        const m = runMinimalloc(minimalloc, file);
        mm = mm && mm.seconds <= m.seconds ? mm : m;
      }
      const { r, seconds, cpuSeconds } = timed(process.execPath, [join(root, 'bin', 'memsim.js'), 'plan', file, '--strategy', 'best', '--format', 'json', ...planArgs]);
      if (r.status !== 0) throw new Error(`memsim plan failed on ${file}: ${r.stderr}`);
      const plan = JSON.parse(r.stdout).results.find((x) => x.strategy === 'best');
      const problem = checkOffsets(readRecordsCsv(file, 'minimalloc-csv'), plan.offsets, plan.totalBytes);
      if (problem !== null) throw new Error(`invalid plan for ${file}: ${problem}`);
      if (!best || seconds < best.seconds) best = { totalBytes: plan.totalBytes, status: plan.search.status, nodes: plan.search.nodes, seconds, cpuSeconds };
    }
    rows.push({
      kind: 'plan-minimalloc', input: name, ...best,
      ...(mm ? { minimallocTotalBytes: mm.peak, minimallocSeconds: mm.seconds, minimallocCpuSeconds: mm.cpuSeconds } : {}),
    });
    const cpu = (x) => (x === null ? '-' : x.toFixed(2));
    const cpuRatio = mm && best.cpuSeconds !== null && mm.cpuSeconds ? (best.cpuSeconds / mm.cpuSeconds).toFixed(2) : '-';
    console.log(
      `${name.padEnd(7)} ${best.totalBytes.toLocaleString('en-US').padStart(9)}   ${best.status.padEnd(12)} ${best.nodes.toLocaleString('en-US').padStart(8)}   ${best.seconds.toFixed(2).padStart(7)}   ${cpu(best.cpuSeconds).padStart(5)}` +
        (mm ? `   ${mm.peak.toLocaleString('en-US').padStart(16)}   ${mm.seconds.toFixed(2).padStart(7)}   ${cpu(mm.cpuSeconds).padStart(5)}   ${(best.seconds / mm.seconds).toFixed(2).padStart(5)}   ${cpuRatio.padStart(9)}` : ''),
    );
  }
  return rows;
}
