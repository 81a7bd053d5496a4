/**
 * Entry of a `memsim compare` worker thread: it receives the shared trace once, then answers jobs
 * (one row's replay or capacity search) one at a time with plain data.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runJob, type CompareJob } from './jobs.js';
import type { WorkerInit, WorkerReply } from './pool.js';
import { createContender } from './contenders.js';
import { traceFromShared } from './shared-trace.js';
import { settingsOf } from './jobs.js';

const init = workerData as WorkerInit;
for (const m of init.modules) await import(m);
const trace = traceFromShared(init.trace);
const port = parentPort;

port?.on('message', (job: CompareJob) => {
  let reply: WorkerReply;
  try {
    reply = { ok: true, result: runJob(trace, job, (ref) => createContender(ref.name, ref.given, trace, settingsOf(ref))) };
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    reply = { ok: false, error: { name: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}) } };
  }
  port.postMessage(reply);
});
