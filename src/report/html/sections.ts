import type { CompareReport } from '../../sweep/compare.js';
import type { VisualReport, VisualRun } from '../../sim/visual.js';
import { capacityText, changeCells, changedFigures, formatSignedPercent, searchText, tableHead, tableRows } from '../compare-table.js';
import { formatBytes, formatCount, formatPercent } from '../format.js';
import { statCell } from '../replay-text.js';
import { oomExplanation } from '../oom-where.js';
import { esc } from './escape.js';
import { oomWhat, oomWhere } from '../oom-where.js';
import { HOLDER_ALIGN, holderHead, holderRows } from '../holders.js';
import { realOomAt, realOomTitle, realOomVerdict } from '../real-ooms.js';

/** OOMs drawn in full (explanation and native text) per allocator; the rest are listed in a table. */
const OOMS_IN_FULL = 16;

/** An HTML table; cells are text (escaped here), `right` columns align numbers. */
export function htmlTable(head: string[], rows: string[][], align: ('left' | 'right')[] = [], attrs = ''): string {
  const cls = (k: number): string => (align[k] === 'right' ? ' class="num"' : '');
  const th = head.map((h, k) => `<th${cls(k)}>${esc(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c, k) => `<td${cls(k)}>${esc(c)}</td>`).join('')}</tr>`).join('\n');
  return `<div class="table-wrap"><table${attrs}><thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

function optionText(options: Record<string, unknown>): string {
  return Object.entries(options).map(([k, v]) => `${k}=${v === null ? 'none' : String(v)}`).join(' ');
}

/** The title, the trace in one line, and the outcome of each allocator. */
export function headerHtml(d: VisualReport<CompareReport>): string {
  const t = d.trace;
  const cap = d.capacityBytes === null ? 'unlimited capacity' : `capacity ${formatBytes(d.capacityBytes)}`;
  const traceLine =
    `Trace <code>${esc(t.path)}</code> (${esc(t.format)}${t.name ? `, “${esc(t.name)}”` : ''}): ${formatCount(t.events)} events, ` +
    `${formatCount(t.allocs)} allocs, ${formatCount(t.frees)} frees, ${formatCount(t.steps)} step${t.steps === 1 ? '' : 's'}; ` +
    `${cap}; on OOM: ${d.onOom}; lower bound (peak live) ${formatBytes(t.peakLiveBytes)}.`;
  const lines = d.runs.map((r) => {
    const s = r.summary;
    const real = r.realRunOoms?.find((o) => o.reproduced === true);
    if (s.oomCount === 0 && real) {
      return `<p class="status bad">✘ <code>${esc(r.name)}</code>: the real run's OOM ${esc(realOomAt(real))} is ${esc(realOomVerdict(real, real.holders ?? undefined).replace(/^reproduced by this simulation/, 'reproduced'))}</p>`;
    }
    if (s.oomCount === 0) {
      return `<p class="status good">✔ <code>${esc(r.name)}</code> fits: peak reserved ${formatBytes(s.peakReservedBytes)} (${formatSignedPercent(s.overheadVsLowerBound)} over the lower bound)</p>`;
    }
    const o = r.ooms[0];
    const first = o ? `; the first at event ${formatCount(o.event)}, ${o.kind === 'capacity' ? 'too little memory' : 'fragmentation'}` : '';
    return `<p class="status bad">✘ <code>${esc(r.name)}</code>: ${formatCount(s.oomCount)} OOM${s.oomCount === 1 ? '' : 's'}${first}</p>`;
  });
  const title = t.name ?? t.path;
  return `<header>\n<h1>memsim ${esc(d.command)} <span class="sub">· ${esc(title)}</span></h1>\n<p>${traceLine}</p>\n${lines.join('\n')}\n</header>`;
}

