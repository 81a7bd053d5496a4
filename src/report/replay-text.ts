import type { ReplayReport } from '../sim/report.js';
import { originFormat } from '../trace/model.js';
import type { StepRecord } from '../sim/replay.js';
import { formatBytes, formatCount, formatPercent, nativeLines, painter, type RenderOptions, sparkline } from './format.js';
import { oomAt, oomExplanation, oomWhat, oomWhere } from './oom-where.js';
import type { ChalkInstance } from 'chalk';
import type { GroupBy, MomentHolders } from '../attribution/index.js';
import { eventAt, groupedBy, holderColumns, holderRows, peakMoments } from './holders.js';
import { DEFAULT_WIDTH, tableLines, wrap, wrapHanging } from './layout.js';
import { type RealRunOom, realOomAt, realOomTitle, realOomVerdict, realRunOoms } from './real-ooms.js';

/** One line that says how the replay ended. */
export function statusLine(r: ReplayReport, c: ChalkInstance): string {
  const s = r.summary;
  if (s.oomCount === 0) {
    const real = realRunOoms(r);
    const k = real.findIndex((o) => o.reproduced === true);
    if (k >= 0) {
      // The simulation fails where the real run failed: that is the answer, not "fits".
      const o = real[k] as RealRunOom;
      const more = real.length > 1 ? ` (${formatCount(real.length)} OOMs in the real run)` : '';
      return `${c.red(`✘ the real run's OOM ${realOomAt(o)}`)} ${realOomVerdict(o, r.attribution?.realRunOoms?.[k]).replace(/^reproduced by this simulation/, 'is reproduced')}${more}`;
    }
    const cap = r.capacityBytes === null ? 'no capacity limit' : `capacity ${formatBytes(r.capacityBytes)}`;
    const unmatched = real.length > 0 ? `; the real run's ${real.length === 1 ? 'OOM is' : `${formatCount(real.length)} OOMs are`} not reproduced (see below)` : '';
    return `${c.green('✔ fits')}: peak reserved ${formatBytes(s.peakReservedBytes)} (${cap}), lower bound ${formatBytes(s.peakLiveBytes)}${unmatched}`;
  }
  const first = r.ooms[0];
  const where = first ? ` ${oomAt(first)}` : '';
  const kind = first ? ` — ${first.kind === 'capacity' ? 'too little memory' : 'fragmentation'}` : '';
  return `${c.red(`✘ ${formatCount(s.oomCount)} OOM${s.oomCount > 1 ? 's' : ''}`)}${where}${kind}`;
}

function summaryTable(r: ReplayReport, width: number): string[] {
  const s = r.summary;
  // The last of the events that rebuild the state when the trace's window opened (see sim/replay.ts).
  const opened = r.trace.initialEvents - 1;
  const at = (event: number): string => (event < 0 ? '' : eventAt(event, opened));
  // A run that failed requests served less than the trace holds: its peak of live bytes is no bound.
  const cut = s.oomCount > 0 && s.peakLiveBytes !== r.trace.peakLiveBytes;
  const rows = [
    ...(cut
      ? [
          ['peak live served', formatBytes(s.peakLiveBytes), at(s.peakLiveEvent)],
          ['lower bound', formatBytes(r.trace.peakLiveBytes), "the trace's peak live"],
        ]
      : [['peak live (lower bound)', formatBytes(s.peakLiveBytes), at(s.peakLiveEvent)]]),
    ['peak allocated', formatBytes(s.peakAllocatedBytes), ''],
    ['peak reserved', formatBytes(s.peakReservedBytes), at(s.peakReservedEvent)],
    ['utilization', formatPercent(s.utilization), 'peak live / peak reserved'],
    ['fragmentation', formatPercent(s.fragmentation), '1 - utilization'],
    ['internal fragmentation', formatPercent(s.internalFragmentation), 'at peak reserved'],
    ['external fragmentation', formatPercent(s.externalFragmentation), 'at peak reserved'],
    cut ? ['overhead vs lower bound', '–', 'not every request served'] : ['overhead vs lower bound', formatPercent(s.overheadVsLowerBound), ''],
    ['device calls', `${formatCount(s.deviceAllocCalls)} / ${formatCount(s.deviceFreeCalls)}`, 'alloc / free'],
    ['final live / allocated', `${formatBytes(s.finalLiveBytes)} / ${formatBytes(s.finalAllocatedBytes)}`, ''],
    ['final reserved', formatBytes(s.finalReservedBytes), ''],
    ['OOMs', formatCount(s.oomCount), s.ignoredFrees > 0 ? `${formatCount(s.ignoredFrees)} frees of failed allocs ignored` : ''],
  ];
  return tableLines([{ head: 'figure', wrap: 'words' }, { head: 'value', align: 'right', wrap: 'words' }, { head: 'where', wrap: 'words', drop: 1 }], rows, { width });
}

