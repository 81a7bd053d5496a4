/**
 * Entry of a `memsim compare` worker thread: it loads its modules, receives the shared trace as its
 * first message (it may start before the trace is read), then answers jobs
 * (one row's replay or capacity search) one at a time with plain data.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runJob, type CompareJob } from './jobs.js';
import type { WorkerInit, WorkerReply, WorkerStart } from './pool.js';
import { createContender } from './contenders.js';
import { traceFromShared } from './shared-trace.js';
import { settingsOf } from './jobs.js';
import type { Trace } from '../trace/model.js';

const start = workerData as WorkerStart;
for (const m of start.modules) await import(m);
const port = parentPort;
let trace: Trace | undefined;

port?.on('message', (message: WorkerInit | CompareJob) => {
  if (trace === undefined) {
    trace = traceFromShared((message as WorkerInit).trace);
    return;
  }
  const t = trace;
  const job = message as CompareJob;
  let reply: WorkerReply;
  try {
    reply = { ok: true, result: runJob(t, job, (ref) => createContender(ref.name, ref.given, t, settingsOf(ref))) };
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    reply = { ok: false, error: { name: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}) } };
  }
  port.postMessage(reply);
});
