import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { packageFile } from '../util/package-root.js';
import { MemsimError, UsageError } from '../errors.js';
import type { Trace } from '../trace/model.js';
import { type CompareJob, type CompareJobResult, type ContenderRef, runJob } from './jobs.js';
import type { Contender } from './contender.js';
import { type SharedTrace, shareTrace } from './shared-trace.js';
import { claim, ClaimBoard, type ClaimSlot } from './claims.js';

/** Runs compare jobs: in worker threads, or in this thread. */
export interface JobRunner {
  readonly mode: 'workers' | 'in-thread';
  /** Threads that run jobs. */
  readonly threads: number;
  submit(job: CompareJob): Promise<CompareJobResult>;
  close(): Promise<void>;
}

/** What every worker is started with: modules to import before any job. */
export interface WorkerStart {
  /** Module URLs that register extra allocators or contenders (benchmarks, plugins). */
  modules: string[];
}

/** A worker's first message: the shared trace, which every job then replays. */
export interface WorkerInit {
  trace: SharedTrace;
}

/** A job offered to a worker: it runs the job if it claims it first (see claims.ts). */
export interface JobOffer extends ClaimSlot {
  index: number;
  job: CompareJob;
}

/** A job's answer from a worker: its result, or the error it threw, as plain data. */
export type WorkerReply = { ok: true; result: CompareJobResult } | { ok: false; error: { name: string; message: string; stack?: string } };

/** What a worker posts: that its modules are loaded, or the answer to the job it claimed. */
export type WorkerMessage = { kind: 'ready' } | { kind: 'reply'; index: number; reply: WorkerReply };

/**
 * The built worker entry, when there is one: `dist/sweep/worker.js` of the package, whether this
 * module runs from `dist/`, from the CLI bundle or from the TypeScript sources (tests run them
 * directly; a worker cannot load `.ts` files). Null when none is built: callers then run in this thread.
 */
export function defaultWorkerUrl(): URL | null {
  const candidate = packageFile('dist/sweep/worker.js');
  return existsSync(fileURLToPath(candidate)) ? candidate : null;
}

