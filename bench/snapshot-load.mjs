// Load time of PyTorch memory snapshots: the shared real files (when present) and a synthetic
// snapshot of about 100 MB made with memsim's own pickle writer (written to a temporary file and
// removed afterwards). Each file is read side by side (alternating, best of --repeat) by readTrace,
// which reads device_traces straight into columns, and by the plain route the reader falls back to
// (every value unpickled, then the entries converted): MB/s of each and their ratio. Each read is a
// fresh process, as a command is (a process that ran one route runs the other's shared code
// de-optimized). Then `memsim replay` of the synthetic snapshot end to end (start-up, reading,
// the caching allocator's replay from the recorded state, the text report), beside
// `memsim validate` of it (start-up and reading), each with its user CPU time and peak RSS.
// `npm run bench -- --sections snapshot` runs it; alone, after `npm run build`:
//   node bench/snapshot-load.mjs [--mb 100] [--repeat 3] [--keep /tmp/big.pickle (written once, then reused)]
//     [--file real.pickle ... (more real snapshots, e.g. one of scripts/record-large-snapshot.py)]
// In `npm run bench`, MEMSIM_BENCH_SNAPSHOTS (paths joined by ':') names such files.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pickle } from '../dist/trace/pytorch/pickle-writer.js';
import { unpickle } from '../dist/trace/pytorch/pickle.js';
import { DIRECT_MIN_BYTES, unpickleSnapshot } from '../dist/trace/pytorch/snapshot-unpickler.js';
import { importSnapshot } from '../dist/trace/pytorch/import.js';
import { parseSnapshot } from '../dist/trace/pytorch/snapshot.js';
import { openTrace, readOpenedTrace } from '../dist/trace/open.js';
import { readTrace } from '../dist/trace/read.js';

const memsim = resolve(import.meta.dirname, '..', 'bin', 'memsim.js');
const say = (s) => process.stdout.write(`${s}\n`);

/** A deterministic generator (xorshift). */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

/**
 * A snapshot shaped like a real one: a training loop allocating from 2 MiB small segments and
 * 20 MiB+ large segments with a bump-and-free pattern, each trace entry carrying its own frames list
 * built from a few thousand shared frame dicts (as CapturedTraceback symbolization produces).
 */
export function syntheticSnapshot(targetBytes) {
  const rand = rng(42);
  const frames = [];
  for (let i = 0; i < 3000; i++) {
    frames.push({ name: `fn_${i}`, filename: `/home/user/project/module_${i % 97}.py`, line: 10 + (i % 500) });
  }
  const stackOf = () => {
    const n = 20 + Math.floor(rand() * 40);
    const s = [];
    for (let k = 0; k < n; k++) s.push(frames[Math.floor(rand() * frames.length)]);
    return s;
  };
  const trace = [];
  const segments = [];
  let nextSeg = 0x7f0000000000;
  let t = 1_700_000_000_000_000;
  const live = [];
  // Each entry costs about 200 bytes in the pickle (frames dominate).
  const entries = Math.floor(targetBytes / 200);
  // One large segment per 64 allocations, bump allocation inside it.
  let seg = null;
  while (trace.length < entries) {
    if (!seg || seg.used + 4 * 1024 * 1024 > seg.size) {
      seg = { address: nextSeg, size: 256 * 1024 * 1024, used: 0, blocks: [] };
      nextSeg += seg.size;
      segments.push(seg);
      trace.push({ action: 'segment_alloc', addr: seg.address, size: seg.size, stream: 0, time_us: (t += 3), frames: stackOf() });
    }
    const size = (1 + Math.floor(rand() * 2048)) * 2048;
    const addr = seg.address + seg.used;
    seg.used += size;
    const fr = stackOf();
    trace.push({ action: 'alloc', addr, size, stream: 0, time_us: (t += 7), frames: fr, compile_context: 'N/A', user_metadata: '' });
    live.push({ addr, size, seg, fr });
    if (live.length > 32) {
      const b = live.shift();
      const ffr = stackOf();
      trace.push({ action: 'free_requested', addr: b.addr, size: b.size, stream: 0, time_us: (t += 5), frames: ffr, compile_context: 'N/A', user_metadata: '' });
      trace.push({ action: 'free_completed', addr: b.addr, size: b.size, stream: 0, time_us: (t += 1), frames: ffr, compile_context: 'N/A', user_metadata: '' });
      b.seg.blocks.push({ addr: b.addr, size: b.size, free: true });
    }
  }
  for (const b of live) b.seg.blocks.push({ addr: b.addr, size: b.size, free: false, fr: b.fr });
  const outSegments = segments.map((s) => {
    // Final layout: live blocks as they are, everything else one free tail or gap.
    const liveBlocks = s.blocks.filter((b) => !b.free).sort((x, y) => x.addr - y.addr);
    const blocks = [];
    let at = s.address;
    let allocated = 0;
    for (const b of liveBlocks) {
      if (b.addr > at) blocks.push({ address: at, size: b.addr - at, requested_size: 0, state: 'inactive', frames: [] });
      blocks.push({ address: b.addr, size: b.size, requested_size: b.size, state: 'active_allocated', frames: b.fr });
      allocated += b.size;
      at = b.addr + b.size;
    }
    if (at < s.address + s.size) blocks.push({ address: at, size: s.address + s.size - at, requested_size: 0, state: 'inactive', frames: [] });
    return {
      device: 0, address: s.address, total_size: s.size, allocated_size: allocated, active_size: allocated, requested_size: allocated,
      stream: 0, segment_type: 'large', segment_pool_id: [0, 0], is_expandable: false, frames: [], blocks,
    };
  });
  return { segments: outSegments, device_traces: [trace] };
}

