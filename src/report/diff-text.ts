import type { DiffReport } from '../diff/index.js';
import type { TraceInfo } from '../sim/report.js';
import { changeText, diffStatus, figureRows, holderChangeRows, holdersTitle } from './diff-format.js';
import { formatCount, painter, type RenderOptions } from './format.js';
import { fitKey } from './holders.js';
import { newTable } from './replay-text.js';

function traceLine(label: string, t: TraceInfo): string {
  return `${label} ${t.path} (${t.format}${t.name ? `, "${t.name}"` : ''}): ${formatCount(t.events)} events, ${formatCount(t.allocs)} allocs, ${formatCount(t.steps)} step${t.steps === 1 ? '' : 's'}`;
}

/** The text report of `diff`: status, figures before and after, then who grew and shrank at the peaks. */
export function renderDiffText(r: DiffReport, options: RenderOptions = {}): string {
  const c = painter(options.color);
  const by = r.groupBy === 'stack' ? `stack (${r.stackDepth ?? 4} frames)` : r.groupBy;
  const out: string[] = [c.bold(`memsim diff · ${r.allocators.map((e) => e.name).join(', ')} · by ${by}`), traceLine('before', r.before), traceLine('after ', r.after)];
  const status = diffStatus(r.allocators);
  const mark = status.word === 'grew' ? c.red('▲') : status.word === 'shrank' ? c.green('▼') : '=';
  out.push(`${mark} ${status.text}`, '');
  const figures = newTable(['allocator', 'figure', 'before', 'after', 'change'], ['left', 'left', 'right', 'right', 'right']);
  for (const row of figureRows(r.allocators, r.minCapacity !== null)) figures.push(row);
  out.push(figures.toString(), '');
  for (const e of r.allocators) {
    const shown = new Set<string>();
    for (const [which, d] of [['live', e.holders.peakLive], ['reserved', e.holders.peakReserved]] as const) {
      // The peak of reserved bytes at the same moments as the peak of live bytes has the same holders.
      const same = `${d.beforeEvent}/${d.afterEvent}`;
      if (shown.has(same)) {
        out.push(`${e.name}: the peak of reserved bytes is at the same events: the same holders`, '');
        continue;
      }
      shown.add(same);
      out.push(c.bold(holdersTitle(e.name, which, d)));
      if (d.changes.length === 0) {
        out.push(`  no group changed (${formatCount(d.unchanged)} the same)`, '');
        continue;
      }
      const t = newTable(['change', r.groupBy, 'before (count)', 'after (count)', 'delta'], ['left', 'left', 'right', 'right', 'right']);
      for (const row of holderChangeRows(d, (k) => fitKey(k, r.groupBy, 40))) t.push(row);
      out.push(t.toString());
      if (d.unchanged > 0) out.push(`${formatCount(d.unchanged)} group${d.unchanged === 1 ? '' : 's'} unchanged`);
      out.push('');
    }
  }
  for (const g of r.gates) out.push(`gate ${g.gate}: ${g.failed ? c.red(`failed (${g.failures.length})`) : c.green('passed')}`);
  if (r.gates.length > 0) out.push('');
  for (const e of r.allocators) {
    if (e.change.minCapacityBytes) out.push(`${e.name}: minimum capacity ${changeText(e.change.minCapacityBytes)}`);
  }
  for (const e of r.allocators) for (const n of e.notes) out.push(`note (${e.name}): ${n}`);
  for (const n of r.notes) out.push(`note: ${n}`);
  return out.join('\n').replace(/\n+$/, '') + '\n';
}
