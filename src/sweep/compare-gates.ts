import { UsageError } from '../errors.js';
import { formatBytes, formatCount } from '../util/bytes.js';
import type { FigureChange } from './compare-baseline.js';
import { type CompareEntry, type CompareReport, entryFails } from './compare.js';
import type { ReplaySummary } from '../sim/report.js';

/** Ratios of the summary that a threshold gate can watch, by the name users write. */
const METRICS = {
  fragmentation: 'fragmentation',
  'internal-fragmentation': 'internalFragmentation',
  'external-fragmentation': 'externalFragmentation',
  overhead: 'overheadVsLowerBound',
} as const satisfies Record<string, keyof ReplaySummary>;

type MetricName = keyof typeof METRICS;

/** A `--fail-on` condition. */
export type GateSpec =
  | { type: 'oom'; text: 'oom' }
  | { type: 'regression'; text: 'regression' }
  | { type: 'threshold'; text: string; metric: MetricName; max: number };

/** The outcome of one gate: the rows that failed it, each with a message naming the numbers. */
export interface GateResult {
  gate: string;
  failed: boolean;
  failures: { allocator: string; message: string }[];
}

/** Parses a ratio written `0.3`, `30%` or `5%`; null when it is not one. */
export function parseRatio(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)\s*$/.exec(text);
  if (!m) return null;
  const v = Number(m[1]);
  return m[2] === '%' ? v / 100 : v;
}

/** Parses `oom`, `regression` or `<metric>><ratio>` (metric: fragmentation, internal-fragmentation, external-fragmentation, overhead). */
export function parseGate(text: string): GateSpec {
  const t = text.trim();
  if (t === 'oom' || t === 'regression') return { type: t, text: t } as GateSpec;
  const m = /^([a-z-]+)\s*>\s*(.+)$/.exec(t);
  const known = `oom, regression, ${Object.keys(METRICS).map((k) => `${k}>X`).join(', ')}`;
  if (!m || !(m[1] as string in METRICS)) throw new UsageError(`--fail-on: unknown condition "${text}" (known: ${known})`);
  const max = parseRatio(m[2] as string);
  if (max === null) throw new UsageError(`--fail-on: "${m[2]}" in "${text}" is not a ratio (examples: 0.3, 30%)`);
  return { type: 'threshold', text: `${m[1]}>${m[2]?.trim()}`, metric: m[1] as MetricName, max };
}

const FIGURE_LABEL: Record<FigureChange['figure'], string> = {
  peakReservedBytes: 'peak reserved',
  minCapacityBytes: 'minimum capacity',
  oomCount: 'OOM count',
};

/** A ratio as a percentage without trailing zeros: 0.05 -> `5%`, 0.0125 -> `1.25%`. */
export function percentText(r: number): string {
  return `${Number((r * 100).toFixed(2))}%`;
}

function changeText(c: FigureChange): string {
  const fmt = (n: number): string => (c.figure === 'oomCount' ? String(n) : formatBytes(n));
  const rel = c.relative === null ? 'from none' : `${c.relative >= 0 ? '+' : ''}${percentText(c.relative)}`;
  return `${FIGURE_LABEL[c.figure]} ${fmt(c.baseline)} -> ${fmt(c.current)} (${rel})`;
}

function oomMessage(r: CompareReport, e: CompareEntry): string {
  const o = e.firstOom;
  const cap = r.capacityBytes === null ? 'unlimited capacity' : `capacity ${formatBytes(r.capacityBytes)}`;
  const first = o
    ? `; the first at event ${formatCount(o.event)}${o.line !== null ? ` (line ${o.line})` : ''}: ${formatBytes(o.sizeBytes)} requested with ${formatBytes(o.liveBytes)} live, ${formatBytes(o.reservedBytes)} reserved (${o.kind})`
    : '';
  if (e.summary.oomCount === 0) {
    const n = e.realOomsReproduced ?? 0;
    return `gate oom failed: ${e.name} fails at ${n === 1 ? "the real run's OOM" : `${formatCount(n)} of the real run's OOMs`} at ${cap} (a request that failed on the device; no event of the trace)`;
  }
  return `gate oom failed: ${e.name} hit ${formatCount(e.summary.oomCount)} OOM(s) at ${cap}${first}`;
}

/**
 * Evaluates the `--fail-on` gates on a finished comparison (with its baseline comparison for the
 * regression gate). Failures are listed gate by gate, rows in rank order.
 */
export function evaluateGates(r: CompareReport, specs: readonly GateSpec[]): GateResult[] {
  return specs.map((g) => {
    const failures: { allocator: string; message: string }[] = [];
    if (g.type === 'oom') {
      for (const e of r.allocators) if (entryFails(e)) failures.push({ allocator: e.name, message: oomMessage(r, e) });
    } else if (g.type === 'regression') {
      if (!r.baseline) throw new UsageError('--fail-on regression needs --baseline FILE (a memsim.compare/1 report)');
      const allowed = percentText(r.baseline.maxRegression);
      for (const c of r.baseline.changes) {
        if (c.exceedsThreshold) failures.push({ allocator: c.allocator, message: `gate regression failed: ${c.allocator} ${changeText(c)}, over the ${allowed} allowed (--max-regression)` });
      }
    } else {
      const key = METRICS[g.metric];
      for (const e of r.allocators) {
        const v = e.summary[key];
        if (v > g.max) {
          const s = e.summary;
          failures.push({
            allocator: e.name,
            message: `gate ${g.text} failed: ${e.name} ${g.metric} ${v} > ${g.max} (peak live ${formatBytes(s.peakLiveBytes)}, peak allocated ${formatBytes(s.peakAllocatedBytes)}, peak reserved ${formatBytes(s.peakReservedBytes)})`,
          });
        }
      }
    }
    return { gate: g.text, failed: failures.length > 0, failures };
  });
}

/** The text of a figure change, for reports. */
export { changeText as describeChange };
