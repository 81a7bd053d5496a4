import type { DiffReport } from '../diff/index.js';
import { diffStatus, figureRows, holderChangeRows, holdersTitle } from './diff-format.js';
import { formatCount } from './format.js';
import { mdCell, mdTable, mdText } from './replay-markdown.js';

/** The Markdown report of `diff`: status line first, the figures, the holders' changes collapsed. */
export function renderDiffMarkdown(r: DiffReport): string {
  const status = diffStatus(r.allocators);
  const mark = status.word === 'ooms' ? '❌' : status.word === 'grew' ? '📈' : status.word === 'shrank' ? '📉' : '➖';
  const out: string[] = [`**${mark} ${mdText(status.text)}**`, ''];
  out.push(`Before \`${mdCell(r.before.path)}\` (${formatCount(r.before.events)} events), after \`${mdCell(r.after.path)}\` (${formatCount(r.after.events)} events); grouped by ${r.groupBy}.`, '');
  out.push(mdTable(['allocator', 'figure', 'before', 'after', 'change'], figureRows(r.allocators, r.minCapacity !== null), ['left', 'left', 'right', 'right', 'right']));
  const code = (k: string): string => `\`${k.replace(/`/g, "'")}\``;
  for (const e of r.allocators) {
    for (const [which, d] of [['live', e.holders.peakLive], ['reserved', e.holders.peakReserved]] as const) {
      if (which === 'reserved' && d.beforeEvent === e.holders.peakLive.beforeEvent && d.afterEvent === e.holders.peakLive.afterEvent) continue;
      const body =
        d.changes.length === 0
          ? [`No group changed (${formatCount(d.unchanged)} the same).`]
          : [mdTable(['change', r.groupBy, 'before (count)', 'after (count)', 'delta'], holderChangeRows(d, code), ['left', 'left', 'right', 'right', 'right']), '', `${formatCount(d.unchanged)} unchanged.`];
      out.push('', `<details><summary>${mdText(holdersTitle(e.name, which, d))}</summary>`, '', ...body, '', '</details>');
    }
  }
  if (r.gates.length > 0) {
    out.push('', ...r.gates.flatMap((g) => [`- \`${g.gate}\`: ${g.failed ? '**failed**' : 'passed'}`, ...g.failures.map((f) => `  - ${mdCell(f.message)}`)]));
  }
  const notes = [...r.allocators.flatMap((e) => e.notes.map((n) => `\`${e.name}\` ${n}`)), ...r.notes];
  for (const n of notes) out.push('', `> ${mdText(n)}`);
  return out.join('\n') + '\n';
}
