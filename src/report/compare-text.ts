import type { ChalkInstance } from 'chalk';
import { describeChange, percentText } from '../sweep/compare-gates.js';
import type { CompareReport } from '../sweep/compare.js';
import { bestRow, failureKind, realOomsText, capacityText, changeCells, formatGridBytes, changedFigures, formatSignedPercent, searchText, status, tableColumns, tableRows } from './compare-table.js';
import { formatBytes, formatCount, painter, type RenderOptions } from './format.js';
import type { Column } from './layout.js';
import { holdersText } from './replay-text.js';
import { oomExplanation } from './oom-where.js';
import { comparisonHolders, groupedBy } from './holders.js';
import { DEFAULT_WIDTH, tableLines, wrap, wrapHanging } from './layout.js';

/** The one line that says how the comparison came out: OOM, regressed, or fits. */
export function compareStatusLine(r: CompareReport, c: ChalkInstance): string {
  const st = status(r);
  const n = r.allocators.length;
  const parts: string[] = [];
  if (st.oom.length > 0) {
    const who = st.oom.map((e) => `${e.name} (${failureKind(e)})`).join(', ');
    parts.push(`${c.red('✘ OOM')}: ${formatCount(st.oom.length)} of ${formatCount(n)} allocator${n === 1 ? '' : 's'} ran out of memory at ${capacityText(r)}: ${who}`);
  }
  if (st.regressions.length > 0) {
    const first = st.regressions[0];
    const more = st.regressions.length > 1 ? ` (and ${st.regressions.length - 1} more)` : '';
    parts.push(`${c.red('▲ regressed')} vs baseline: ${first ? `${first.allocator} ${describeChange(first)}` : ''}${more}`);
  }
  if (st.oom.length === 0) {
    const best = bestRow(r);
    const fits = `${c.green('✔ fits')}: ${n === 1 ? 'the allocator fits' : `all ${n} allocators fit`} (${capacityText(r)})`;
    const bestText = best
      ? `; best ${best.name}: peak reserved ${formatBytes(best.summary.peakReservedBytes)}, ${formatSignedPercent(best.summary.overheadVsLowerBound)} over the lower bound ${formatBytes(r.lowerBound.peakLiveBytes)}`
      : '';
    parts.push(fits + bestText);
  }
  if (st.regressions.length === 0 && st.improvements.length > 0) {
    parts.push(`${c.green('▼ improved')} vs baseline: ${formatCount(st.improvements.length)} figure${st.improvements.length === 1 ? '' : 's'} better`);
  }
  return parts.join(' · ');
}

function baselineSection(r: CompareReport, width: number): string[] {
  const b = r.baseline;
  if (!b) return [];
  const out = wrapHanging(`vs baseline ${b.path} (${formatCount(b.trace.events)} events; allowed regression ${percentText(b.maxRegression)}):`, width, '  ');
  const changed = changedFigures(r);
  if (changed.length > 0) {
    const columns: Column[] = [
      { head: 'allocator', wrap: 'commas' },
      { head: 'figure' },
      { head: 'baseline', align: 'right' },
      { head: 'now', align: 'right' },
      { head: 'change', align: 'right' },
      { head: '', wrap: 'words' },
    ];
    out.push(...tableLines(columns, changed.map(changeCells), { width }));
  }
  out.push(`${formatCount(b.changes.length - changed.length)} figure(s) unchanged`);
  if (b.added.length > 0) out.push(...wrapHanging(`new since the baseline: ${b.added.join(', ')}`, width, '  '));
  if (b.removed.length > 0) out.push(...wrapHanging(`in the baseline only: ${b.removed.join(', ')}`, width, '  '));
  for (const n of b.notes) out.push(`note: ${n}`);
  return [...out, ''];
}

