import { VERSION } from '../version.js';
import { objectsToOffsets } from './layout.js';
import { type LowerBounds, lowerBounds } from './lower-bounds.js';
import { DEFAULT_BYTES_PER_RECORD, defaultMemoryBudget, OutOfAddressSpace, OutOfTime, PlanLimitError, startLimits } from './limits.js';
import { formatBytes, formatCount as count } from '../util/bytes.js';
import { BEST, listPlanners, selectStrategies } from './registry.js';
import { bestPacking, type Candidate, type SearchReport } from './strategies/best.js';
import type { Assignment, PlanKind, PlannerDefinition, UsageRecords } from './types.js';

/** One strategy's outcome in `memsim.plan/1`. */
export type PlanResult = PlanResultOk | PlanResultSkipped;

interface PlanResultBase {
  strategy: string;
  kind: PlanKind;
  /** The real function it mirrors. */
  source: string;
}

/** A plan: the total it needs and the assignment, per record in record order. */
export interface PlanResultOk extends PlanResultBase {
  status: 'ok';
  totalBytes: number;
  /** totalBytes over the lower bound of its kind (objects or offsets); null when that bound is 0. */
  ratioToLowerBound: number | null;
  /** Objects plans: the object of each record, and each object's size. */
  objectIds?: number[];
  objectSizes?: number[];
  /** Offsets plans: the offset of each record. */
  offsets?: number[];
  /** `best` only: whether the total is proven optimal, what produced it, how the search went. */
  proven?: boolean;
  from?: string;
  search?: SearchReport;
}

/** A strategy not run, and why (its cost grows too fast for this many records). */
export interface PlanResultSkipped extends PlanResultBase {
  status: 'skipped';
  reason: string;
}

/** `memsim.plan/1`: what `plan --format json` writes; the text table shows the same object. */
export interface PlanReport {
  schema: 'memsim.plan/1';
  tool: { name: 'memsim'; version: string };
  input: { path: string; format: string; sourceFormat?: string; records: number };
  alignmentBytes: number;
  /** The wall-clock cap (null: none). */
  timeLimitMs: number | null;
  /** The exact search's work budget, in nodes (0 when best did not run and none was given). */
  nodeBudget: number;
  /** `plan --capacity`: the capacity `best` was asked to fit under (null: it minimized). */
  capacityBytes: number | null;
  lowerBounds: LowerBounds;
  /** Plans first, smallest total first (`best` first on ties, then registry order); skipped last. */
  results: PlanResult[];
  notes: string[];
}

/** Options of a planning run. */
export interface PlanRunOptions {
  /** `all` (default), or names as `--strategy` takes them (`greedy-by-size:offsets,best`). */
  strategy?: string;
  alignmentBytes?: number;
  /** Wall-clock cap of the whole run, every strategy, in milliseconds (default none). */
  timeLimitMs?: number;
  /** Work budget of the exact search in `best`, in nodes (default: defaultNodeBudget of the input; 0 disables it). */
  nodeBudget?: number;
  /** `best` searches for a packing that fits under this instead of the smallest one. */
  capacityBytes?: number;
  /** Bytes the strategies may allocate, all of them together (default: half of the machine's memory). */
  memoryBytes?: number;
  /** Clock for the search's deadline (tests inject one). */
  now?: () => number;
}

/** Bytes per record that a plan kept for the report holds: its typed arrays and (once read) their copies as plain arrays. */
const RESULT_BYTES_PER_RECORD = 32;

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

function ratio(total: number, bound: number): number | null {
  if (bound === 0) return total === 0 ? 1 : null;
  return round6(total / bound);
}

/** Why a planner is skipped for these records, or null when it runs. */
export function skipReason(def: PlannerDefinition, r: UsageRecords): string | null {
  if (def.maxRecords !== undefined && r.count > def.maxRecords) {
    return `${r.count} records is over its limit of ${def.maxRecords} (its cost grows as n²)`;
  }
  return null;
}

/**
 * Runs the selected strategies on a set of records and builds the `memsim.plan/1` report. Pure: no
 * I/O; the only clock read is the exact search's deadline.
 */
