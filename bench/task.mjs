// One benchmark measurement in a fresh process (so that RSS figures are its own).
import { performance } from 'node:perf_hooks';
import { readTrace, replay, listAllocators } from '../dist/index.js';
import { benchOptions } from './options.mjs';

const task = JSON.parse(process.argv[2]);
const rssMiB = () => process.resourceUsage().maxRSS / 1024;

function traceMiB(t) {
  let bytes = 0;
  for (const k of ['op', 'alloc', 'size', 'step', 'stream', 'tag', 'time', 'line', 'allocEvent', 'freeEvent']) if (t[k]) bytes += t[k].byteLength;
  bytes += t.ids.byteLength;
  return bytes / 2 ** 20;
}

globalThis.gc?.();
const t0 = performance.now();
const trace = readTrace(task.path);
const parseSeconds = (performance.now() - t0) / 1000;
globalThis.gc?.();

if (task.kind === 'parse') {
  process.stdout.write(JSON.stringify({ events: trace.length, seconds: parseSeconds, traceMiB: traceMiB(trace), heapMiB: process.memoryUsage().heapUsed / 2 ** 20, maxRssMiB: rssMiB() }));
} else {
  const names = task.allocators === 'all' ? listAllocators().filter((d) => !d.needsRecordedHistory).map((d) => d.name) : task.allocators.split(',');
  const replays = [];
  for (const name of names) {
    const options = task.defaults ? {} : (benchOptions[name] ?? {});
    const r0 = performance.now();
    const { report } = replay(trace, { allocator: name, options, onOom: 'continue' });
    const seconds = (performance.now() - r0) / 1000;
    replays.push({ allocator: name, seconds, peakReservedBytes: report.summary.peakReservedBytes, oomCount: report.summary.oomCount });
    globalThis.gc?.();
  }
  process.stdout.write(JSON.stringify({ events: trace.length, replays, maxRssMiB: rssMiB() }));
}