/** The text report of `compare`: status, the table best first, then searches, OOMs, baseline, gates. */
export function renderCompareText(r: CompareReport, options: RenderOptions = {}): string {
  const c = painter(options.color);
  const width = options.width ?? DEFAULT_WIDTH;
  const t = r.trace;
  const out: string[] = [];
  const n = r.allocators.length;
  out.push(
    c.bold(`memsim compare · ${n} allocator${n === 1 ? '' : 's'} · ${capacityText(r)}`) +
      (r.minCapacity ? ` · minimum capacity in steps of ${formatGridBytes(r.minCapacity.stepBytes, r.minCapacity.stepBytes)}` : ''),
    ...wrapHanging(`trace ${t.path} (${t.format}${t.name ? `, "${t.name}"` : ''}): ${formatCount(t.events)} events, ${formatCount(t.allocs)} allocs, ${formatCount(t.frees)} frees, ${formatCount(t.steps)} step${t.steps === 1 ? '' : 's'}`, width, '  '),
  );
  const skippedEvents = t.skipped.unknownFree + t.skipped.doubleAlloc;
  if (skippedEvents > 0) out.push(c.yellow(`skipped (--lenient): ${formatCount(t.skipped.unknownFree)} frees of non-live ids, ${formatCount(t.skipped.doubleAlloc)} allocs of live ids`));
  out.push(compareStatusLine(r, c), '');
  out.push(...tableLines(tableColumns(r), tableRows(r), { width }), '');
  for (const s of r.skipped) out.push(...wrapHanging(`skipped ${s.name}: ${s.reason}`, width, '  '));
  if (r.skipped.length > 0) out.push('');
  if (r.minCapacity) {
    const [head = '', ...more] = wrapHanging(`minimum capacity (smallest capacity, in steps of ${formatGridBytes(r.minCapacity.stepBytes, r.minCapacity.stepBytes)}, at which the whole trace replays without OOM)`, width, '  ');
    out.push(c.bold('minimum capacity') + head.slice('minimum capacity'.length), ...more);
    for (const e of r.allocators) out.push(...wrapHanging(`  ${e.name}: ${searchText(e)}`, width, '    '));
    out.push('');
  }
  const held = comparisonHolders(r.allocators);
  if (held.heading) {
    out.push(c.bold(held.heading));
    for (const b of held.blocks) {
      out.push(b.moment.top.length > 0 ? `${b.title}:` : b.title);
      if (b.moment.top.length > 0) out.push(...holdersText(b.moment, b.groupBy, '', width));
    }
    out.push('');
  }
  for (const e of r.allocators) {
    if (!e.firstOom) continue;
    out.push(`${c.bold(`${e.name}: OOM at event ${formatCount(e.firstOom.event)}`)}${e.firstOom.line !== null ? ` (line ${e.firstOom.line})` : ''}`);
    out.push(...wrap(oomExplanation(e.firstOom), width, '  '));
    const a = e.attribution;
    const at = a?.ooms[0];
    if (a && at && at.top.length > 0) out.push(`  held at this OOM, ${groupedBy(a)}`, ...holdersText(at, a.groupBy, '  ', width));
    out.push('');
  }
  for (const e of r.allocators) {
    const n = e.realOomsReproduced ?? 0;
    if (n === 0) continue;
    out.push(c.bold(`${e.name}: fails where the real run failed`));
    out.push(...wrap(realOomsText(e), width, '  '));
    const a = e.attribution;
    for (const at of a?.realRunOoms ?? []) out.push(`  held at the real run's OOM before event ${formatCount(at.event + 1)}, ${groupedBy(a!)}`, ...holdersText(at, a!.groupBy, '  ', width));
    out.push('');
  }
  out.push(...baselineSection(r, width));
  for (const g of r.gates) {
    out.push(`gate ${g.gate}: ${g.failed ? c.red(`failed (${formatCount(g.failures.length)})`) : c.green('passed')}`);
  }
  if (r.gates.length > 0) out.push('');
  for (const e of r.allocators) for (const note of e.notes) out.push(`note (${e.name}): ${note}`);
  for (const note of r.notes) out.push(`note: ${note}`);
  return out.join('\n').replace(/\n+$/, '') + '\n';
}