export function runPlan(r: UsageRecords, options: PlanRunOptions = {}): PlanReport {
  const alignmentBytes = options.alignmentBytes ?? 1;
  const timeLimitMs = options.timeLimitMs ?? Infinity;
  let nodeBudget = options.nodeBudget ?? 0;
  const selection = selectStrategies(options.strategy ?? 'all');
  const bounds = lowerBounds(r);
  const memoryBytes = options.memoryBytes ?? defaultMemoryBudget();
  const limits = startLimits(timeLimitMs, memoryBytes, options.now);
  const planOptions = { alignmentBytes, limits };
  const planners = listPlanners();
  const done = new Map<PlannerDefinition, Assignment>();
  const notes = [...r.notes];
  // Assignments kept for the report: each one's per-record arrays, as typed arrays and as JSON-ready arrays.
  let heldBytes = 0;
  const runOne = (def: PlannerDefinition): Assignment => {
    let a = done.get(def);
    if (!a) {
      const label = `${def.name} (${def.kind})`;
      const need = def.memoryBytes ? def.memoryBytes(r) : DEFAULT_BYTES_PER_RECORD * r.count;
      if (heldBytes + need > memoryBytes) {
        const what =
          `${label}: ${count(r.count)} records need about ${formatBytes(need)}` +
          (heldBytes > 0 ? ` besides the ${formatBytes(heldBytes)} the plans before it hold` : '') +
          `, over the memory budget of ${formatBytes(memoryBytes)}`;
        throw new PlanLimitError(`${what} (--memory-limit); give a larger budget or fewer strategies (--strategy)`, 'memory', what);
      }
      try {
        a = def.plan(r, planOptions);
      } catch (e) {
        if (e instanceof OutOfTime) {
          const what = `${label}: stopped by the time limit of ${count(timeLimitMs)} ms after ${e.progress}`;
          throw new PlanLimitError(`${what} (--time-limit); give a longer limit or another --strategy`, 'time', what);
        }
        if (e instanceof OutOfAddressSpace) {
          const what = `${label}: ${e.message}`;
          throw new PlanLimitError(`${what}; give it less input or choose another --strategy`, 'memory', what);
        }
        // A WebAssembly memory the system could not reserve or grow says so in a RangeError of its own.
        if (e instanceof RangeError && /allocation failed|Invalid (typed )?array length|could not allocate|Unable to grow/i.test(e.message)) {
          const what = `${label}: ran out of memory for ${count(r.count)} records (${e.message})`;
          throw new PlanLimitError(`${what}; give it less input or choose another --strategy`, 'memory', what);
        }
        throw e;
      }
      done.set(def, a);
      heldBytes += RESULT_BYTES_PER_RECORD * r.count;
      for (const n of a.notes ?? []) if (!notes.includes(n)) notes.push(n);
    }
    return a;
  };

  const results: PlanResult[] = [];
  for (const def of selection.planners) {
    const reason = skipReason(def, r);
    const base = { strategy: def.name, kind: def.kind, source: def.source };
    if (reason) {
      results.push({ ...base, status: 'skipped', reason });
      continue;
    }
    results.push(toResult(base, runOne(def), bounds, alignmentBytes));
  }
  if (selection.best) {
    const candidates: Candidate[] = [];
    for (const def of planners) {
      if (!def.inBest || skipReason(def, r)) continue;
      let a: Assignment;
      try {
        a = runOne(def);
      } catch (e) {
        // best answers with the candidates that ran within the limits (naive always does).
        if (!(e instanceof PlanLimitError)) throw e;
        notes.push(`best: ${e.what}; it is not among best's candidates`);
        continue;
      }
      const layout = a.kind === 'offsets' ? a : objectsToOffsets(a, alignmentBytes);
      candidates.push({ label: `${def.name} (${def.kind})`, offsets: layout.offsets, totalBytes: layout.totalBytes });
    }
    if (candidates.length === 0) throw new PlanLimitError(`best: no strategy ran within the limits (${notes.join('; ')})`, 'memory');
    const b = bestPacking(r, candidates, bounds.offsetsBytes, {
      alignmentBytes,
      ...(options.nodeBudget !== undefined ? { nodeBudget: options.nodeBudget } : {}),
      limits,
      ...(options.capacityBytes !== undefined ? { capacityBytes: options.capacityBytes } : {}),
    });
    nodeBudget = b.search.nodeBudget;
    results.push({
      ...toResult({ strategy: BEST, kind: 'offsets', source: 'the best of the strategies, then an exact search (after minimalloc)' }, b.assignment, bounds, alignmentBytes),
      proven: b.proven,
      from: b.from,
      search: b.search,
    } as PlanResultOk);
  }

  const cut = results.find((x): x is PlanResultOk => x.status === 'ok' && x.search?.status === 'timeout');
  if (cut?.search) {
    notes.push(
      `the clock (time limit ${count(timeLimitMs)} ms) stopped best's exact search after ${count(cut.search.nodes)} of its ${count(cut.search.nodeBudget)} nodes: ` +
        'this total depends on the machine and may differ on a rerun',
    );
  }
  const rank = (x: PlanResult): number => (x.strategy === BEST ? -1 : planners.findIndex((p) => p.name === x.strategy && p.kind === x.kind));
  results.sort((a, b) => {
    if (a.status !== b.status) return a.status === 'ok' ? -1 : 1;
    if (a.status === 'ok' && b.status === 'ok' && a.totalBytes !== b.totalBytes) return a.totalBytes - b.totalBytes;
    return rank(a) - rank(b);
  });
  return {
    schema: 'memsim.plan/1',
    tool: { name: 'memsim', version: VERSION },
    input: { path: r.source.path, format: r.source.format, ...(r.source.sourceFormat !== undefined ? { sourceFormat: r.source.sourceFormat } : {}), records: r.count },
    alignmentBytes,
    timeLimitMs: Number.isFinite(timeLimitMs) ? timeLimitMs : null,
    nodeBudget,
    capacityBytes: options.capacityBytes ?? null,
    lowerBounds: bounds,
    results,
    notes,
  };
}