/** A text table of who holds the memory at one moment, indented by `indent`, within `width` columns. */
export function holdersText(m: MomentHolders, groupBy: GroupBy, indent = '', width = DEFAULT_WIDTH): string[] {
  // The key column takes the room the others leave (the JSON report has every key whole).
  return tableLines(holderColumns(groupBy), holderRows(m, (k) => k), { width, indent });
}

/** The holders at the peaks, each under its title ("held at the peak …"). */
function peakHolders(r: ReplayReport, c: ChalkInstance, width: number): string[] {
  const a = r.attribution;
  if (!a) return [];
  const out: string[] = [];
  for (const { title, moment } of peakMoments(a, r.trace.initialEvents - 1)) out.push(...wrap(`${title}, ${groupedBy(a)}`, width).map((l) => c.bold(l)), ...holdersText(moment, a.groupBy, '', width), '');
  return out;
}

function oomSection(r: ReplayReport, c: ChalkInstance, mode: 'compact' | 'full' | 'none', width: number): string[] {
  const out: string[] = [];
  const shown = mode === 'full' ? r.ooms : r.ooms.slice(0, 3);
  shown.forEach((o, k) => {
    out.push(...wrap(`OOM ${oomWhere(o)}: ${oomWhat(o)}`, width).map((l) => c.bold(l)));
    const kind = o.kind === 'capacity' ? c.red('capacity (too little memory)') : c.yellow('fragmentation');
    const [first, ...rest] = wrap(`${o.kind === 'capacity' ? 'capacity (too little memory)' : 'fragmentation'}: ${oomExplanation(o)}`, width, '  ');
    // The verdict word keeps its colour.
    out.push((first ?? '').replace(/^ {2}(capacity \(too little memory\)|fragmentation)/, `  ${kind}`), ...rest);
    const held = r.attribution?.ooms[k];
    if (held && r.attribution) out.push(`  held at this OOM, ${groupedBy(r.attribution)}`, ...holdersText(held, r.attribution.groupBy, '  ', width));
    const native = nativeLines(o.native, mode, undefined, o.nativeSummary);
    if (native.length > 0) {
      out.push(`  ${r.allocator.name} says:`);
      for (const l of native) out.push(`    ${l}`);
    }
    out.push('');
  });
  if (r.ooms.length > shown.length) out.push(`… ${formatCount(r.ooms.length - shown.length)} more OOM records in the JSON report`, '');
  if (r.summary.oomCount > r.ooms.length) out.push(`(${formatCount(r.summary.oomCount - r.ooms.length)} further OOMs counted, not recorded in detail)`, '');
  return out;
}

/** The real run's OOMs that a simulation of its history met: the verdict, who held the memory, the message. */
function realOomSection(r: ReplayReport, c: ChalkInstance, mode: 'compact' | 'full' | 'none', width: number): string[] {
  const real = realRunOoms(r);
  const shown = mode === 'full' ? real : real.slice(0, 3);
  const out: string[] = [];
  shown.forEach((o, k) => {
    const held = r.attribution?.realRunOoms?.[k];
    out.push(...wrap(realOomTitle(o, held), width).map((l) => c.bold(l)));
    if (held && r.attribution) out.push(`  held when the real run failed, ${groupedBy(r.attribution)}`, ...holdersText(held, r.attribution.groupBy, '  ', width));
    const native = o.reproduced === true && o.message !== undefined ? nativeLines(o.message, mode) : [];
    if (native.length > 0) {
      out.push(`  ${r.allocator.name} says:`);
      for (const l of native) out.push(`    ${l}`);
    }
    out.push('');
  });
  if (real.length > shown.length) out.push(`… ${formatCount(real.length - shown.length)} more of the real run's OOMs in the JSON report (fidelity.recordedOoms)`, '');
  return out;
}

/** Rows of the per-step table: all of them, or the first and last dozen around an ellipsis. */
export function stepRows(steps: readonly StepRecord[], keep = 12): (StepRecord | null)[] {
  if (steps.length <= keep * 2) return [...steps];
  return [...steps.slice(0, keep), null, ...steps.slice(-keep)];
}

function stepTable(r: ReplayReport, width: number): string[] {
  const rows = stepRows(r.steps).map((s) =>
    s === null
      ? ['…', '', '', '', '']
      : [formatCount(s.step), formatCount(s.events), formatBytes(s.peakLiveBytes), formatBytes(s.peakAllocatedBytes), formatBytes(s.peakReservedBytes)],
  );
  const heads: [string, number][] = [['step', 0], ['events', 1], ['peak live', 0], ['peak allocated', 2], ['peak reserved', 0]];
  return tableLines(heads.map(([head, drop]) => ({ head, align: 'right', drop })), rows, { width });
}

