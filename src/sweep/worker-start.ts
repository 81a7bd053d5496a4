/**
 * The bundled entry of a `memsim compare` worker thread (dist/worker-bundle/start.cjs, see
 * scripts/bundle.mjs): it loads the thread's code (worker-work.ts and what it imports, bundled as
 * CommonJS beside it) through V8's code cache, as the reading thread does (trace/pipeline/reader-start.ts),
 * instead of some 80 ES modules through Node's module loader, which took about 190 ms of CPU and
 * 1,500 page faults more than an empty thread. A module that had no cache that fits gets one written
 * after the thread's first job, with the replay's functions compiled by then.
 */
import { createRequire } from 'node:module';
import type * as Threads from 'node:worker_threads';
import { CodeCachedBundle } from '../util/code-cache.js';
import type * as Work from './worker-work.js';

const nodeRequire = createRequire(import.meta.url);
const threads = nodeRequire('node:worker_threads') as typeof Threads;

/** The bundled module of worker-work.ts, beside this one. */
export const WORKER_WORK_MODULE = 'worker-work.cjs';

const bundle = CodeCachedBundle.beside(import.meta.url);
const { serveJobs } = bundle.load(WORKER_WORK_MODULE) as typeof Work;
if (threads.parentPort) void serveJobs(threads.parentPort, () => bundle.writeCache());
