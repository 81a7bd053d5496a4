import type { TuneReport } from '../sweep/tune-types.js';
import { formatBytes, formatCount, painter, type RenderOptions } from './format.js';
import { changesText, ROW_ALIGN, ROW_HEAD, rowCells, shownRows, spaceLines, tuneCapacityText, verdictText } from './tune-answer.js';

/** The width the text report keeps to. */
const WIDTH = 100;

/**
 * Splits a configuration's text after the commas between its options into lines of at most
 * `width` characters; an option longer than that is cut after the commas inside its value.
 */
export function wrapAtCommas(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let k = 0; k < text.length; k++) {
    const ch = text[k];
    if (ch === '[') {
      // after the name, when even its first option does not fit beside it
      if (++depth === 1 && start === 0) {
        parts.push(text.slice(0, k + 1));
        start = k + 1;
      }
    } else if (ch === ']') depth--;
    else if (ch === ',' && depth === 1) {
      parts.push(text.slice(start, k + 1));
      start = k + 1;
    } else if (ch === ' ' && depth === 0 && k > start) {
      // before a remark after the name, `(current)`
      parts.push(text.slice(start, k));
      start = k;
    }
  }
  parts.push(text.slice(start));
  // An option longer than the line is cut at the commas inside its value too.
  const pieces = parts.flatMap((p) => (p.length > width ? p.split(/(?<=,)/) : [p]));
  const lines: string[] = [];
  let line = '';
  for (const p of pieces) {
    if (line !== '' && line.length + p.length > width) {
      lines.push(line);
      line = p.trimStart();
    } else {
      line += p;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Words of `text` in lines of at most `width` characters, the later ones indented by `indent`. */
export function wrapWords(text: string, width: number, indent: string): string[] {
  const lead = /^ */.exec(text)?.[0] ?? '';
  const lines: string[] = [];
  let line = lead;
  for (const word of text.slice(lead.length).split(' ')) {
    if (line.trim() !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else {
      line = line.trim() === '' ? line + word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines;
}

/** Columns padded to their widest cell, two spaces apart; the last column wraps at commas. */
function columns(head: string[], rows: string[][], align: ('left' | 'right')[]): string[] {
  const last = head.length - 1;
  const widths = head.map((h, k) => (k === last ? 0 : Math.max(h.length, ...rows.map((r) => (r[k] as string).length))));
  const lead = widths.slice(0, last).reduce((n, w) => n + w + 2, 0);
  const pad = (cells: string[]): string =>
    cells
      .map((c, k) => (k === last ? c : align[k] === 'right' ? c.padStart(widths[k] as number) : c.padEnd(widths[k] as number)))
      .join('  ');
  const out = [pad(head).trimEnd()];
  for (const r of rows) {
    const [first, ...more] = wrapAtCommas(r[last] as string, Math.max(20, WIDTH - lead));
    out.push(pad([...r.slice(0, last), first as string]).trimEnd());
    for (const m of more) out.push(`${' '.repeat(lead)}  ${m}`);
  }
  return out;
}

/** The text report of `tune`: the setting to type first, what it changes, then the ranked rows. */
export function renderTuneText(r: TuneReport, options: RenderOptions & { top?: number } = {}): string {
  const c = painter(options.color);
  const out: string[] = [];
  const rec = r.recommendation;
  if (r.shortfall) {
    out.push(...wrapWords(`${c.red('✘')} ${verdictText(r)}`, WIDTH, '  '));
    if (rec) out.push(`  the closest: ${c.bold(rec.setting)}`);
  } else if (rec) {
    out.push(c.bold(rec.setting), ...wrapWords(`${c.green('✔')} ${verdictText(r)}`, WIDTH, '  '));
    if (rec.changes.length > 0) out.push(...wrapWords(`  changes: ${changesText(rec.changes)}`, WIDTH, '    '));
  } else {
    out.push(verdictText(r));
  }
  const t = r.trace;
  const tried = r.rows.length;
  out.push(
    '',
    c.bold(`memsim tune · ${r.spaces.map((s) => s.allocator).join(', ')} · ${tuneCapacityText(r)} · ${formatCount(tried)} configuration${tried === 1 ? '' : 's'}, ${formatCount(r.replays)} replays`),
    ...wrapWords(
      `trace ${t.path} (${t.format}${t.name ? `, "${t.name}"` : ''}): ${formatCount(t.events)} events, ${formatCount(t.steps)} step${t.steps === 1 ? '' : 's'}; ` +
        `lower bound (peak live) ${formatBytes(r.lowerBound.peakLiveBytes)}; needs: the smallest capacity, in steps of ${formatBytes(r.capacityStepBytes)}, at which it fits`,
      WIDTH,
      '  ',
    ),
    '',
  );
  const { rows, hidden } = shownRows(r, options.top ?? 10);
  out.push(...columns(ROW_HEAD, rows.map((row) => rowCells(r, row)), ROW_ALIGN));
  if (hidden > 0) out.push(`… ${formatCount(hidden)} more configuration${hidden === 1 ? '' : 's'} (--top ${tried} shows all; --format json lists every one)`);
  out.push('', 'spaces:', ...spaceLines(r).flatMap((l) => wrapWords(`  ${l}`, WIDTH, '    ')));
  const notes = [...r.rows.flatMap((row) => (row.notes ?? []).map((n) => `note (${row.name}): ${n}`)), ...r.notes.map((n) => `note: ${n}`)];
  if (notes.length > 0) out.push('', ...notes.flatMap((n) => wrapWords(n, WIDTH, '  ')));
  return out.join('\n') + '\n';
}