function time(fn) {
  const t0 = performance.now();
  const r = fn();
  return [r, performance.now() - t0];
}

/** Wall and CPU milliseconds of `fn` (CPU time is the steadier figure on a shared machine). */
function timeCpu(fn) {
  const c0 = process.cpuUsage();
  const [r, ms] = time(fn);
  const c = process.cpuUsage(c0);
  return [r, ms, (c.user + c.system) / 1000];
}

/** readTrace with the snapshot reader's read replaced: `unpickled(bytes)` gives the root and any decoded traces. */
function readWith(file, unpickled) {
  const opened = openTrace(file);
  const reader = {
    ...opened.reader,
    read: (_src, builder, o) => {
      const { root, traces } = unpickled(readFileSync(file));
      return importSnapshot(parseSnapshot(root, file, traces), file, builder, o.device);
    },
  };
  return readOpenedTrace({ ...opened, reader });
}

/**
 * One read in this process, by `route`: `readTrace` (what commands do), `plain` (every value
 * unpickled, then parsed and converted: what readTrace falls back to, and reads small files with) or
 * `direct` (the direct reading whatever the size); prints wall ms, CPU ms, events.
 */
function readOnce(route, file) {
  const read = {
    readTrace: () => readTrace(file),
    plain: () => readWith(file, (buf) => ({ root: unpickle(buf, file) })),
    direct: () => readWith(file, (buf) => unpickleSnapshot(buf, file, 0)),
  }[route];
  const [t, ms, cpu] = timeCpu(read);
  console.log(JSON.stringify({ ms, cpu, events: t.length }));
}