/** Figures (rows) by allocator (columns): the `summary` of each replay. */
export function summaryHtml(d: VisualReport<CompareReport>): string {
  if (d.runs.length === 0) return '<p class="muted">No allocator was replayed.</p>';
  const figures: [string, (r: VisualRun) => string][] = [
    ['peak live', (r) => formatBytes(r.summary.peakLiveBytes)],
    ['peak allocated', (r) => formatBytes(r.summary.peakAllocatedBytes)],
    ['peak reserved', (r) => formatBytes(r.summary.peakReservedBytes)],
    ['peak reserved at event', (r) => (r.summary.peakReservedEvent >= 0 ? formatCount(r.summary.peakReservedEvent) : '–')],
    ['utilization', (r) => formatPercent(r.summary.utilization)],
    ['fragmentation', (r) => formatPercent(r.summary.fragmentation)],
    ['internal fragmentation at peak', (r) => formatPercent(r.summary.internalFragmentation)],
    ['external fragmentation at peak', (r) => formatPercent(r.summary.externalFragmentation)],
    ['overhead vs lower bound', (r) => (r.summary.oomCount > 0 ? '–' : formatSignedPercent(r.summary.overheadVsLowerBound))],
    ['device calls (alloc / free)', (r) => `${formatCount(r.summary.deviceAllocCalls)} / ${formatCount(r.summary.deviceFreeCalls)}`],
    ['final reserved', (r) => formatBytes(r.summary.finalReservedBytes)],
    ['events replayed', (r) => formatCount(r.summary.eventsReplayed)],
    ['OOMs', (r) => formatCount(r.summary.oomCount)],
  ];
  const head = ['figure', ...d.runs.map((r) => r.name)];
  const rows = figures.map(([label, f]) => [label, ...d.runs.map(f)]);
  return htmlTable(head, rows, ['left', ...d.runs.map(() => 'right' as const)], ' id="summary-table"');
}

/** The comparison: ranked table, baseline, minimum-capacity search, gates, skipped rows. */
export function compareHtml(r: CompareReport): string {
  const out: string[] = [];
  const { head, align } = tableHead(r);
  out.push(`<p>Ranked: no OOM first, then the lowest peak reserved (${esc(capacityText(r))}).</p>`);
  out.push(htmlTable(head, tableRows(r), align, ' id="compare-table"'));
  const b = r.baseline;
  if (b) {
    const changed = changedFigures(r);
    out.push(`<h3>Against the baseline <code>${esc(b.path)}</code>: ${b.regressions} worse, ${b.improvements} better</h3>`);
    if (changed.length > 0) out.push(htmlTable(['allocator', 'figure', 'baseline', 'now', 'change', ''], changed.map(changeCells), ['left', 'left', 'right', 'right', 'right', 'left']));
    out.push(`<p>${formatCount(b.changes.length - changed.length)} figure(s) unchanged.</p>`);
    for (const n of b.notes) out.push(`<p class="note">${esc(n)}</p>`);
  }
  if (r.minCapacity) {
    out.push('<h3>Minimum capacity</h3><ul>');
    for (const e of r.allocators) out.push(`<li><code>${esc(e.name)}</code>: ${esc(searchText(e))}</li>`);
    out.push('</ul>');
  }
  if (r.gates.length > 0) {
    out.push(`<h3>Gates: ${r.gates.filter((g) => g.failed).length} of ${r.gates.length} failed</h3><ul>`);
    for (const g of r.gates) {
      out.push(`<li><code>${esc(g.gate)}</code>: ${g.failed ? '<strong class="status bad">failed</strong>' : 'passed'}`);
      for (const f of g.failures) out.push(`<br><span class="note">${esc(f.message)}</span>`);
      out.push('</li>');
    }
    out.push('</ul>');
  }
  for (const s of r.skipped) out.push(`<p class="note">Skipped <code>${esc(s.name)}</code>: ${esc(s.reason)}</p>`);
  for (const n of r.notes) out.push(`<p class="note">${esc(n)}</p>`);
  return out.join('\n');
}

function oomDetails(run: VisualRun, runIndex: number, k: number): string {
  const o = run.ooms[k];
  if (!o) return '';
  const hasState = run.states.some((s) => s.reason === 'oom' && s.oom === k);
  const where = oomWhere(o);
  const button = hasState ? `<button type="button" class="show-oom" data-run="${runIndex}" data-oom="${k}">show the state at this OOM</button>` : '<span class="note">(state not captured)</span>';
  return [
    `<details class="oom"${k === 0 ? ' open' : ''} id="oom-${runIndex}-${k}">`,
    o.recorded
      ? `<summary>OOM ${k + 1} ${where}: ${esc(oomWhat(o))} — ${o.kind}</summary>`
      : `<summary>OOM ${k + 1} ${where}: <code>${esc(o.id)}</code>${o.tag ? ` (${esc(o.tag)})` : ''} of ${formatBytes(o.sizeBytes)}, rounded to ${formatBytes(o.roundedBytes)} — ${o.kind}</summary>`,
    `<p><strong>${o.kind === 'capacity' ? 'capacity (too little memory)' : 'fragmentation'}</strong>: ${esc(oomExplanation(o))} ${button}</p>`,
    o.native ? `<p class="muted">${esc(run.name)} says:</p>\n<pre class="native">${esc(o.native)}</pre>` : '',
    '</details>',
  ].join('\n');
}

