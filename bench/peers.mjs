// memsim side by side with its peers, end to end as a user times them: TensorFlow's own BFC
// allocator in C++ (../shared/peers/tf-bfc) and DynaPipe's PyTorch caching-allocator simulator
// (../shared/peers/dynapipe), on the peers' own synthetic training traces. Each pair runs
// interleaved, best of `repeat` runs; the machine is shared, so the ratios are the figures, not the
// seconds. A missing peer (no ../shared/peers, no g++, no Python with sortedcontainers) is skipped
// with a message. Also checks that memsim's bfc places every allocation where TensorFlow's does.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, createReadStream, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const peers = join(root, '..', 'shared', 'peers');
const cache = join(root, '.bench-cache', 'peers');
const memsim = join(root, 'bin', 'memsim.js');
/** memsim's equivalent of the harness's defaults: allow_growth on, no garbage collection, 64 GiB. */
export const BFC_AS_HARNESS = ['-a', 'bfc', '-o', 'allow_growth=true,garbage_collection=false,memory_limit=64GiB'];

const say = (s) => process.stdout.write(`${s}\n`);

/** The peers' training trace of about `events` events (10^6 or 10^7), generated once. */
export function peerTrace(events) {
  const steps = Math.round((events / 1_000_000) * 2500);
  const path = join(cache, `train-${events}.csv`);
  if (!existsSync(path)) {
    mkdirSync(cache, { recursive: true });
    say(`generating ${path} (gen_train_trace.py --steps ${steps}) …`);
    execFileSync('python3', [join(peers, 'gen_train_trace.py'), '-o', path, '--steps', String(steps)], { stdio: 'ignore' });
  }
  return path;
}

/** TensorFlow's harness, built in the cache from a copy of the peer (the shared folder stays untouched). */
export function tfHarness() {
  if (!existsSync(join(peers, 'tf-bfc', 'build.sh'))) return { skip: `no TensorFlow peer at ${join(peers, 'tf-bfc')}` };
  const dir = join(cache, 'tf-bfc');
  const bin = join(dir, 'bfc_harness');
  if (!existsSync(bin)) {
    rmSync(dir, { recursive: true, force: true });
    cpSync(join(peers, 'tf-bfc'), dir, { recursive: true });
    const r = spawnSync('sh', [join(dir, 'build.sh')], { encoding: 'utf8' });
    if (r.status !== 0) return { skip: `the TensorFlow harness did not build (sh tf-bfc/build.sh: ${(r.stderr || r.error?.message || '').trim().split('\n')[0]})` };
  }
  return { bin };
}

/** A Python that has sortedcontainers (DynaPipe's one dependency). */
export function pythonWithSortedContainers() {
  for (const py of ['python3', '/usr/bin/python3']) {
    const r = spawnSync(py, ['-c', 'import sortedcontainers'], { encoding: 'utf8' });
    if (r.status === 0) return py;
  }
  return null;
}

/**
 * The environment of the timed runs: this one without NODE_EXTRA_CA_CERTS, which users seldom set and
 * which makes every `node` start load a certificate file (40-70 ms on the host of sittings H-J, the
 * same for `node -e 0` as for memsim, so it inflates every figure and the noise but no difference).
 */
export const TIMED_ENV = (() => {
  const env = { ...process.env };
  delete env['NODE_EXTRA_CA_CERTS'];
  return env;
})();

/** A line saying that the timed runs leave out NODE_EXTRA_CA_CERTS, when it is set here; else ''. */
export function timedEnvNote() {
  return process.env['NODE_EXTRA_CA_CERTS'] ? '  (timed runs without NODE_EXTRA_CA_CERTS, which is set here: users seldom have it, and it adds to every node start)' : '';
}

/**
 * What this host gives: its cores, and what fresh memory costs here, measured in a child process that
 * writes one byte in each 4 KiB page of 64 MiB it has not touched (each such write is a page fault).
 * On a VM that hands pages to the guest lazily a fault costs some 10-20 µs, on most machines well under
 * 1 µs: reading a trace into columns, a thread's heap and V8's compiler all take fresh memory, so the
 * figure says how far times from one host carry to another.
 */
export function hostNote() {
  const script = `const n = 64 << 20; const b = new Uint8Array(new SharedArrayBuffer(n)); const t = process.hrtime.bigint();
for (let i = 0; i < n; i += 4096) b[i] = 1; process.stdout.write(String(Number(process.hrtime.bigint() - t) / 1e3 / (n / 4096)));`;
  const times = [0, 1, 2].map(() => Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: TIMED_ENV })));
  const us = Math.min(...times);
  return `host: ${availableParallelism()} cores; fresh memory ${us.toFixed(2)} µs per 4 KiB page first touched (${((4096 / us) * 1e6 / 2 ** 20).toFixed(0)} MiB/s), best of 3`;
}

/** Wall time of one run, in seconds (output discarded), in {@link TIMED_ENV}. */
function timeOnce(cmd, args, options = {}) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30, env: TIMED_ENV, ...options });
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return { seconds: s, stdout: r.stdout };
}

