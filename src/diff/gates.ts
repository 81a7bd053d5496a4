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

/**
 * A `--fail-on` condition of `diff`: a figure may grow by at most `max` (a ratio); `oom`: the after
 * trace may not run out of memory (no figures).
 */
export interface GrowthGate {
  text: string;
  figures: readonly DiffFigure[];
  max: number;
  oom?: true;
}

/** The outcome of one gate: the growths beyond it, each with a message naming the numbers. */
export interface DiffGateResult {
  gate: string;
  failed: boolean;
  failures: { allocator: string; figure: DiffFigure; message: string }[];
}

const LABEL: Record<DiffFigure, string> = { peakLiveBytes: 'peak live', peakReservedBytes: 'peak reserved', minCapacityBytes: 'minimum capacity' };

/** Parses `growth>5%` (peak reserved or peak live), `peak-reserved-growth>X`, `peak-live-growth>X`, `min-capacity-growth>X`, `oom`. */
export function parseGrowthGate(text: string): GrowthGate {
  if (text.trim() === 'oom') return { text: 'oom', figures: [], max: 0, oom: true };
  const m = /^\s*([a-z-]+)\s*>\s*(.+?)\s*$/.exec(text);
  const known = [...Object.keys(GATES).map((k) => `${k}>X`), 'oom'].join(', ');
  if (!m || !((m[1] as string) in GATES)) throw new UsageError(`--fail-on: unknown condition "${text}" (known: ${known})`);
  const max = parseRatio(m[2] as string);
  if (max === null) throw new UsageError(`--fail-on: "${m[2]}" in "${text}" is not a ratio (examples: 5%, 0.05)`);
  return { text: `${m[1]}>${m[2]}`, figures: GATES[m[1] as keyof typeof GATES], max };
}

/**
 * How an allocator's OOMs changed, which decides whether its peaks compare (a run cut at an OOM has
 * the peaks of its part before it): `worse`, the after trace runs out of memory as often as the
 * before one or more; `better`, less often; `none`, neither runs out of memory.
 */
export function oomChange(e: DiffEntry): 'worse' | 'better' | 'none' {
  const after = e.after.oomCount;
  const before = e.before.oomCount;
  return after > 0 && after >= before ? 'worse' : before > after ? 'better' : 'none';
}

/** `N OOM(s)`. */
const ooms = (n: number): string => `${n} OOM${n === 1 ? '' : 's'}`;

/**
 * Why `e` fails gate `g` on figure `f`, or null when it passes. A minimum capacity that none fits
 * after (and some did before) fails, as does a figure that grew from 0. (Peaks of runs cut at an OOM
 * are judged in {@link evaluateGrowthGates}.)
 */
function failure(g: GrowthGate, e: DiffEntry, f: DiffFigure): string | null {
  const head = `gate failed: ${g.text}: ${e.name}`;
  const was = e.before[f];
  const now = e.after[f];
  if (now === null) return was === null ? null : `${head} ${LABEL[f]} ${formatBytes(was)} before; none fits after`;
  const c = e.change[f];
  if (!c || was === null) return null;
  if (c.ratio === null) return was === 0 && now > 0 ? `${head} ${LABEL[f]} grew from 0 B to ${formatBytes(now)}` : null;
  if (c.ratio <= g.max) return null;
  return `${head} ${LABEL[f]} grew ${percentText(c.ratio)} (${formatBytes(was)} → ${formatBytes(now)}), more than ${percentText(g.max)}`;
}

/**
 * Each gate against each allocator's change. The peaks of a run cut at an OOM are those of its part
 * before the OOM, which do not compare with another run's: an after trace that runs out of memory as
 * often as the before one or more fails every growth gate on its peaks (their growth cannot be
 * told), and one that runs out of memory less often passes them.
 */
export function evaluateGrowthGates(entries: readonly DiffEntry[], gates: readonly GrowthGate[]): DiffGateResult[] {
  return gates.map((g) => {
    const failures: DiffGateResult['failures'] = [];
    for (const e of entries) {
      const { oomCount: after } = e.after;
      const { oomCount: before } = e.before;
      if (g.oom) {
        if (after > 0) failures.push({ allocator: e.name, figure: 'peakReservedBytes', message: `gate failed: oom: ${e.name} runs out of memory after (${ooms(after)})` });
        continue;
      }
      const change = oomChange(e);
      let peaksJudged = false;
      for (const f of g.figures) {
        if (f !== 'minCapacityBytes' && change !== 'none') {
          if (change === 'worse' && !peaksJudged) {
            const was = before === 0 ? 'none' : ooms(before);
            failures.push({ allocator: e.name, figure: f, message: `gate failed: ${g.text}: ${e.name} runs out of memory after (${ooms(after)}; before: ${was}): its peaks stop at the OOM` });
          }
          peaksJudged = true;
          continue;
        }
        const message = failure(g, e, f);
        if (message !== null) failures.push({ allocator: e.name, figure: f, message });
      }
    }
    return { gate: g.text, failed: failures.length > 0, failures };
  });
}