/** Each offsets result's offsets as the plan made them (what `--format csv` writes, with no copy). */
const typedOffsets = new WeakMap<PlanResultOk, Float64Array>();

/**
 * A plan's result. Its ratio is computed when read, and its per-record list copied from the
 * plan's typed array when first read (JSON, tests), so a run that writes only the offsets (`plan
 * --format csv`) computes no lower bound and copies nothing; printed or serialized, the object
 * reads as plain properties in this order.
 */
function toResult(base: PlanResultBase, a: Assignment, bounds: LowerBounds, alignmentBytes: number): PlanResultOk {
  if (a.kind === 'offsets') {
    let plain: number[] | undefined;
    const res: PlanResultOk = {
      ...base,
      status: 'ok',
      totalBytes: a.totalBytes,
      get ratioToLowerBound(): number | null {
        return ratio(a.totalBytes, bounds.offsetsBytes);
      },
      get offsets(): number[] {
        plain ??= plainArray(a.offsets);
        return plain;
      },
    };
    typedOffsets.set(res, a.offsets);
    return res;
  }
  const total = objectsToOffsets(a, alignmentBytes).totalBytes;
  let plainIds: number[] | undefined;
  let sizes: number[] | undefined;
  // Every property after the first getter is one too: V8 lists an object literal's plain
  // properties before its accessors, and the report keeps this order.
  return {
    ...base,
    status: 'ok',
    totalBytes: total,
    get ratioToLowerBound(): number | null {
      return ratio(total, bounds.objectsBytes);
    },
    get objectIds(): number[] {
      plainIds ??= plainArray(a.objectIds);
      return plainIds;
    },
    get objectSizes(): number[] {
      sizes ??= [...a.objectSizes];
      return sizes;
    },
  };
}

/**
 * A typed array's values as a plain array (what JSON writes as a list). Pushed one by one: for a
 * million values about a third of the time `Array.from` takes, run once cold.
 */
function plainArray(a: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) out.push(a[i] as number);
  return out;
}

/** The offsets of a plan result, per record (objects laid out back to back, as `--format csv` writes them). */
export function resultOffsets(res: PlanResultOk, alignmentBytes: number): ArrayLike<number> {
  const typed = typedOffsets.get(res);
  if (typed) return typed;
  if (res.offsets) return res.offsets;
  const layout = objectsToOffsets(
    { kind: 'objects', objectIds: Int32Array.from(res.objectIds ?? []), objectSizes: res.objectSizes ?? [] },
    alignmentBytes,
  );
  return Array.from(layout.offsets);
}
