import { UsageError } from '../errors.js';
import type { CompareReport } from './compare.js';
import { ratio } from '../sim/report.js';
import { formatBytes, formatCount } from '../util/bytes.js';

/** The figures compared with a baseline; for each, smaller is better. */
export type BaselineFigure = 'peakReservedBytes' | 'minCapacityBytes' | 'oomCount';

/** One figure of one row, now and in the baseline. */
export interface FigureChange {
  allocator: string;
  figure: BaselineFigure;
  baseline: number;
  current: number;
  /** current - baseline. */
  delta: number;
  /** delta / baseline (6 decimals); null when the baseline is 0 and the figure is not. */
  relative: number | null;
  direction: 'worse' | 'better' | 'same';
  /** Worse by more than the allowed regression. */
  exceedsThreshold: boolean;
}

/** The comparison of a report with a baseline `memsim.compare/1` report. */
export interface BaselineComparison {
  /** The baseline file as the user named it. */
  path: string;
  /** The baseline's trace: path, name and event count. */
  trace: { path: string; name: string | null; events: number };
  /** Allowed relative worsening, as a ratio (0.05 = 5%). */
  maxRegression: number;
  /** Every figure of every row present in both, in row order (improvements and ties included). */
  changes: FigureChange[];
  regressions: number;
  improvements: number;
  /** Rows now that the baseline lacks, and the reverse. */
  added: string[];
  removed: string[];
  notes: string[];
}

