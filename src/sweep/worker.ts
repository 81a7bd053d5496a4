/**
 * Entry of a `memsim compare` worker thread as an ES module: it imports the modules the sweep names
 * (extra allocators or contenders, which register themselves in the registry of `dist/`), then
 * serves jobs (worker-work.ts). A sweep that names none starts the bundled entry instead
 * (worker-start.ts), which loads sooner.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerStart } from './pool.js';
import { serveJobs } from './worker-work.js';

const start = workerData as WorkerStart;
for (const m of start.modules) await import(m);
if (parentPort) await serveJobs(parentPort);
