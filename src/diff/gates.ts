import { UsageError } from '../errors.js';
import { parseRatio, percentText } from '../sweep/compare-gates.js';
import { formatBytes } from '../util/bytes.js';
import type { DiffEntry, DiffFigure } from './types.js';

/** The figures a growth gate watches, by the name users write. */
const GATES = {
  growth: ['peakReservedBytes', 'peakLiveBytes'],
  'peak-reserved-growth': ['peakReservedBytes'],
  'peak-live-growth': ['peakLiveBytes'],
  'min-capacity-growth': ['minCapacityBytes'],
} as const satisfies Record<string, readonly DiffFigure[]>;

/** A `--fail-on` condition of `diff`: a figure may grow by at most `max` (a ratio). */
export interface GrowthGate {
  text: string;
  figures: readonly DiffFigure[];
  max: number;
}

/** The outcome of one gate: the growths beyond it, each with a message naming the numbers. */
export interface DiffGateResult {
  gate: string;
  failed: boolean;
  failures: { allocator: string; figure: DiffFigure; message: string }[];
}

const LABEL: Record<DiffFigure, string> = { peakLiveBytes: 'peak live', peakReservedBytes: 'peak reserved', minCapacityBytes: 'minimum capacity' };

/** Parses `growth>5%` (peak reserved or peak live), `peak-reserved-growth>X`, `peak-live-growth>X`, `min-capacity-growth>X`. */
export function parseGrowthGate(text: string): GrowthGate {
  const m = /^\s*([a-z-]+)\s*>\s*(.+?)\s*$/.exec(text);
  const known = Object.keys(GATES).map((k) => `${k}>X`).join(', ');
  if (!m || !((m[1] as string) in GATES)) throw new UsageError(`--fail-on: unknown condition "${text}" (known: ${known})`);
  const max = parseRatio(m[2] as string);
  if (max === null) throw new UsageError(`--fail-on: "${m[2]}" in "${text}" is not a ratio (examples: 5%, 0.05)`);
  return { text: `${m[1]}>${m[2]}`, figures: GATES[m[1] as keyof typeof GATES], max };
}

/** Each gate against each allocator's change. */
export function evaluateGrowthGates(entries: readonly DiffEntry[], gates: readonly GrowthGate[]): DiffGateResult[] {
  return gates.map((g) => {
    const failures: DiffGateResult['failures'] = [];
    for (const e of entries) {
      for (const f of g.figures) {
        const c = e.change[f];
        if (!c || c.ratio === null || c.ratio <= g.max) continue;
        const was = e.before[f];
        const now = e.after[f];
        failures.push({
          allocator: e.name,
          figure: f,
          message: `gate failed: ${g.text}: ${e.name} ${LABEL[f]} grew ${percentText(c.ratio)} (${formatBytes(was ?? 0)} → ${formatBytes(now ?? 0)}), more than ${percentText(g.max)}`,
        });
      }
    }
    return { gate: g.text, failed: failures.length > 0, failures };
  });
}
