import type { DiffReport } from '../diff/index.js';
import type { TraceInfo } from '../sim/report.js';
import { changeText, diffStatus, figureRows, holderChangeRows, holdersTitle } from './diff-format.js';
import { formatCount, painter, type RenderOptions } from './format.js';
import { fitKey } from './holders.js';
import { DEFAULT_WIDTH, tableLines, wrapHanging } from './layout.js';

function traceLine(label: string, t: TraceInfo, width: number): string[] {
  return wrapHanging(`${label} ${t.path} (${t.format}${t.name ? `, "${t.name}"` : ''}): ${formatCount(t.events)} events, ${formatCount(t.allocs)} allocs, ${formatCount(t.steps)} step${t.steps === 1 ? '' : 's'}`, width, '  ');
}

/** The text report of `diff`: status, figures before and after, then who grew and shrank at the peaks. */
export function renderDiffText(r: DiffReport, options: RenderOptions = {}): string {
  const c = painter(options.color);
  const width = options.width ?? DEFAULT_WIDTH;
  const by = r.groupBy === 'stack' ? `stack (${r.stackDepth ?? 4} frames)` : r.groupBy;
  const out: string[] = [c.bold(`memsim diff · ${r.allocators.map((e) => e.name).join(', ')} · by ${by}`), ...traceLine('before', r.before, width), ...traceLine('after ', r.after, width)];
  const status = diffStatus(r.allocators);
  const mark = status.word === 'ooms' ? c.red('✘') : status.word === 'grew' ? c.red('▲') : status.word === 'shrank' ? c.green('▼') : '=';
  // The status stays one line, for grep and CI logs.
  out.push(`${mark} ${status.text}`, '');
  const figures = [{ head: 'allocator', wrap: 'commas' as const }, { head: 'figure' }, { head: 'before', align: 'right' as const }, { head: 'after', align: 'right' as const }, { head: 'change', align: 'right' as const, wrap: 'words' as const }];
  out.push(...tableLines(figures, figureRows(r.allocators, r.minCapacity !== null), { width }), '');
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
      out.push(...wrapHanging(holdersTitle(e.name, which, d), width, '  ').map((l) => c.bold(l)));
      if (d.changes.length === 0) {
        out.push(`  no group changed (${formatCount(d.unchanged)} the same)`, '');
        continue;
      }
      const columns = [
        { head: 'change' },
        { head: r.groupBy, wrap: (k: string, w: number) => fitKey(k, r.groupBy, w), minWidth: 24, maxWidth: 48 },
        { head: 'before (count)', align: 'right' as const, wrap: 'words' as const, drop: 1 },
        { head: 'after (count)', align: 'right' as const, wrap: 'words' as const },
        { head: 'delta', align: 'right' as const },
      ];
      out.push(...tableLines(columns, holderChangeRows(d, (k) => k), { width }));
      if (d.unchanged > 0) out.push(`${formatCount(d.unchanged)} group${d.unchanged === 1 ? '' : 's'} unchanged`);
      out.push('');
    }
  }
  for (const g of r.gates) out.push(`gate ${g.gate}: ${g.failed ? c.red(`failed (${formatCount(g.failures.length)})`) : c.green('passed')}`);
  if (r.gates.length > 0) out.push('');
  for (const e of r.allocators) {
    if (e.change.minCapacityBytes) out.push(`${e.name}: minimum capacity ${changeText(e.change.minCapacityBytes)}`);
  }
  for (const e of r.allocators) for (const n of e.notes) out.push(`note (${e.name}): ${n}`);
  for (const n of r.notes) out.push(`note: ${n}`);
  return out.join('\n').replace(/\n+$/, '') + '\n';
}
