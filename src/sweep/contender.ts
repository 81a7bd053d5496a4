import { UsageError } from '../errors.js';
import type { Trace } from '../trace/model.js';
import { formatConfiguration, parseConfiguration, withMoreOptions } from '../util/configuration.js';
import type { OnOom, OomRecord } from '../sim/replay.js';
import type { ReplaySummary } from '../sim/report.js';
import type { StartChoice, StartMode } from '../sim/start.js';
import type { AttributionOptions } from '../attribution/index.js';
import type { AttributionSection } from '../sim/holders.js';

/**
 * What a row of `memsim compare` is: an online allocator replayed event by event, an offline planner
 * that sees the whole trace (`plan:<strategy>`), or the recorded history of a real allocator.
 */
export type ContenderKind = 'allocator' | 'planner' | 'recorded';

/** The outcome of one contender on the whole trace at one capacity. */
export interface ContenderRun {
  /** False when the run stopped at an OOM. */
  completed: boolean;
  /** The figures of `memsim.replay/1`'s summary. */
  summary: ReplaySummary;
  /** The first failed request (kind and event), or null. */
  firstOom: OomRecord | null;
  /** Plain-language remarks (option resolution, the allocator's own notes). */
  notes: string[];
  /** How a replay of a recorded history started (rows that replay event by event), else null. */
  start?: StartChoice | null;
  /** Who held the memory at the peaks and the first OOM (rows that replay event by event). */
  attribution?: AttributionSection | null;
  /**
   * On a recorded history: the real run's OOMs (requests that failed on the device, no events of
   * the trace) at which this row fails too; a row that does is no fit.
   */
  realOomsReproduced?: number;
  /**
   * Set when the contender declined the trace once it saw it (e.g. a planner strategy for which the
   * problem is too large): the row moves to the report's `skipped` list with this reason.
   */
  skipped?: string;
}

/** The cheap question a capacity search asks many times: does the whole trace fit? */
export interface ContenderProbe {
  fits: boolean;
  /** Peak reserved bytes of the probe (up to the failure when it did not fit). */
  peakReservedBytes: number;
}

/**
 * One row of a comparison. Implementations must be deterministic: the same trace, options and
 * capacity give the same figures, whichever thread runs them.
 */
export interface Contender {
  /** The name users write in `--allocators` and see in the table. */
  readonly name: string;
  readonly kind: ContenderKind;
  /** Every option with its effective value (defaults filled in). */
  readonly options: Record<string, unknown>;
  /** Runs the whole trace at `capacityBytes` (Infinity: unlimited). */
  run(trace: Trace, capacityBytes: number, onOom: OnOom): ContenderRun;
  /** Whether the whole trace runs without OOM at `capacityBytes`; defaults to `run(…)`. */
  probe?(trace: Trace, capacityBytes: number): ContenderProbe;
  /**
   * About how long its run takes per event, relative to the naive allocator's (1, the default): a
   * sweep starts the costliest rows first, so that its threads finish together. Never changes a result.
   */
  readonly relativeCost?: number;
}

/** Run settings that every row of a sweep shares (plain data: they cross to worker threads). */
export interface ContenderSettings {
  /** How replays of a recorded history start (default: decided per row, see src/sim/start.ts). */
  start?: StartMode;
  /** How to attribute the memory at the peaks and OOMs (default on; false: not computed). */
  attribution?: AttributionOptions | false;
}

/** A name that `--allocators all` stands for, or one that cannot run on this trace and why. */
export interface ContenderListing {
  name: string;
  /** Set when the contender cannot run on this trace (e.g. it needs a recorded history). */
  skipReason?: string;
}

/**
 * A family of contenders: the registered allocators, the planners (`plan:*`), … Adding a family to
 * `compare` is one {@link registerContenderProvider} call in `contenders.ts`, which the worker
 * threads import too, so that a worker can rebuild any contender from its name and options.
 */
export interface ContenderProvider {
  /** Every name of the family, for help text. */
  known(): string[];
  /** The names `all` stands for on this trace, with a reason for each one that cannot run. */
  list(trace: Trace): ContenderListing[];
  /** Whether `name` belongs to this family. */
  owns(name: string): boolean;
  /**
   * Builds the contender with the user's options (typed values or `--option` text). Throws a
   * {@link UsageError} for unknown options, bad values, or a trace it cannot run on.
   */
  create(name: string, given: Record<string, unknown>, trace: Trace, settings?: ContenderSettings): Contender;
}

const providers: ContenderProvider[] = [];

/** Adds a family of contenders; families are listed in registration order. */
export function registerContenderProvider(p: ContenderProvider): void {
  if (!providers.includes(p)) providers.push(p);
}

/** Every name any family offers (for help text and error messages). */
export function knownContenders(): string[] {
  return providers.flatMap((p) => p.known());
}

/** What `--allocators all` stands for on `trace`, in registration order. */
export function listContenders(trace: Trace): ContenderListing[] {
  return providers.flatMap((p) => p.list(trace));
}

/** The contender under another name (a variant's row keeps the name the user wrote). */
function renamed(c: Contender, name: string): Contender {
  const probe = c.probe;
  return {
    name,
    kind: c.kind,
    options: c.options,
    run: (trace, capacityBytes, onOom) => c.run(trace, capacityBytes, onOom),
    ...(c.relativeCost !== undefined ? { relativeCost: c.relativeCost } : {}),
    ...(probe ? { probe: (trace: Trace, capacityBytes: number) => probe.call(c, trace, capacityBytes) } : {}),
  };
}

/**
 * Builds the contender called `name`, or a usage error listing the known names. The name may be a
 * configuration, `NAME[key=value,…]`: that contender with those options (and `given` besides), as a
 * row named by the configuration's canonical text.
 */
export function createContender(name: string, given: Record<string, unknown>, trace: Trace, settings: ContenderSettings = {}): Contender {
  const config = parseConfiguration(name);
  const p = providers.find((x) => x.owns(config.name));
  if (!p) throw new UsageError(`unknown allocator "${config.name}" (known: ${knownContenders().join(', ')})`);
  const c = p.create(config.name, withMoreOptions(config, given), trace, settings);
  const rowName = formatConfiguration(config);
  return rowName === c.name ? c : renamed(c, rowName);
}

/** The probe every contender has: its own, or a full run. */
export function probeContender(c: Contender, trace: Trace, capacityBytes: number): ContenderProbe {
  if (c.probe) return c.probe(trace, capacityBytes);
  const r = c.run(trace, capacityBytes, 'stop');
  return { fits: runFits(r), peakReservedBytes: r.summary.peakReservedBytes };
}

/** A row fits: it ran to the end without an OOM, and did not fail where the real run failed. */
export function runFits(r: ContenderRun): boolean {
  return r.completed && r.summary.oomCount === 0 && (r.realOomsReproduced ?? 0) === 0;
}