/** The part of a `memsim.compare/1` report that a baseline needs. */
export interface BaselineReport {
  trace: { path: string; name: string | null; events: number; format?: string };
  /** The capacity of the baseline's replays (null: unlimited; undefined: the report does not say). */
  capacityBytes?: number | null;
  minCapacity: { stepBytes: number } | null;
  allocators: { name: string; options: Record<string, unknown>; summary: { peakReservedBytes: number; oomCount: number }; minCapacityBytes: number | null }[];
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** Checks that parsed JSON is a `memsim.compare/1` report usable as a baseline. */
export function parseBaseline(json: unknown, path: string): BaselineReport {
  const bad = (why: string): never => {
    throw new UsageError(`${path}: not a usable memsim.compare/1 baseline: ${why}`);
  };
  if (!isObj(json)) return bad('expected a JSON object');
  if (json['schema'] !== 'memsim.compare/1') return bad(`schema is ${JSON.stringify(json['schema'] ?? null)}`);
  const rows = json['allocators'];
  if (!Array.isArray(rows)) return bad('no "allocators" array');
  const allocators = rows.map((r: unknown, k) => {
    if (!isObj(r) || typeof r['name'] !== 'string' || !isObj(r['summary'])) return bad(`allocators[${k}] has no name or summary`);
    const s = r['summary'];
    if (!isNum(s['peakReservedBytes']) || !isNum(s['oomCount'])) return bad(`allocators[${k}].summary lacks peakReservedBytes or oomCount`);
    const min = r['minCapacityBytes'];
    return {
      name: r['name'],
      options: isObj(r['options']) ? r['options'] : {},
      summary: { peakReservedBytes: s['peakReservedBytes'], oomCount: s['oomCount'] },
      minCapacityBytes: isNum(min) ? min : null,
    };
  });
  const t = isObj(json['trace']) ? json['trace'] : {};
  const mc = json['minCapacity'];
  const cap = json['capacityBytes'];
  return {
    trace: {
      path: String(t['path'] ?? ''),
      name: typeof t['name'] === 'string' ? t['name'] : null,
      events: isNum(t['events']) ? t['events'] : 0,
      ...(typeof t['format'] === 'string' ? { format: t['format'] } : {}),
    },
    ...(cap === null || isNum(cap) ? { capacityBytes: cap } : {}),
    minCapacity: isObj(mc) && isNum(mc['stepBytes']) ? { stepBytes: mc['stepBytes'] } : null,
    allocators,
  };
}

function change(allocator: string, figure: BaselineFigure, baseline: number, current: number, maxRegression: number): FigureChange {
  const delta = current - baseline;
  const relative = baseline !== 0 ? ratio(delta / baseline) : delta === 0 ? 0 : null;
  const direction = delta > 0 ? 'worse' : delta < 0 ? 'better' : 'same';
  // delta > max·baseline rather than relative > max: no rounding of the ratio decides a gate.
  const exceedsThreshold = delta > 0 && (baseline === 0 || delta > maxRegression * baseline);
  return { allocator, figure, baseline, current, delta, relative, direction, exceedsThreshold };
}

const sameOptions = (a: Record<string, unknown>, b: Record<string, unknown>): boolean => {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
};

/**
 * What makes a baseline another experiment than this run, in words (empty when nothing does): its
 * trace (by name when both have one, else by format) or its capacity. Figures of
 * another trace or capacity are not a regression or an improvement of this one.
 */
export function baselineMismatch(report: Pick<CompareReport, 'trace' | 'capacityBytes'>, base: BaselineReport): string[] {
  const out: string[] = [];
  const now = report.trace;
  const was = base.trace;
  const describe = (t: { path: string; name: string | null; events: number }): string =>
    `${t.name !== null ? `"${t.name}" ` : ''}(${t.path}, ${formatCount(t.events)} events)`;
  // A trace's name says which workload it records; a file without one is known only by its format
  // (its path and length change with the change under test: before.json and after.json).
  const sameTrace =
    now.name !== null && was.name !== null ? now.name === was.name : was.format === undefined || was.format === now.format;
  if (!sameTrace) out.push(`the trace: the baseline's is ${describe(was)}, this one ${describe(now)}`);
  if (base.capacityBytes !== undefined && base.capacityBytes !== report.capacityBytes) {
    const cap = (c: number | null): string => (c === null ? 'unlimited' : `${formatBytes(c)} (${formatCount(c)} bytes)`);
    out.push(`the capacity: the baseline's is ${cap(base.capacityBytes)}, this one ${cap(report.capacityBytes)}`);
  }
  return out;
}

/**
 * Compares each row with the baseline's row of the same name on peak reserved, minimum capacity
 * (when both have one) and OOM count, both ways: worse and better figures are both listed.
 */
export function compareWithBaseline(report: CompareReport, base: BaselineReport, path: string, maxRegression: number): BaselineComparison {
  const changes: FigureChange[] = [];
  const notes: string[] = [];
  const byName = new Map(base.allocators.map((a) => [a.name, a]));
  let missingMin = false;
  for (const row of report.allocators) {
    const b = byName.get(row.name);
    if (!b) continue;
    changes.push(change(row.name, 'peakReservedBytes', b.summary.peakReservedBytes, row.summary.peakReservedBytes, maxRegression));
    if (b.minCapacityBytes !== null && row.minCapacityBytes !== null) {
      changes.push(change(row.name, 'minCapacityBytes', b.minCapacityBytes, row.minCapacityBytes, maxRegression));
    } else if (b.minCapacityBytes !== null) {
      missingMin = true;
    }
    changes.push(change(row.name, 'oomCount', b.summary.oomCount, row.summary.oomCount, maxRegression));
    if (!sameOptions(row.options, b.options)) notes.push(`${row.name}: the options differ from the baseline's`);
  }
  if (missingMin) notes.push('the baseline has minimum capacities and this run has none for some rows: run with --min-capacity to compare them');
  const step = report.minCapacity?.stepBytes;
  if (step !== undefined && base.minCapacity && base.minCapacity.stepBytes !== step) {
    notes.push(`the baseline searched minimum capacities in steps of ${formatCount(base.minCapacity.stepBytes)} bytes, this run in steps of ${formatCount(step)}`);
  }
  const names = new Set(report.allocators.map((a) => a.name));
  return {
    path,
    trace: base.trace,
    maxRegression,
    changes,
    regressions: changes.filter((c) => c.direction === 'worse').length,
    improvements: changes.filter((c) => c.direction === 'better').length,
    added: report.allocators.filter((a) => !byName.has(a.name)).map((a) => a.name),
    removed: base.allocators.filter((a) => !names.has(a.name)).map((a) => a.name),
    notes,
  };
}
