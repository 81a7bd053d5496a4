// Load time of PyTorch memory snapshots: the shared real file (when present) and a synthetic
// snapshot of about 100 MB made with memsim's own pickle writer (written to a temporary file and
// removed afterwards). Run after `npm run build`:
//   node bench/snapshot-load.mjs [--mb 100] [--keep /tmp/big.pickle]
import { existsSync, rmSync, statSync, writeFileSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pickle } from '../dist/trace/pytorch/pickle-writer.js';
import { unpickle } from '../dist/trace/pytorch/pickle.js';
import { readTrace } from '../dist/trace/read.js';

const args = process.argv.slice(2);
const arg = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const targetMb = Number(arg('--mb', '100'));
const keep = arg('--keep', undefined);

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

const real = resolve(import.meta.dirname, '..', '..', 'shared', 'traces', 'pytorch', 'bcrafton_memory_snapshot.pickle');
if (existsSync(real)) {
  const [, ms] = time(() => readTrace(real));
  const [, ms2] = time(() => readTrace(real));
  const [, up] = time(() => unpickle(readFileSync(real)));
  console.log(`real ${real.split('/').pop()} (${(statSync(real).size / 1e6).toFixed(2)} MB): readTrace ${ms.toFixed(0)} ms (second run ${ms2.toFixed(0)} ms), unpickle alone ${up.toFixed(0)} ms`);
} else {
  console.log(`(shared real snapshot not found at ${real}; skipped)`);
}

const [snap, genMs] = time(() => syntheticSnapshot(targetMb * 1e6));
const [bytes, pickMs] = time(() => pickle(snap));
const dir = keep ? undefined : mkdtempSync(join(tmpdir(), 'memsim-bench-'));
const file = keep ?? join(dir, 'synthetic.pickle');
writeFileSync(file, bytes);
console.log(`synthetic snapshot: ${(bytes.length / 1e6).toFixed(1)} MB, ${snap.device_traces[0].length} trace entries (generated in ${genMs.toFixed(0)} ms, pickled in ${pickMs.toFixed(0)} ms)`);
try {
  const [, up] = time(() => unpickle(readFileSync(file)));
  const [trace, ms] = time(() => readTrace(file));
  console.log(`synthetic: unpickle ${up.toFixed(0)} ms; readTrace (read + unpickle + convert + reconstruct) ${ms.toFixed(0)} ms -> ${trace.length} events`);
} finally {
  if (dir) rmSync(dir, { recursive: true, force: true });
}