function spawnRead(route, file) {
  const r = spawnSync(process.execPath, [import.meta.filename, '--one', route, file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`snapshot read failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

/**
 * readTrace beside the plain route on one file (and, for a file below DIRECT_MIN_BYTES, which
 * readTrace reads the plain way, beside the direct reading too), alternating, best of `repeat`,
 * each in a fresh process.
 */
function sideBySide(file, label, repeat) {
  const mb = statSync(file).size / 1e6;
  const small = statSync(file).size < DIRECT_MIN_BYTES;
  const decodable = unpickleSnapshot(readFileSync(file), file, 0).traces !== undefined;
  const routes = small && decodable ? ['readTrace', 'plain', 'direct'] : ['readTrace', 'plain'];
  const best = Object.fromEntries(routes.map((r) => [r, { ms: Infinity, cpu: Infinity }]));
  let events = 0;
  for (let i = 0; i < repeat; i++) {
    for (const r of routes) {
      const x = spawnRead(r, file);
      events = x.events;
      best[r].ms = Math.min(best[r].ms, x.ms);
      best[r].cpu = Math.min(best[r].cpu, x.cpu);
    }
  }
  const rate = (ms) => (mb / (ms / 1000)).toFixed(1);
  const how = !decodable ? ', no trace to read directly' : small ? ', read the plain way (under DIRECT_MIN_BYTES)' : '';
  const vs = (r) => `${(best[r].ms / best.readTrace.ms).toFixed(2)}x, CPU ${(best[r].cpu / best.readTrace.cpu).toFixed(2)}x`;
  say(
    `${label} (${mb.toFixed(2)} MB, ${events} events${how}): ` +
      `readTrace ${best.readTrace.ms.toFixed(0)} ms (${rate(best.readTrace.ms)} MB/s; CPU ${best.readTrace.cpu.toFixed(0)} ms, ${rate(best.readTrace.cpu)} MB/s), ` +
      `plain route ${best.plain.ms.toFixed(0)} ms (CPU ${best.plain.cpu.toFixed(0)} ms): ${vs('plain')}` +
      (best.direct ? `; direct reading ${best.direct.ms.toFixed(0)} ms (CPU ${best.direct.cpu.toFixed(0)} ms): ${vs('direct')}` : ''),
  );
  const row = { kind: 'snapshot-read', file: label, mb, events, readMs: best.readTrace.ms, readCpuMs: best.readTrace.cpu, plainMs: best.plain.ms, plainCpuMs: best.plain.cpu };
  if (best.direct) Object.assign(row, { directMs: best.direct.ms, directCpuMs: best.direct.cpu });
  return row;
}

/** One memsim command line in a fresh process (bench/rss.mjs): wall ms, user CPU ms, peak RSS MB. */
function measureCommand(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [resolve(import.meta.dirname, 'rss.mjs'), ...args], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t0;
  const rss = /maxRSS (\d+)/.exec(r.stderr ?? '');
  const cpu = /cpuUser (\d+)/.exec(r.stderr ?? '');
  if (r.status !== 0 || !rss || !cpu) throw new Error(`memsim ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return { ms, cpuMs: Number(cpu[1]) / 1000, rssMB: (Number(rss[1]) * 1024) / 1e6 };
}

/** `memsim replay` and `memsim validate` of a snapshot, interleaved, best of `repeat` (peak RSS: the largest). */
function endToEnd(file, repeat, label = 'the synthetic snapshot') {
  const mb = statSync(file).size / 1e6;
  const commands = { replay: ['replay', file, '--no-color'], validate: ['validate', file] };
  const best = {};
  for (let i = 0; i < repeat; i++) {
    for (const [k, args] of Object.entries(commands)) {
      const x = measureCommand(args);
      const b = (best[k] ??= { ms: Infinity, cpuMs: Infinity, rssMB: 0 });
      b.ms = Math.min(b.ms, x.ms);
      b.cpuMs = Math.min(b.cpuMs, x.cpuMs);
      b.rssMB = Math.max(b.rssMB, x.rssMB);
    }
  }
  const rate = (ms) => (mb / (ms / 1000)).toFixed(1);
  const show = (k) => `${best[k].ms.toFixed(0)} ms (user CPU ${best[k].cpuMs.toFixed(0)} ms, ${rate(best[k].cpuMs)} MB/s; peak RSS ${best[k].rssMB.toFixed(0)} MB)`;
  say(`memsim end to end on ${label} (best of ${repeat}): replay ${show('replay')}, validate ${show('validate')}`);
  return { kind: 'snapshot-e2e', file: label, mb, replay: best.replay, validate: best.validate };
}

/** More real snapshots to read, from MEMSIM_BENCH_SNAPSHOTS (paths joined by ':'). */
function envFiles() {
  return (process.env.MEMSIM_BENCH_SNAPSHOTS ?? '').split(':').filter((f) => f !== '');
}

/**
 * The snapshot section of `npm run bench`: the real snapshots and a synthetic one of `mb` MB read
 * by both routes, then the end-to-end commands; returns rows for --json.
 */
export function benchSnapshot({ repeat = 3, mb = 100, keep, files = envFiles() } = {}) {
  const rows = [];
  say(`\nPyTorch snapshots (readTrace beside the plain route, each read in a fresh process, best of ${repeat}; a ratio over 1: readTrace is faster)`);
  const realDir = resolve(import.meta.dirname, '..', '..', 'shared', 'traces', 'pytorch');
  if (existsSync(realDir)) {
    for (const f of readdirSync(realDir).sort()) rows.push(sideBySide(join(realDir, f), `real ${f}`, repeat));
  } else {
    say(`(shared real snapshots not found at ${realDir}; skipped)`);
  }
  for (const f of files) {
    if (!existsSync(f)) {
      say(`(snapshot ${f} not found; skipped)`);
      continue;
    }
    rows.push(sideBySide(f, `real ${basename(f)}`, repeat));
    rows.push(endToEnd(f, repeat, basename(f)));
  }
  const dir = keep ? undefined : mkdtempSync(join(tmpdir(), 'memsim-bench-'));
  const file = keep ?? join(dir, 'synthetic.pickle');
  try {
    if (keep && existsSync(keep)) {
      say(`synthetic snapshot: ${keep} as kept (${(statSync(keep).size / 1e6).toFixed(1)} MB)`);
    } else {
      // In a block: the generated structure is garbage before anything is timed.
      const [snap, genMs] = time(() => syntheticSnapshot(mb * 1e6));
      const [bytes, pickMs] = time(() => pickle(snap));
      writeFileSync(file, bytes);
      say(`synthetic snapshot: ${(bytes.length / 1e6).toFixed(1)} MB, ${snap.device_traces[0].length} trace entries (generated in ${genMs.toFixed(0)} ms, pickled in ${pickMs.toFixed(0)} ms)`);
    }
    rows.push(sideBySide(file, 'synthetic', repeat));
    rows.push(endToEnd(file, repeat));
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] === import.meta.filename) {
  const args = process.argv.slice(2);
  const arg = (name, def) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : def;
  };
  if (args[0] === '--one') {
    readOnce(args[1], args[2]);
    process.exit(0);
  }
  const files = args.flatMap((a, i) => (a === '--file' && args[i + 1] !== undefined ? [args[i + 1]] : []));
  benchSnapshot({ repeat: Math.max(1, Number(arg('--repeat', '3'))), mb: Number(arg('--mb', '100')), keep: arg('--keep', undefined), files: [...envFiles(), ...files] });
}
