import { describeChange, percentText } from '../sweep/compare-gates.js';
import type { CompareReport } from '../sweep/compare.js';
import { bestRow, capacityText, failureKind, realOomsText, changeCells, formatGridBytes, changedFigures, formatSignedPercent, searchText, status, tableHead, tableRows } from './compare-table.js';
import { formatBytes, formatCount, nativeLines } from './format.js';
import { mdCell, mdTable } from './replay-markdown.js';
import { oomExplanation } from './oom-where.js';
import { holdersMarkdown, mdText } from './replay-markdown.js';
import { comparisonHolders, groupedBy } from './holders.js';

/** The first line of the Markdown report: ❌ OOM, 📈 regressed, or ✅ fits, with the facts. */
export function compareStatusMarkdown(r: CompareReport): string {
  const st = status(r);
  const n = r.allocators.length;
  const code = (s: string): string => `\`${s}\``;
  const parts: string[] = [];
  if (st.oom.length > 0) {
    const who = st.oom.map((e) => `${code(e.name)} (${failureKind(e)})`).join(', ');
    parts.push(`**❌ OOM**: ${formatCount(st.oom.length)} of ${formatCount(n)} allocator${n === 1 ? '' : 's'} ran out of memory at ${capacityText(r)}: ${who}`);
  }
  if (st.regressions.length > 0) {
    const first = st.regressions[0];
    const more = st.regressions.length > 1 ? ` (and ${st.regressions.length - 1} more)` : '';
    parts.push(`**📈 regressed** vs baseline: ${first ? `${code(first.allocator)} ${describeChange(first)}` : ''}${more}`);
  }
  if (st.oom.length === 0) {
    const best = bestRow(r);
    const fits = `**✅ fits**: ${n === 1 ? 'the allocator fits' : `all ${n} allocators fit`} (${capacityText(r)})`;
    const bestText = best
      ? `; best ${code(best.name)}: peak reserved ${formatBytes(best.summary.peakReservedBytes)}, ${formatSignedPercent(best.summary.overheadVsLowerBound)} over the lower bound ${formatBytes(r.lowerBound.peakLiveBytes)}`
      : '';
    parts.push(fits + bestText);
  }
  if (st.regressions.length === 0 && st.improvements.length > 0) {
    parts.push(`📉 improved vs baseline: ${formatCount(st.improvements.length)} figure${st.improvements.length === 1 ? '' : 's'} better`);
  }
  return parts.join(' · ');
}

function details(summary: string, body: string[]): string[] {
  return ['', `<details><summary>${summary}</summary>`, '', ...body, '', '</details>'];
}

/**
 * The Markdown report of `compare`, fit for a pull-request comment or `$GITHUB_STEP_SUMMARY`:
 * status line first, the table, and everything else collapsed.
 */
export function renderCompareMarkdown(r: CompareReport): string {
  const t = r.trace;
  const out: string[] = [compareStatusMarkdown(r), ''];
  out.push(
    `Trace \`${mdCell(t.path)}\`${t.name ? ` (${mdCell(t.name)})` : ''}: ${formatCount(t.events)} events, ${formatCount(t.steps)} step${t.steps === 1 ? '' : 's'}; ${capacityText(r)}` +
      (r.minCapacity ? `; minimum capacity in steps of ${formatGridBytes(r.minCapacity.stepBytes, r.minCapacity.stepBytes)}.` : '.'),
    '',
  );
  const { head, align } = tableHead(r);
  out.push(mdTable(head, tableRows(r), align));
  const b = r.baseline;
  if (b) {
    const changed = changedFigures(r);
    const body = [`Baseline \`${mdCell(b.path)}\` (${formatCount(b.trace.events)} events); allowed regression ${percentText(b.maxRegression)}.`, ''];
    if (changed.length > 0) body.push(mdTable(['allocator', 'figure', 'baseline', 'now', 'change', ''], changed.map(changeCells), ['left', 'left', 'right', 'right', 'right', 'left']), '');
    body.push(`${formatCount(b.changes.length - changed.length)} figure(s) unchanged.`);
    if (b.added.length > 0) body.push('', `New since the baseline: ${b.added.map((x) => `\`${x}\``).join(', ')}.`);
    if (b.removed.length > 0) body.push('', `In the baseline only: ${b.removed.map((x) => `\`${x}\``).join(', ')}.`);
    for (const n of b.notes) body.push('', `> ${n}`);
    out.push(...details(`vs baseline: ${b.regressions} worse, ${b.improvements} better`, body));
  }
  if (r.minCapacity) {
    const body = [
      `Smallest capacity, in steps of ${formatGridBytes(r.minCapacity.stepBytes, r.minCapacity.stepBytes)}, at which the whole trace replays without OOM.`,
      '',
      ...r.allocators.map((e) => `- \`${e.name}\`: ${searchText(e)}`),
    ];
    out.push(...details('Minimum capacity search', body));
  }
  for (const e of r.allocators) {
    const o = e.firstOom;
    if (!o) continue;
    const body = [mdText(oomExplanation(o))];
    const a = e.attribution;
    const at = a?.ooms[0];
    if (a && at) body.push('', `Held at this OOM, ${groupedBy(a)}:`, '', holdersMarkdown(at, a.groupBy));
    const native = nativeLines(o.native, 'full');
    if (native.length > 0) body.push('', '```', ...native, '```');
    out.push(...details(`\`${e.name}\`: OOM at event ${formatCount(o.event)}${o.line !== null ? ` (line ${o.line})` : ''} — ${o.kind}`, body));
  }
  for (const e of r.allocators) {
    if ((e.realOomsReproduced ?? 0) === 0) continue;
    const body = [mdText(realOomsText(e))];
    const a = e.attribution;
    for (const at of a?.realRunOoms ?? []) body.push('', `Held at the real run's OOM before event ${formatCount(at.event + 1)}, ${groupedBy(a!)}:`, '', holdersMarkdown(at, a!.groupBy));
    out.push(...details(`\`${e.name}\`: fails where the real run failed`, body));
  }
  const held = comparisonHolders(r.allocators);
  if (held.heading) {
    const body = held.blocks.flatMap((b) => (b.moment.top.length > 0 ? [`${b.title}:`, '', holdersMarkdown(b.moment, b.groupBy), ''] : [`${b.title}.`, '']));
    out.push(...details(`${held.heading[0]?.toUpperCase()}${held.heading.slice(1)}`, body.slice(0, -1)));
  }
  if (r.gates.length > 0) {
    const body = r.gates.flatMap((g) => [`- \`${g.gate}\`: ${g.failed ? '**failed**' : 'passed'}`, ...g.failures.map((f) => `  - ${mdCell(f.message)}`)]);
    out.push(...details(`Gates: ${r.gates.filter((g) => g.failed).length} of ${r.gates.length} failed`, body));
  }
  const optionRows = r.allocators.map((e) => [e.name, e.kind, Object.entries(e.options).map(([k, v]) => `${k}=${v === null ? 'none' : String(v)}`).join(' ') || '—']);
  out.push(...details('Options', [mdTable(['allocator', 'kind', 'options'], optionRows)]));
  const notes = [
    ...r.skipped.map((s) => `skipped \`${s.name}\`: ${s.reason}`),
    ...r.allocators.flatMap((e) => e.notes.map((n) => `\`${e.name}\`: ${n}`)),
    ...r.notes,
  ];
  for (const n of notes) out.push('', `> ${n}`);
  return out.join('\n') + '\n';
}
