import type { TuneReport, TuneRow } from '../sweep/tune-types.js';
import { esc } from './html/escape.js';
import { pageHead } from './html/head.js';
import { PAGE_CSS } from './html/style.js';
import { formatBytes, formatCount } from './format.js';
import { changesText, ROW_ALIGN, ROW_HEAD, rowCells, spaceLines, tuneCapacityText, verdictText } from './tune-answer.js';

/** The page loads nothing and runs no script. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'";

function table(r: TuneReport, rows: readonly TuneRow[]): string {
  const head = ROW_HEAD.map((h, k) => `<th${ROW_ALIGN[k] === 'right' ? ' class="num"' : ''}>${esc(h)}</th>`).join('');
  const body = rows.map((row) => {
    const cells = rowCells(r, row).map((v, k) => {
      const mark = row.current ? ' (current)' : row.reference ? ' (reference)' : '';
      const text = k === ROW_HEAD.length - 1 ? `<code>${esc(row.name)}</code>${mark}` : esc(v);
      return `<td${ROW_ALIGN[k] === 'right' ? ' class="num"' : ''}>${text}</td>`;
    });
    const cls = row.name === r.recommendation?.name ? ' class="best"' : row.current ? ' class="current"' : '';
    return `<tr${cls}>${cells.join('')}</tr>`;
  });
  return `<div class="table-wrap"><table>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body.join('\n')}\n</tbody></table></div>`;
}

/**
 * The HTML report of `tune`: one self-contained page, the setting to type first, what it changes,
 * the best rows, and every other row and the spaces folded below. Pure: the same report, the same bytes.
 */
export function renderTuneHtml(r: TuneReport, options: { top?: number } = {}): string {
  const rec = r.recommendation;
  const top = options.top ?? 10;
  const answer: string[] = [];
  if (r.shortfall) {
    answer.push(`<p class="status bad">✘ ${esc(verdictText(r))}</p>`);
    if (rec) answer.push(`<p>The closest:</p>\n<pre id="setting">${esc(rec.setting)}</pre>`);
  } else if (rec) {
    answer.push(`<pre id="setting">${esc(rec.setting)}</pre>`, `<p class="status good">✔ ${esc(verdictText(r))}</p>`);
    if (rec.changes.length > 0) answer.push(`<p>Changes: ${esc(changesText(rec.changes))}.</p>`);
  } else {
    answer.push(`<p>${esc(verdictText(r))}</p>`);
  }
  const t = r.trace;
  const rest = r.rows.slice(top);
  const title = `memsim tune · ${t.name ?? t.path}`;
  return [
    ...pageHead({ title, version: r.tool.version, css: `${PAGE_CSS}\ntr.best td { font-weight: 600; }\ntr.current td { color: var(--muted); }\n`, csp: CSP }),
    `<h1>memsim tune <span class="sub">${esc(t.path)}</span></h1>`,
    '<main>',
    `<section id="answer"><h2>Answer</h2>\n${answer.join('\n')}</section>`,
    `<section id="rows"><h2>Configurations</h2>`,
    `<p class="muted">${esc(`${formatCount(t.events)} events, ${formatCount(t.steps)} steps; ${tuneCapacityText(r)}; lower bound (peak live) ${formatBytes(r.lowerBound.peakLiveBytes)}; ${formatCount(r.rows.length)} configurations, ${formatCount(r.replays)} replays. "needs": the smallest capacity, in steps of ${formatBytes(r.capacityStepBytes)}, at which the whole trace replays without OOM.`)}</p>`,
    table(r, r.rows.slice(0, top)),
    rest.length > 0 ? `<details><summary>${formatCount(rest.length)} more configurations</summary>\n${table(r, rest)}\n</details>` : '',
    '</section>',
    `<section id="spaces"><h2>Spaces</h2>\n<ul>\n${spaceLines(r).map((l) => `<li>${esc(l)}</li>`).join('\n')}\n</ul></section>`,
    r.notes.length > 0 ? `<section id="notes"><h2>Notes</h2>\n<ul>\n${r.notes.map((n) => `<li>${esc(n)}</li>`).join('\n')}\n</ul></section>` : '',
    '</main>',
    '</body>',
    '</html>',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}
