/**
 * What a `memsim compare` worker thread does once its modules are loaded: it says so, receives the
 * shared trace as its first message (it may start before the trace is read), then runs the jobs it
 * is offered and claims first (one row's replay or capacity search, see claims.ts), one at a time,
 * answering each with plain data. Its entries: worker.ts (an ES module, which imports the modules a
 * sweep names first) and worker-start.ts (the bundled entry, for sweeps that name none).
 */
import type { MessagePort } from 'node:worker_threads';
import { runJob, settingsOf } from './jobs.js';
import type { JobOffer, WorkerInit, WorkerMessage, WorkerReply } from './pool.js';
import { claim } from './claims.js';
import { loadAllAllocators } from '../allocators/registry.js';
import './contender-families.js';
import { createContender } from './contender.js';
import { traceFromShared } from './shared-trace.js';
import type { Trace } from '../trace/model.js';

/**
 * Loads every allocator of the registry, then serves the pool at the other end of `port` (messages
 * wait in the port until then); `afterJob` runs after each answer is posted.
 */
export async function serveJobs(port: MessagePort, afterJob?: () => void): Promise<void> {
  await loadAllAllocators();
  let trace: Trace | undefined;
  port.on('message', (message: WorkerInit | JobOffer) => {
    if (trace === undefined) {
      trace = traceFromShared((message as WorkerInit).trace);
      return;
    }
    const offer = message as JobOffer;
    if (!claim(offer)) return;
    const t = trace;
    let reply: WorkerReply;
    try {
      reply = { ok: true, result: runJob(t, offer.job, (ref) => createContender(ref.name, ref.given, t, settingsOf(ref))) };
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      reply = { ok: false, error: { name: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}) } };
    }
    // Before the answer, which may be the pool's last: the pool then stops the thread.
    afterJob?.();
    port.postMessage({ kind: 'reply', index: offer.index, reply } satisfies WorkerMessage);
  });
  port.postMessage({ kind: 'ready' } satisfies WorkerMessage);
}
