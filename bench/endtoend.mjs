// memsim end to end, as a user times it: start-up against `node -e 0`, --placements against the same
// replay without it, `compare` against the replays it runs, and peak memory (RSS) per event of a replay
// and of `validate`. Runs are interleaved, best of `repeat`; see bench/peers.mjs for the peers.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BFC_AS_HARNESS, peerTrace, sideBySide, timedEnvNote } from './peers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const memsim = join(root, 'bin', 'memsim.js');
const node = process.execPath;
const say = (s) => process.stdout.write(`${s}\n`);
const ms = (s) => `${(s * 1000).toFixed(1)} ms`;
const ratio = (x) => `${x.toFixed(2)}×`;

/** Peak RSS (bytes) of a memsim command line, run in a process of its own, and its output. */
export function peakRss(args) {
  const r = spawnSync(node, [join(root, 'bench', 'rss.mjs'), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
  const m = /maxRSS (\d+)/.exec(r.stderr ?? '');
  if (!m) throw new Error(`no RSS from memsim ${args.join(' ')}: ${r.stderr}`);
  return { bytes: Number(m[1]) * 1024, stdout: r.stdout };
}

function tenEventTrace(dir) {
  const p = join(dir, 'ten.csv');
  const rows = ['op,id,size,step'];
  for (let k = 0; k < 5; k++) rows.push(`alloc,t${k},${(k + 1) * 1000},0`);
  for (let k = 0; k < 5; k++) rows.push(`free,t${k},,1`);
  writeFileSync(p, rows.join('\n') + '\n');
  return p;
}

/** Start-up, --placements, compare and memory; returns rows for --json. */
export function benchEndToEnd({ repeat = 5, huge = false } = {}) {
  const rows = [];
  const dir = mkdtempSync(join(tmpdir(), 'memsim-bench-'));
  try {
    say(`\nstart-up (interleaved, best of ${repeat * 3})`);
    if (timedEnvNote()) say(timedEnvNote());
    const ten = tenEventTrace(dir);
    const [base, version, replay] = sideBySide(
      [
        [node, ['-e', '0']],
        [node, [memsim, '--version']],
        [node, [memsim, 'replay', ten]],
      ],
      repeat * 3,
    );
    rows.push({ kind: 'startup', nodeSeconds: base.best, versionSeconds: version.best, replaySeconds: replay.best });
    say(`  node -e 0 ${ms(base.best)}; memsim --version ${ms(version.best)} (+${ms(version.best - base.best)}); replay of a 10-event trace ${ms(replay.best)} (+${ms(replay.best - base.best)})`);

    const trace = peerTrace(1e6);
    say(`\n--placements and compare on ${trace.split('/').pop()} (best of ${repeat})`);
    const out = join(dir, 'placements.csv');
    const [plain, placed] = sideBySide(
      [
        [node, [memsim, 'replay', trace, ...BFC_AS_HARNESS]],
        [node, [memsim, 'replay', trace, ...BFC_AS_HARNESS, '--placements', out]],
      ],
      repeat,
    );
    rows.push({ kind: 'placements', replaySeconds: plain.best, withPlacementsSeconds: placed.best, ratio: placed.best / plain.best });
    say(`  replay bfc ${ms(plain.best)}; with --placements ${ms(placed.best)}: ${ratio(placed.best / plain.best)}`);

    const compareJson = JSON.parse(execFileSync(node, [memsim, 'compare', trace, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 28 }));
    const names = compareJson.allocators.map((a) => a.name);
    // Planners (plan:*) are offline bounds, not simulators: the replays are the online allocators.
    const online = names.filter((name) => !name.startsWith('plan:'));
    const [cmp] = sideBySide([[node, [memsim, 'compare', trace, '--format', 'json']]], repeat);
    const sims = JSON.parse(
      execFileSync(node, ['--expose-gc', join(root, 'bench', 'task.mjs'), JSON.stringify({ kind: 'replay', path: trace, allocators: online.join(','), defaults: true })], { encoding: 'utf8', maxBuffer: 1 << 26 }),
    );
    const simSeconds = sims.replays.reduce((s, r) => s + r.seconds, 0);
    rows.push({ kind: 'compare', allocators: names, compareSeconds: cmp.best, simulatorSeconds: simSeconds, ratio: cmp.best / simSeconds });
    say(`  compare (default set: ${names.join(', ')}) ${ms(cmp.best)}; its online allocators' replays alone, one after the other, trace in memory: ${ms(simSeconds)}: ${ratio(cmp.best / simSeconds)}`);

    say('\npeak memory (RSS of the whole process)');
    for (const n of huge ? [1e7, 1e8] : [1e7]) {
      const t = peerTrace(n);
      const v = peakRss(['validate', t, '--format', 'json']);
      const events = JSON.parse(v.stdout).trace.events;
      const rss = peakRss(['replay', t, ...BFC_AS_HARNESS]).bytes;
      const vrss = v.bytes;
      rows.push({ kind: 'memory', events, replayRssBytes: rss, validateRssBytes: vrss });
      say(`  ${n.toExponential(0)} events: replay ${(rss / 2 ** 20).toFixed(0)} MiB (${(rss / events).toFixed(1)} bytes/event); validate ${(vrss / 2 ** 20).toFixed(0)} MiB`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