/** A stats value in one cell: scalars as they are, bytes fields readable, lists and objects counted. */
export function statCell(key: string, v: unknown): string {
  if (v === null || v === undefined) return 'none';
  if (typeof v === 'number') return /bytes|Bytes/.test(key) && Number.isFinite(v) ? `${formatBytes(v)} (${formatCount(v)})` : Number.isInteger(v) ? formatCount(v) : String(v);
  if (typeof v === 'object') {
    const json = JSON.stringify(v);
    if (json.length <= 60) return json;
    return Array.isArray(v) ? `${formatCount(v.length)} item${v.length === 1 ? '' : 's'} (JSON report)` : `${formatCount(Object.keys(v as object).length)} fields (JSON report)`;
  }
  return String(v);
}

/** The allocator's own statistics, as the real allocator names them. */
function statsTable(r: ReplayReport, width: number): string[] {
  const entries = Object.entries(r.allocator.stats);
  if (entries.length === 0) return [];
  const rows = entries.map(([k, v]) => [k, statCell(k, v)]);
  return tableLines([{ head: `${r.allocator.name} stats`, wrap: (k, w) => `${k.slice(0, w - 1)}…`, minWidth: 12 }, { head: 'value', align: 'right', wrap: 'words' }], rows, { width });
}

/** reserved and live over the trace as two sparklines on one scale. */
export function sparklines(r: ReplayReport, width = 64): string[] {
  if (width < 8) return [];
  const pts = r.timeline.points;
  if (pts.length === 0) return [];
  const xs = pts.map((p) => p[0]);
  const xMax = Math.max(1, r.summary.eventsReplayed - 1);
  const max = Math.max(...pts.map((p) => p[3]), ...pts.map((p) => p[1]));
  return [
    `reserved ${sparkline(xs, pts.map((p) => p[3]), width, max, xMax)} ${formatBytes(r.summary.peakReservedBytes)}`,
    `live     ${sparkline(xs, pts.map((p) => p[1]), width, max, xMax)} ${formatBytes(r.summary.peakLiveBytes)}`,
  ];
}

/** Why the report shows this allocator, when no one named it. */
function chosenText(r: ReplayReport): string {
  const by = r.allocator.chosenBy;
  if (by === undefined || by === 'request') return '';
  if (by === 'default') return ' (the default for this trace; -a to choose)';
  const origin = originFormat(r.trace);
  const own = origin === 'pytorch-snapshot' ? "the snapshot's own" : origin === 'tflog' ? "the log's own" : "the trace's own";
  return ` (${own}; -a to choose)`;
}

/** The options that differ from the allocator's defaults (all of them are in the JSON report). */
function optionsLines(r: ReplayReport, width: number): string[] {
  const changed = r.allocator.changedOptions ?? Object.keys(r.allocator.options);
  if (changed.length === 0) return [];
  const pairs = changed.map((k) => {
    const v = r.allocator.options[k];
    return `${k}=${v === null || v === undefined ? 'none' : typeof v === 'object' ? JSON.stringify(v) : String(v)}`;
  });
  const label = r.allocator.changedOptions ? 'options (not the defaults)' : 'options';
  return wrapHanging(`${label}: ${pairs.join(' ')}`, width, '  ');
}

/** The text report of a replay: status, summary table, OOMs, per-step table, sparklines, notes. */
export function renderReplayText(r: ReplayReport, options: RenderOptions = {}): string {
  const c = painter(options.color);
  const width = options.width ?? DEFAULT_WIDTH;
  const t = r.trace;
  const out: string[] = [];
  out.push(
    c.bold(`memsim replay · ${r.allocator.name}`) + chosenText(r),
    ...optionsLines(r, width),
    ...wrapHanging(
      `trace ${t.path} (${t.format}${t.name ? `, "${t.name}"` : ''}): ${formatCount(t.events)} events, ${formatCount(t.allocs)} allocs, ${formatCount(t.frees)} frees, ${formatCount(t.steps)} step${t.steps === 1 ? '' : 's'}` +
        (t.initialEvents > 0 ? `, ${formatCount(t.initialEvents)} live when the window opened` : ''),
      width,
      '  ',
    ),
  );
  const skipped = t.skipped.unknownFree + t.skipped.doubleAlloc;
  if (skipped > 0) out.push(c.yellow(`skipped (--lenient): ${formatCount(t.skipped.unknownFree)} frees of non-live ids, ${formatCount(t.skipped.doubleAlloc)} allocs of live ids`));
  out.push(statusLine(r, c), '', ...summaryTable(r, width), '', ...peakHolders(r, c, width));
  const stats = statsTable(r, width);
  if (stats.length > 0) out.push(...stats, '');
  const spark = sparklines(r, Math.min(64, width - 21));
  if (spark.length > 0) out.push(...spark, '');
  if (r.ooms.length > 0) out.push(...oomSection(r, c, options.oomDump ?? 'compact', width));
  out.push(...realOomSection(r, c, options.oomDump ?? 'compact', width));
  if (r.steps.length > 1) out.push(c.bold('per step'), ...stepTable(r, width), '');
  for (const n of r.notes) out.push(`note: ${n}`);
  return out.join('\n').replace(/\n+$/, '') + '\n';
}