/** The real run's OOMs a simulation met: the verdict, who held the memory then, the simulation's message. */
function realOomsHtml(run: VisualRun, runIndex: number): string[] {
  return (run.realRunOoms ?? []).slice(0, OOMS_IN_FULL).map((o, k) => {
    const held = o.holders;
    const group = run.attribution ? `, by ${run.attribution.groupBy}` : '';
    const title = realOomTitle(o, held ?? undefined);
    const hasState = run.states.some((s) => s.realOom === k);
    return [
      `<details class="oom"${k === 0 ? ' open' : ''}>`,
      `<summary>${esc(`${title[0]?.toUpperCase()}${title.slice(1)}`)}</summary>`,
      held ? `<p>Held when the real run failed${esc(group)}:</p>\n${htmlTable(holderHead(run.attribution?.groupBy ?? 'tag'), holderRows(held, (x) => x), HOLDER_ALIGN)}` : '',
      hasState ? `<p><button type="button" class="show-real-oom" data-run="${runIndex}" data-real-oom="${k}">show ${esc(run.name)}'s state when the real run failed</button></p>` : '',
      o.reproduced === true && o.message !== undefined ? `<p class="muted">${esc(run.name)} says:</p>\n<pre class="native">${esc(o.message)}</pre>` : '',
      '</details>',
    ].join('\n');
  });
}

/** Each allocator's OOMs: the first ones in full with the native text, the others in a table. */
export function oomsHtml(d: VisualReport<CompareReport>): string {
  const out: string[] = [];
  d.runs.forEach((run, r) => {
    const real = realOomsHtml(run, r);
    if (real.length > 0) out.push(`<h3><code>${esc(run.name)}</code>: the real run's OOM${run.realRunOoms!.length === 1 ? '' : 's'}</h3>`, ...real);
    if (run.summary.oomCount === 0) return;
    out.push(`<h3><code>${esc(run.name)}</code>: ${formatCount(run.summary.oomCount)} OOM${run.summary.oomCount === 1 ? '' : 's'}</h3>`);
    const full = Math.min(run.ooms.length, OOMS_IN_FULL);
    for (let k = 0; k < full; k++) out.push(oomDetails(run, r, k));
    if (run.ooms.length > full) {
      const rows = run.ooms.slice(full).map((o, j) => [String(full + j + 1), formatCount(o.event), o.id, formatBytes(o.sizeBytes), o.kind]);
      out.push(`<details><summary>${run.ooms.length - full} more OOM records</summary>${htmlTable(['#', 'event', 'id', 'size', 'kind'], rows, ['right', 'right', 'left', 'right', 'left'])}</details>`);
    }
    if (run.summary.oomCount > run.ooms.length) out.push(`<p class="note">${formatCount(run.summary.oomCount - run.ooms.length)} further OOMs counted, not recorded in detail.</p>`);
  });
  return out.length > 0 ? out.join('\n') : '<p class="muted">No allocator ran out of memory.</p>';
}

/** Each allocator's options, own statistics and notes. */
export function detailsHtml(d: VisualReport<CompareReport>): string {
  const out: string[] = [];
  for (const run of d.runs) {
    out.push(`<details><summary><code>${esc(run.name)}</code>: options and statistics</summary>`);
    out.push(`<p>Options: <code>${esc(optionText(run.options) || '(none)')}</code></p>`);
    const stats = Object.entries(run.stats);
    if (stats.length > 0) out.push(htmlTable(['stat', 'value'], stats.map(([k, v]) => [k, statCell(k, v)]), ['left', 'right']));
    for (const n of run.notes) out.push(`<p class="note">${esc(n)}</p>`);
    out.push('</details>');
  }
  const noTimeline = d.compare?.allocators.filter((e) => !d.runs.some((r) => r.name === e.name)) ?? [];
  if (noTimeline.length > 0) {
    out.push(`<p class="note">No timeline or state for ${noTimeline.map((e) => `<code>${esc(e.name)}</code>`).join(', ')}: ${noTimeline.length === 1 ? 'it is' : 'they are'} not replayed event by event (offline plans); the tables above have ${noTimeline.length === 1 ? 'its' : 'their'} figures.</p>`);
  }
  for (const n of d.notes) out.push(`<p class="note">${esc(n)}</p>`);
  return out.join('\n');
}
