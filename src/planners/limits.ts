import { totalmem } from 'node:os';
import { MemsimError } from '../errors.js';

/**
 * What bounds a planning run besides its node budget: a wall-clock deadline shared by every strategy
 * of the run, and a memory budget. Strategies read the clock every few thousand steps through
 * {@link Clock}; their memory they declare up front (`PlannerDefinition.memoryBytes`).
 */
export interface PlanLimits {
  /** The time limit as given, in milliseconds (Infinity: none). */
  timeLimitMs: number;
  /** When the run must stop, on `now()`'s scale (Infinity: never). */
  deadlineMs: number;
  /** Bytes a strategy may use for its own structures (Infinity: no limit). */
  memoryBytes: number;
  now: () => number;
}

/** No deadline and no memory limit. */
export const NO_LIMITS: PlanLimits = { timeLimitMs: Infinity, deadlineMs: Infinity, memoryBytes: Infinity, now: () => 0 };

/** Limits starting now. */
export function startLimits(timeLimitMs: number, memoryBytes: number, now: () => number = () => performance.now()): PlanLimits {
  return { timeLimitMs, deadlineMs: Number.isFinite(timeLimitMs) ? now() + timeLimitMs : Infinity, memoryBytes, now };
}

/** The memory budget of a planning run when none is given: half of the machine's memory. */
export function defaultMemoryBudget(): number {
  return Math.floor(totalmem() / 2);
}

/** Bytes a strategy needs per record when its definition does not say (a few typed arrays). */
export const DEFAULT_BYTES_PER_RECORD = 64;

/** A strategy stopped by the time limit (`progress` says how far it got, e.g. "40% of the records"). */
export class OutOfTime extends Error {
  override name = 'OutOfTime';
  constructor(readonly progress: string) {
    super(`the time limit ran out after ${progress}`);
  }
}

/**
 * A strategy's structures would not fit the memory they must live in, whatever the budget: a
 * WebAssembly memory (32-bit addresses) holds at most {@link WASM_MEMORY_MAX_BYTES}.
 */
export class OutOfAddressSpace extends Error {
  override name = 'OutOfAddressSpace';
}

/** The largest WebAssembly memory: 65,536 pages of 64 KiB. */
export const WASM_MEMORY_MAX_BYTES = 65536 * 65536;

/**
 * A strategy could not run within the limits of the run: a usage error (exit 2) that names it, what
 * ran out and what to change.
 */
export class PlanLimitError extends MemsimError {
  override name = 'PlanLimitError';
  constructor(
    message: string,
    /** Which limit: the clock or the memory budget. */
    readonly limit: 'time' | 'memory',
    /** The message without the advice, for a note. */
    readonly what: string = message,
  ) {
    super(message);
  }
}

/**
 * The clock as a strategy's loop reads it: `tick()` is one step of work, and every 4,096 steps it
 * looks at the time and throws {@link OutOfTime} past the deadline.
 */
export class Clock {
  private steps = 0;

  constructor(
    private readonly limits: PlanLimits,
    /** Total steps, for the progress in the message. */
    private readonly total: number,
    private readonly unit = 'records',
  ) {}

  tick(): void {
    if ((++this.steps & 4095) === 0) this.check();
  }

  /** `count` steps at once (a loop that runs in chunks), looking at the time as {@link tick} would. */
  advance(count: number): void {
    const before = this.steps;
    this.steps += count;
    if (Math.floor(before / 4096) !== Math.floor(this.steps / 4096)) this.check();
  }

  /** Throws when the deadline has passed. */
  check(): void {
    if (this.limits.now() > this.limits.deadlineMs) {
      const pct = this.total > 0 ? Math.floor((100 * this.steps) / this.total) : 0;
      throw new OutOfTime(`${this.steps.toLocaleString('en-US')} of ${this.total.toLocaleString('en-US')} ${this.unit} (${pct}%)`);
    }
  }
}