/** Runs every job in this thread, one after the other. */
export class InThreadRunner implements JobRunner {
  readonly mode = 'in-thread' as const;
  readonly threads = 1;
  constructor(
    private readonly trace: Trace,
    private readonly build: (ref: ContenderRef) => Contender,
  ) {}
  submit(job: CompareJob): Promise<CompareJobResult> {
    // One job per turn of the event loop, so that what waits on a job (progress, the next step of
    // a search) runs before the next job starts, as it does when workers answer.
    return new Promise((resolve, reject) => {
      setImmediate(() => {
        try {
          resolve(runJob(this.trace, job, this.build));
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
    });
  }
  async close(): Promise<void> {}
}

/** Turns an error that crossed from a worker back into the kind the CLI maps to an exit code. */
function revive(e: { name: string; message: string; stack?: string }): Error {
  if (e.name === 'UsageError') return new UsageError(e.message);
  if (e.name === 'MemsimError' || e.name === 'TraceError') return new MemsimError(e.message);
  const err = new Error(`in a compare worker: ${e.message}`);
  if (e.stack) err.stack = e.stack;
  return err;
}

interface Pending {
  job: CompareJob;
  resolve: (r: CompareJobResult) => void;
  reject: (e: Error) => void;
}

/**
 * The threads of a sweep sharing one trace: `threads - 1` worker threads and this one. Every job is
 * offered to all of them and runs on whichever claims it first, so that no thread idles while a job
 * waits (this thread takes its share between the other work of its event loop; the workers need no
 * answer from it). The workers start when the pool is made and load their modules while the trace
 * is still being read; jobs run once {@link share} has given the pool the trace.
 */
export class WorkerPool implements JobRunner {
  readonly mode = 'workers' as const;
  private readonly workers: Worker[] = [];
  /** Per worker: settles once its modules are loaded, or it failed or ended. */
  private readonly ready = new Map<Worker, Promise<void>>();
  private readonly pending = new Map<number, Pending>();
  private readonly board = new ClaimBoard();
  /** Jobs this thread may still claim, in the order offered. */
  private readonly offered: number[] = [];
  private jobs = 0;
  private turnScheduled = false;
  private failure: Error | undefined;
  private closing = false;
  private shared: { trace: Trace; build: (ref: ContenderRef) => Contender } | undefined;

  /** Starts `threads - 1` workers; this thread is the last of the pool's threads. */
  constructor(url: URL, threads: number, start: WorkerStart) {
    for (let k = 1; k < threads; k++) {
      const w = new Worker(url, { workerData: start });
      let loaded!: () => void;
      this.ready.set(w, new Promise<void>((resolve) => (loaded = resolve)));
      w.on('message', (m: WorkerMessage) => (m.kind === 'ready' ? loaded() : this.settle(m.index, m.reply)));
      w.on('error', (e) => {
        loaded();
        this.fail(e instanceof Error ? e : new Error(String(e)));
      });
      w.on('exit', (code) => {
        loaded();
        if (this.workers.includes(w) && !this.closing) this.fail(new Error(`a compare worker exited with code ${code}`));
      });
      this.workers.push(w);
    }
  }

  /**
   * Gives every thread the trace (once, before any job), and this thread the way to build a row's
   * contender; the pool then keeps the process alive.
   */
  share(trace: Trace, build: (ref: ContenderRef) => Contender): this {
    if (!this.shared) {
      const init: WorkerInit = { trace: shareTrace(trace) };
      for (const w of this.workers) {
        w.ref();
        w.postMessage(init);
      }
      this.shared = { trace, build };
    }
    return this;
  }

  /** Stops the workers beyond `threads` threads (those not needed after all), before any job. */
  keep(threads: number): this {
    if (this.shared) return this;
    for (const w of this.workers.splice(Math.max(0, threads - 1))) void w.terminate();
    return this;
  }

  /** Lets the process end while the pool waits for its trace (see {@link startWorkersEarly}). */
  unref(): this {
    for (const w of this.workers) w.unref();
    return this;
  }

  get threads(): number {
    return this.workers.length + 1;
  }

  submit(job: CompareJob): Promise<CompareJobResult> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new Error('a job submitted to a closed pool'));
    if (!this.shared) return Promise.reject(new Error('a job submitted before the pool was given its trace'));
    return new Promise((resolve, reject) => {
      const index = this.jobs++;
      this.pending.set(index, { job, resolve, reject });
      const offer: JobOffer = { index, job, ...this.board.at(index) };
      for (const w of this.workers) w.postMessage(offer);
      this.offered.push(index);
      this.scheduleTurn();
    });
  }

  /** This thread's next turn: it runs one job that no worker claimed, then lets the event loop go on. */
  private scheduleTurn(): void {
    if (this.turnScheduled || this.offered.length === 0) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      this.runOne();
      this.scheduleTurn();
    });
  }

  private runOne(): void {
    const shared = this.shared;
    if (!shared) return;
    while (this.offered.length > 0) {
      const index = this.offered.shift() as number;
      const p = this.pending.get(index);
      if (!p || !claim(this.board.at(index))) continue;
      this.pending.delete(index);
      try {
        p.resolve(runJob(shared.trace, p.job, shared.build));
      } catch (e) {
        p.reject(e instanceof Error ? e : new Error(String(e)));
      }
      return;
    }
  }

  private settle(index: number, reply: WorkerReply): void {
    const p = this.pending.get(index);
    if (!p) return;
    this.pending.delete(index);
    if (reply.ok) p.resolve(reply.result);
    else p.reject(revive(reply.error));
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
    this.offered.length = 0;
  }

  /**
   * Stops the workers: they wind down meanwhile (tens of milliseconds, which the report's rendering
   * need not wait for). A pool that ran jobs first waits until every worker has loaded its modules
   * (or failed to), and rejects with a worker's failure: one that failed while this thread ran
   * every job is still an error.
   */
  async close(): Promise<void> {
    this.closing = true;
    if (this.shared) await Promise.all(this.workers.map((w) => this.ready.get(w)));
    for (const w of this.workers) void w.terminate();
    if (this.shared && this.failure) throw this.failure;
  }
}

/** Without an explicit `jobs`, traces shorter than this run in this thread. */
export const AUTO_WORKERS_MIN_EVENTS = 50_000;

