// Load time of PyTorch memory snapshots: the shared real files (when present) and a synthetic
// snapshot of about 100 MB made with memsim's own pickle writer (written to a temporary file and
// removed afterwards). Each file is read side by side (alternating, best of --repeat) by readTrace,
// which reads device_traces straight into columns, and by the plain route the reader falls back to
// (every value unpickled, then the entries converted): MB/s of each and their ratio. Each read is a
// fresh process, as a command is (a process that ran one route runs the other's shared code
// de-optimized). Run after `npm run build`:
//   node bench/snapshot-load.mjs [--mb 100] [--repeat 3] [--keep /tmp/big.pickle]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pickle } from '../dist/trace/pytorch/pickle-writer.js';
import { unpickle } from '../dist/trace/pytorch/pickle.js';
import { unpickleSnapshot } from '../dist/trace/pytorch/snapshot-unpickler.js';
import { importSnapshot } from '../dist/trace/pytorch/import.js';
import { parseSnapshot } from '../dist/trace/pytorch/snapshot.js';
import { openTrace, readOpenedTrace } from '../dist/trace/open.js';
import { readTrace } from '../dist/trace/read.js';

const args = process.argv.slice(2);
const arg = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const targetMb = Number(arg('--mb', '100'));
const keep = arg('--keep', undefined);
const repeat = Math.max(1, Number(arg('--repeat', '3')));

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

/** The plain route: every value of the pickle unpickled, then parsed and converted (what readTrace falls back to). */
function readPlain(file) {
  const opened = openTrace(file);
  const reader = { ...opened.reader, read: (_src, builder, o) => importSnapshot(parseSnapshot(unpickle(readFileSync(file), file), file), file, builder, o.device) };
  return readOpenedTrace({ ...opened, reader });
}

/** One read in this process: `direct` (readTrace) or `plain`; prints wall ms, CPU ms, events. */
function readOnce(route, file) {
  const [t, ms, cpu] = timeCpu(() => (route === 'direct' ? readTrace(file) : readPlain(file)));
  console.log(JSON.stringify({ ms, cpu, events: t.length }));
}

function spawnRead(route, file) {
  const r = spawnSync(process.execPath, [import.meta.filename, '--one', route, file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`snapshot read failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

/** readTrace beside the plain route on one file, alternating, best of `repeat`, each in a fresh process. */
function sideBySide(file, label) {
  const mb = statSync(file).size / 1e6;
  const direct = unpickleSnapshot(readFileSync(file), file).traces !== undefined;
  const best = { a: Infinity, b: Infinity, ca: Infinity, cb: Infinity };
  let events = 0;
  for (let i = 0; i < repeat; i++) {
    const x = spawnRead('direct', file);
    events = x.events;
    best.a = Math.min(best.a, x.ms);
    best.ca = Math.min(best.ca, x.cpu);
    const y = spawnRead('plain', file);
    best.b = Math.min(best.b, y.ms);
    best.cb = Math.min(best.cb, y.cpu);
  }
  const rate = (ms) => (mb / (ms / 1000)).toFixed(1);
  console.log(
    `${label} (${mb.toFixed(2)} MB, ${events} events${direct ? '' : ', not read directly'}): ` +
      `readTrace ${best.a.toFixed(0)} ms (${rate(best.a)} MB/s; CPU ${best.ca.toFixed(0)} ms, ${rate(best.ca)} MB/s), ` +
      `plain route ${best.b.toFixed(0)} ms (${rate(best.b)} MB/s; CPU ${best.cb.toFixed(0)} ms): ${(best.b / best.a).toFixed(2)}x, CPU ${(best.cb / best.ca).toFixed(2)}x`,
  );
}

if (args[0] === '--one') {
  readOnce(args[1], args[2]);
  process.exit(0);
}

const realDir = resolve(import.meta.dirname, '..', '..', 'shared', 'traces', 'pytorch');
if (existsSync(realDir)) {
  for (const f of readdirSync(realDir).sort()) sideBySide(join(realDir, f), `real ${f}`);
} else {
  console.log(`(shared real snapshots not found at ${realDir}; skipped)`);
}

const dir = keep ? undefined : mkdtempSync(join(tmpdir(), 'memsim-bench-'));
const file = keep ?? join(dir, 'synthetic.pickle');
{
  // In a block: the generated structure is garbage before anything is timed.
  const [snap, genMs] = time(() => syntheticSnapshot(targetMb * 1e6));
  const [bytes, pickMs] = time(() => pickle(snap));
  writeFileSync(file, bytes);
  console.log(`synthetic snapshot: ${(bytes.length / 1e6).toFixed(1)} MB, ${snap.device_traces[0].length} trace entries (generated in ${genMs.toFixed(0)} ms, pickled in ${pickMs.toFixed(0)} ms)`);
}
try {
  sideBySide(file, 'synthetic');
} finally {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
