// memsim reading the peers' traces from their binary form (`memsim convert x.csv x.mst`) beside the
// CSV form and beside the peers, end to end as a user times it. TensorFlow's harness and DynaPipe
// read CSV only: the rows say "memsim from .mst against the peer from CSV", next to the CSV-against-CSV
// row of the same run. Runs are interleaved, best of `repeat`; ratios are the figures, not the seconds.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { peakRss } from './endtoend.mjs';
import { BFC_AS_HARNESS, peerTrace, pythonWithSortedContainers, sideBySide, tfHarness } from './peers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const peers = join(root, '..', 'shared', 'peers');
const memsim = join(root, 'bin', 'memsim.js');
const node = process.execPath;
const say = (s) => process.stdout.write(`${s}\n`);
const secs = (x) => `${x.toFixed(3)} s`;
const ratio = (x) => `${x.toFixed(2)}×`;

/** The binary form of a CSV trace, written once beside it (again when the CSV is newer). */
export function binaryOf(csv) {
  const mst = csv.replace(/\.csv$/, '.v1.mst');
  if (!existsSync(mst) || statSync(mst).mtimeMs < statSync(csv).mtimeMs) {
    say(`writing ${mst} (memsim convert) …`);
    execFileSync(node, [memsim, 'convert', csv, mst], { stdio: 'inherit' });
  }
  return mst;
}

/** Runs the comparisons; returns rows for --json. */
export function benchBinary({ sizes = [1e6, 1e7], repeat = 5 } = {}) {
  const rows = [];
  say(`\nbinary traces (.mst) beside CSV and the peers (end to end, interleaved, best of ${repeat}; the peers read CSV)`);
  if (!existsSync(join(peers, 'gen_train_trace.py'))) {
    say(`  skipped: no peers at ${peers}`);
    return rows;
  }
  const tf = tfHarness();
  const py = pythonWithSortedContainers();
  for (const n of sizes) {
    const csv = peerTrace(n);
    const mst = binaryOf(csv);
    const size = `${(statSync(csv).size / 1e6).toFixed(0)} MB CSV, ${(statSync(mst).size / 1e6).toFixed(0)} MB .mst`;
    if (tf.bin) {
      const [t, c, b] = sideBySide(
        [
          [tf.bin, [csv, '--quiet']],
          [node, [memsim, 'replay', csv, ...BFC_AS_HARNESS]],
          [node, [memsim, 'replay', mst, ...BFC_AS_HARNESS]],
        ],
        repeat,
      );
      rows.push({ kind: 'binary-bfc', events: n, tfSeconds: t.best, memsimCsvSeconds: c.best, memsimMstSeconds: b.best, csvRatio: c.best / t.best, mstRatio: b.best / t.best });
      say(
        `  bfc ${n.toExponential(0)} events (${size}): TensorFlow from CSV ${secs(t.best)}; memsim from CSV ${secs(c.best)} (${ratio(c.best / t.best)} TensorFlow's time), ` +
          `from .mst ${secs(b.best)} (${ratio(b.best / t.best)}; ${ratio(c.best / b.best)} faster than from CSV)`,
      );
    } else {
      say(`  bfc: skipped (${tf.skip})`);
    }
    if (py) {
      const [d, c, b] = sideBySide(
        [
          [py, [join(peers, 'dynapipe', 'drive.py'), csv, '--upstream']],
          [node, [memsim, 'replay', csv, '-a', 'caching']],
          [node, [memsim, 'replay', mst, '-a', 'caching']],
        ],
        n >= 1e7 ? Math.min(repeat, 2) : repeat,
      );
      rows.push({ kind: 'binary-caching', events: n, dynapipeSeconds: d.best, memsimCsvSeconds: c.best, memsimMstSeconds: b.best, csvSpeedup: d.best / c.best, mstSpeedup: d.best / b.best });
      say(
        `  caching ${n.toExponential(0)} events: DynaPipe from CSV ${secs(d.best)}; memsim from CSV ${secs(c.best)} (${ratio(d.best / c.best)} faster), ` +
          `from .mst ${secs(b.best)} (${ratio(d.best / b.best)} faster)`,
      );
    } else {
      say('  caching: skipped (no Python with sortedcontainers: apt-get install python3-sortedcontainers)');
    }
    const [vc, vb] = sideBySide(
      [
        [node, [memsim, 'validate', csv]],
        [node, [memsim, 'validate', mst]],
      ],
      repeat,
    );
    rows.push({ kind: 'binary-validate', events: n, csvSeconds: vc.best, mstSeconds: vb.best });
    say(`  validate ${n.toExponential(0)} events: CSV ${secs(vc.best)}, .mst (CRC-32 of every section) ${secs(vb.best)}`);
  }
  const big = peerTrace(sizes[sizes.length - 1]);
  const mst = binaryOf(big);
  const events = JSON.parse(peakRss(['validate', big, '--format', 'json']).stdout).trace.events;
  const csvRss = peakRss(['replay', big, ...BFC_AS_HARNESS]).bytes;
  const mstRss = peakRss(['replay', mst, ...BFC_AS_HARNESS]).bytes;
  const validateRss = peakRss(['validate', mst]).bytes;
  rows.push({ kind: 'binary-memory', events, csvReplayRssBytes: csvRss, mstReplayRssBytes: mstRss, mstValidateRssBytes: validateRss });
  const mib = (b) => `${(b / 2 ** 20).toFixed(0)} MiB`;
  say(
    `  peak RSS, bfc replay of ${events.toLocaleString('en-US')} events: from CSV ${mib(csvRss)} (${(csvRss / events).toFixed(1)} bytes/event), ` +
      `from .mst ${mib(mstRss)} (${(mstRss / events).toFixed(1)} bytes/event); validate of the .mst ${mib(validateRss)}`,
  );
  return rows;
}