/**
 * The most threads a sweep runs per core, whatever `--jobs` asks: past a few a core, more threads
 * add only memory (each worker holds a heap of its own, some tens of MB).
 */
export const MAX_THREADS_PER_CORE = 4;

/** The threads a sweep runs for `jobs` (default: one a core), at most {@link MAX_THREADS_PER_CORE} a core. */
export function threadsFor(jobs: number | undefined): number {
  const cores = availableParallelism();
  return jobs === undefined ? cores : Math.min(jobs, cores * MAX_THREADS_PER_CORE);
}

/** How many threads a sweep may use, and where its worker entry is. */
export interface RunnerOptions {
  /**
   * Threads (default: the available cores, or 1 for traces under {@link AUTO_WORKERS_MIN_EVENTS}
   * events; at most {@link MAX_THREADS_PER_CORE} a core); 1 runs everything in this thread.
   */
  jobs?: number;
  /** The worker entry; default the built one next to this module; null: in this thread. */
  workerUrl?: URL | null;
  /** Modules each worker imports first (to register extra allocators). */
  workerModules?: readonly string[];
  /** Workers started before the trace was read ({@link startWorkersEarly}): used if they fit, else stopped. */
  early?: WorkerPool;
}

/**
 * The bundled worker entry (`dist/worker-bundle/start.cjs`, see worker-start.ts), when it is built:
 * it starts sooner, but imports no module of a sweep's `workerModules` (its registry is its own).
 */
function bundledWorkerUrl(): URL | null {
  const candidate = packageFile('dist/worker-bundle/start.cjs');
  return existsSync(fileURLToPath(candidate)) ? candidate : null;
}

/** The worker entry of these options, or null when there is none to run. */
function workerUrlOf(o: RunnerOptions): URL | null {
  if (o.workerUrl !== undefined) return o.workerUrl;
  return ((o.workerModules ?? []).length === 0 ? bundledWorkerUrl() : null) ?? defaultWorkerUrl();
}

/**
 * Starts a sweep's worker threads before its trace is read, so that they load their modules (about
 * 100 ms) while the trace is parsed instead of after: {@link openRunner} takes them when it runs the
 * sweep in that many threads or fewer, and stops them otherwise. Until then they keep no process
 * alive (an error in the trace ends the command as usual). Undefined when the sweep would use one thread.
 */
export function startWorkersEarly(o: RunnerOptions): WorkerPool | undefined {
  const threads = threadsFor(o.jobs);
  const url = threads > 1 ? workerUrlOf(o) : null;
  if (url === null) return undefined;
  try {
    return new WorkerPool(url, threads, { modules: [...(o.workerModules ?? [])] }).unref();
  } catch {
    return undefined;
  }
}

/**
 * The runner of a sweep of `units` jobs: a worker pool over the shared trace, or this thread (and
 * why, when more threads were asked). `inThread` forces this thread, with its reason.
 */
export function openRunner(trace: Trace, o: RunnerOptions, units: number, build: (ref: ContenderRef) => Contender, inThread?: string): { runner: JobRunner; reason?: string } {
  const threads = Math.min(threadsFor(o.jobs), units);
  const here = (reason?: string) => {
    void o.early?.close();
    return { runner: new InThreadRunner(trace, build), ...(reason ? { reason } : {}) };
  };
  if (threads <= 1) return here();
  // Starting a worker and loading the modules takes about 100 ms: more than small traces take to
  // replay. An explicit `jobs` still gets its workers.
  if (o.jobs === undefined && trace.length < AUTO_WORKERS_MIN_EVENTS) return here(`a small trace (under ${AUTO_WORKERS_MIN_EVENTS} events)`);
  if (inThread !== undefined) return here(inThread);
  if (o.early && o.early.threads >= threads) return { runner: o.early.keep(threads).share(trace, build) };
  void o.early?.close();
  const url = workerUrlOf(o);
  if (url === null) return here('no built worker entry (dist/sweep/worker.js)');
  try {
    return { runner: new WorkerPool(url, threads, { modules: [...(o.workerModules ?? [])] }).share(trace, build) };
  } catch (e) {
    return here(`workers could not start: ${(e as Error).message}`);
  }
}
