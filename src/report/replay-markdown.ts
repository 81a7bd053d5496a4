import type { ReplayReport } from '../sim/report.js';
import { formatBytes, formatCount, formatPercent, nativeLines } from './format.js';
import { statCell, stepRows } from './replay-text.js';
import { oomExplanation } from './oom-where.js';
import type { GroupBy, MomentHolders } from '../attribution/index.js';
import { groupedBy, HOLDER_ALIGN, holderHead, holderRows, peakMoments } from './holders.js';
import { oomAt } from './oom-where.js';
import { type RealRunOom, realOomAt, realOomTitle, realOomVerdict, realRunOoms } from './real-ooms.js';

/** Escapes text for a Markdown table cell. */
export function mdCell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** A Markdown table. */
export function mdTable(head: string[], rows: string[][], align?: ('left' | 'right')[]): string {
  const sep = head.map((_, i) => ((align?.[i] ?? 'left') === 'right' ? '---:' : '---'));
  return [head, sep, ...rows].map((r, k) => `| ${(k === 1 ? r : r.map(mdCell)).join(' | ')} |`).join('\n');
}

/** Text for Markdown outside a table cell: pipes and backslashes escaped, angle brackets as entities. */
export function mdText(s: string): string {
  return mdCell(s).replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A Markdown table of who holds the memory at one moment (keys whole, as code). */
export function holdersMarkdown(m: MomentHolders, groupBy: GroupBy): string {
  return mdTable(holderHead(groupBy), holderRows(m, (k) => `\`${k.replace(/`/g, "'")}\``), HOLDER_ALIGN);
}

/** The Markdown report of a replay: status line first, tables, detail in `<details>`. */
export function renderReplayMarkdown(r: ReplayReport): string {
  const s = r.summary;
  // A run that failed requests served less than the trace holds: its peak of live bytes is no bound.
  const cut = s.oomCount > 0 && s.peakLiveBytes !== r.trace.peakLiveBytes;
  const out: string[] = [];
  const cap = r.capacityBytes === null ? 'no capacity limit' : `capacity ${formatBytes(r.capacityBytes)}`;
  const real = realRunOoms(r);
  const reproduced = real.findIndex((o) => o.reproduced === true);
  if (s.oomCount === 0 && reproduced >= 0) {
    const o = real[reproduced] as RealRunOom;
    out.push(`**❌ the real run's OOM ${realOomAt(o)}** with \`${r.allocator.name}\`: ${realOomVerdict(o, r.attribution?.realRunOoms?.[reproduced])}`);
  } else if (s.oomCount === 0) {
    const unmatched = real.length > 0 ? `; the real run's ${real.length === 1 ? 'OOM is' : `${formatCount(real.length)} OOMs are`} not reproduced` : '';
    out.push(`**✅ fits** with \`${r.allocator.name}\`: peak reserved ${formatBytes(s.peakReservedBytes)} (${cap}), lower bound ${formatBytes(s.peakLiveBytes)}${unmatched}`);
  } else {
    const o = r.ooms[0];
    out.push(
      `**❌ ${formatCount(s.oomCount)} OOM${s.oomCount > 1 ? 's' : ''}** with \`${r.allocator.name}\` (${cap})` +
        (o ? `: first at event ${formatCount(o.event)}, ${o.kind === 'capacity' ? 'too little memory' : 'fragmentation'}` : ''),
    );
  }
  out.push('', `Trace \`${mdCell(r.trace.path)}\`: ${formatCount(r.trace.events)} events, ${formatCount(r.trace.steps)} steps.`, '');
  out.push(
    mdTable(
      ['figure', 'value'],
      [
        ...(cut
          ? [
              ['peak live served', formatBytes(s.peakLiveBytes)],
              ["lower bound (the trace's peak live)", formatBytes(r.trace.peakLiveBytes)],
            ]
          : [['peak live (lower bound)', formatBytes(s.peakLiveBytes)]]),
        ['peak allocated', formatBytes(s.peakAllocatedBytes)],
        ['peak reserved', formatBytes(s.peakReservedBytes)],
        ['utilization', formatPercent(s.utilization)],
        ['fragmentation', formatPercent(s.fragmentation)],
        ['internal / external fragmentation at peak', `${formatPercent(s.internalFragmentation)} / ${formatPercent(s.externalFragmentation)}`],
        ['overhead vs lower bound', cut ? '– (not every request served)' : formatPercent(s.overheadVsLowerBound)],
        ['device calls (alloc / free)', `${formatCount(s.deviceAllocCalls)} / ${formatCount(s.deviceFreeCalls)}`],
        ['OOMs', formatCount(s.oomCount)],
      ],
      ['left', 'right'],
    ),
  );
  const a = r.attribution;
  if (a) {
    for (const { title, moment } of peakMoments(a, r.trace.initialEvents - 1)) {
      out.push('', `<details><summary>${title[0]?.toUpperCase()}${title.slice(1)}, ${groupedBy(a)}</summary>`, '', holdersMarkdown(moment, a.groupBy), '', '</details>');
    }
  }
  r.ooms.slice(0, 5).forEach((o, k) => {
    out.push('', `<details><summary>OOM ${oomAt(o)}: ${o.recorded ? "the real run's request" : mdCell(o.id)} of ${formatBytes(o.sizeBytes)} — ${o.kind}</summary>`, '');
    out.push(`**${o.kind === 'capacity' ? 'capacity (too little memory)' : 'fragmentation'}**: ${mdText(oomExplanation(o))}`, '');
    const held = a?.ooms[k];
    if (a && held) out.push(`Held at this OOM, ${groupedBy(a)}:`, '', holdersMarkdown(held, a.groupBy), '');
    const native = nativeLines(o.native, 'full');
    if (native.length > 0) out.push('```', ...native, '```');
    out.push('</details>');
  });
  real.slice(0, 5).forEach((o, k) => {
    const held = a?.realRunOoms?.[k];
    const title = mdText(realOomTitle(o, held));
    out.push('', `<details><summary>${title[0]?.toUpperCase()}${title.slice(1)}</summary>`, '');
    if (a && held) out.push(`Held when the real run failed, ${groupedBy(a)}:`, '', holdersMarkdown(held, a.groupBy), '');
    if (o.reproduced === true && o.message !== undefined) out.push('```', ...nativeLines(o.message, 'full'), '```');
    out.push('</details>');
  });
  const stats = Object.entries(r.allocator.stats);
  if (stats.length > 0) {
    out.push('', `<details><summary>${r.allocator.name} stats</summary>`, '');
    out.push(mdTable(['stat', 'value'], stats.map(([k, v]) => [k, statCell(k, v)]), ['left', 'right']));
    out.push('', '</details>');
  }
  if (r.steps.length > 1) {
    const rows = stepRows(r.steps).map((st) =>
      st === null
        ? ['…', '', '', '', '']
        : [formatCount(st.step), formatCount(st.events), formatBytes(st.peakLiveBytes), formatBytes(st.peakAllocatedBytes), formatBytes(st.peakReservedBytes)],
    );
    out.push('', '<details><summary>Per step</summary>', '');
    out.push(mdTable(['step', 'events', 'peak live', 'peak allocated', 'peak reserved'], rows, ['right', 'right', 'right', 'right', 'right']));
    out.push('', '</details>');
  }
  if (r.notes.length > 0) out.push('', ...r.notes.map((n) => `> ${n}`));
  return out.join('\n') + '\n';
}