/** Best and median of `repeat` interleaved runs of each command. */
export function sideBySide(commands, repeat) {
  const times = commands.map(() => []);
  for (let k = 0; k < repeat; k++) commands.forEach(([cmd, args], i) => times[i].push(timeOnce(cmd, args).seconds));
  return times.map((ts) => {
    const s = [...ts].sort((a, b) => a - b);
    return { best: s[0], median: s[s.length >> 1], spread: s[s.length - 1] / s[0] };
  });
}

/** Lines of a command's standard output, streamed. */
async function* linesOf(cmd, args) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  yield* createInterface({ input: child.stdout });
}

/**
 * Offsets from the first allocation, compared allocation by allocation: the harness prints
 * `event,id,offset,sizeBytes`, memsim's --placements `event,id,address,sizeBytes,allocatedBytes`.
 */
async function placementsAgree(bin, trace) {
  const file = join(cache, 'memsim-placements.csv');
  execFileSync(process.execPath, [memsim, 'replay', trace, ...BFC_AS_HARNESS, '--placements', file, '--format', 'json'], { stdio: 'ignore' });
  const ours = createInterface({ input: createReadStream(file) })[Symbol.asyncIterator]();
  await ours.next(); // header
  let base = null;
  let compared = 0;
  let differ = 0;
  let first = '';
  for await (const line of linesOf(bin, [trace])) {
    const [event, id, offset] = line.split(',');
    if (!/^\d+$/.test(event ?? '')) continue; // the header and the # stat lines
    const mine = await ours.next();
    if (mine.done) {
      differ++;
      break;
    }
    const [mEvent, mId, mAddress] = mine.value.split(',');
    const address = Number.parseInt(mAddress, 16);
    base ??= address - Number(offset);
    compared++;
    if (mEvent !== event || mId !== id || address - base !== Number(offset)) {
      differ++;
      if (!first) first = `event ${event} (id ${id}): TensorFlow offset ${offset}, memsim ${address - base}`;
    }
  }
  if (!(await ours.next()).done) differ++;
  rmSync(file, { force: true });
  return { compared, differ, first };
}

const ratio = (x) => `${x.toFixed(2)}×`;
const secs = (x) => `${x.toFixed(3)} s`;

/** Runs the peer comparisons; returns rows for --json. */
export async function benchPeers({ sizes = [1e6, 1e7], repeat = 5 } = {}) {
  const rows = [];
  say('\nside by side with the peers (end to end, interleaved, best of ' + repeat + '; ratios are the figures)');
  if (timedEnvNote()) say(timedEnvNote());
  if (!existsSync(join(peers, 'gen_train_trace.py'))) {
    say(`  skipped: no peers at ${peers}`);
    return rows;
  }
  const tf = tfHarness();
  const py = pythonWithSortedContainers();
  for (const n of sizes) {
    const trace = peerTrace(n);
    const mb = statSync(trace).size / 1e6;
    if (tf.bin) {
      const [t, m] = sideBySide(
        [
          [tf.bin, [trace, '--quiet']],
          [process.execPath, [memsim, 'replay', trace, ...BFC_AS_HARNESS]],
        ],
        repeat,
      );
      rows.push({ kind: 'peer-bfc', events: n, tfSeconds: t.best, memsimSeconds: m.best, ratio: m.best / t.best });
      say(`  bfc ${n.toExponential(0)} events (${mb.toFixed(0)} MB CSV): TensorFlow ${secs(t.best)}, memsim ${secs(m.best)}: memsim takes ${ratio(m.best / t.best)} TensorFlow's time (medians ${secs(t.median)} / ${secs(m.median)})`);
    } else {
      say(`  bfc: skipped (${tf.skip})`);
    }
    if (py) {
      const [d, m] = sideBySide(
        [
          [py, [join(peers, 'dynapipe', 'drive.py'), trace, '--upstream']],
          [process.execPath, [memsim, 'replay', trace, '-a', 'caching']],
        ],
        n >= 1e7 ? Math.min(repeat, 2) : repeat,
      );
      rows.push({ kind: 'peer-caching', events: n, dynapipeSeconds: d.best, memsimSeconds: m.best, speedup: d.best / m.best });
      say(`  caching ${n.toExponential(0)} events: DynaPipe ${secs(d.best)}, memsim ${secs(m.best)}: memsim ${ratio(d.best / m.best)} faster (medians ${secs(d.median)} / ${secs(m.median)})`);
    } else {
      say('  caching: skipped (no Python with sortedcontainers: apt-get install python3-sortedcontainers)');
    }
  }
  if (tf.bin) {
    const trace = peerTrace(sizes[0]);
    const a = await placementsAgree(tf.bin, trace);
    rows.push({ kind: 'peer-placements', events: sizes[0], ...a });
    say(
      a.differ === 0
        ? `  placements: all ${a.compared.toLocaleString('en-US')} allocations at TensorFlow's offsets (from the first allocation)`
        : `  placements: ${a.differ} of ${a.compared} differ from TensorFlow's; first: ${a.first}`,
    );
  }
  return rows;
}
