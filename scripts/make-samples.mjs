#!/usr/bin/env node
// Regenerates the sample traces in traces/ with `memsim gen` (deterministic: same files every time).
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const memsim = (...args) => execFileSync(process.execPath, [join(root, 'bin', 'memsim.js'), ...args], { stdio: 'inherit' });

const samples = [
  ['training', '--steps', '20', '--format', 'json', '--capacity', '16GiB', '--output', 'traces/training.json'],
  ['inference', '--steps', '50', '--format', 'jsonl', '--output', 'traces/inference.jsonl'],
  ['fragmentation', '--steps', '30', '--format', 'csv', '--output', 'traces/fragmentation.csv'],
];
for (const [workload, ...rest] of samples) {
  memsim('gen', workload, '--seed', '1', ...rest.map((a) => (a.startsWith('traces/') ? join(root, a) : a)));
  console.log(`wrote ${rest[rest.length - 1]}`);
}
