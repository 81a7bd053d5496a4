import type { CompareReport } from '../../sweep/compare.js';
import type { VisualReport } from '../../sim/visual.js';
import type { HtmlAssets } from './assets.js';
import { CLIENT_CHARTS_JS } from './client-charts.js';
import { CLIENT_CORE_JS } from './client-core.js';
import { CLIENT_STATE_JS } from './client-state.js';
import { CLIENT_HOLDERS_JS } from './client-holders.js';
import { gzipSync } from 'node:zlib';
import { scriptText } from './escape.js';
import { pageHead } from './head.js';
import { compareHtml, detailsHtml, headerHtml, oomsHtml, summaryHtml } from './sections.js';
import { PAGE_CSS } from './style.js';

/**
 * Nothing may be fetched: every script and style is inline, images are drawn on canvases, and the
 * browser is told so, which also keeps a report from leaking anything if it is opened from the web.
 */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:";

/**
 * The page's data: `memsim.visual/1` as JSON, gzipped and in base64 lines. JSON of long timelines
 * and many blocks compresses about tenfold, and a browser reads a smaller page faster; the page
 * unpacks it with its own DecompressionStream. gzip at a fixed level gives the same bytes every run.
 */
export function packData(d: VisualReport<CompareReport>): string {
  const b64 = gzipSync(JSON.stringify(d), { level: 9 }).toString('base64');
  const lines: string[] = [];
  for (let k = 0; k < b64.length; k += 120) lines.push(b64.slice(k, k + 120));
  return lines.join('\n');
}

function licenseComment(a: HtmlAssets): string {
  return `/*! uPlot ${a.uplotVersion}, inlined by memsim. Its license:\n${a.uplotLicense.replace(/\*\//g, '* /').trim()}\n*/`;
}

/**
 * The HTML report: one self-contained page (no network access, works from a file:// URL) with the
 * timeline, the allocator states, per-step peaks, the tables and the OOM sections. The tables and
 * OOM texts are plain HTML (readable without scripts and in print); the charts are drawn by the
 * inlined uPlot and the page's own script from the data embedded in the page ({@link packData}).
 * Pure: the same data and assets give the same bytes.
 */
export function renderHtmlReport(d: VisualReport<CompareReport>, assets: HtmlAssets): string {
  const title = `memsim ${d.command} · ${d.trace.name ?? d.trace.path}`;
  const sections = [
    headerHtml(d),
    '<main>',
    `<section id="summary"><h2>Summary</h2>\n${summaryHtml(d)}\n${d.compare ? `<h3>Comparison</h3>\n${compareHtml(d.compare)}` : ''}</section>`,
    `<section id="timeline"><h2>Memory over time</h2>
<div class="controls"><span>x axis:</span><label><input type="radio" name="x-mode" value="event" checked> event index</label><label><input type="radio" name="x-mode" value="step"> step</label><button type="button" id="zoom-reset">reset zoom</button></div>
<div id="chart-timeline" class="chart"></div>
<p class="hint">Drag across the chart to zoom in, double-click to zoom out. Click a point to show the selected allocator's state there; click ✕ (an OOM) or ▲ (a peak) to show the state at that moment. Click a name in the legend to hide or show its line.</p></section>`,
    `<section id="state"><h2>Allocator state</h2>
<div class="controls"><label>allocator <select id="state-run"></select></label><label>moment <select id="state-moment"></select></label><span>colour by:</span><label><input type="radio" name="state-color" value="tag" checked> tag</label><label><input type="radio" name="state-color" value="size"> size</label></div>
<p id="state-head"></p>
<div id="state-body"><div id="state-main">
<div id="state-map-wrap"><canvas id="state-map" height="40" role="img" aria-label="allocator state"></canvas><div id="state-tip" hidden></div></div>
<div id="state-legend" class="legend"></div>
<p id="state-note" class="note"></p></div>
<aside id="state-holders"><h3>Who holds the memory</h3><p id="holders-caption" class="hint"></p><div id="holders-table" class="table-wrap"></div><pre id="holder-stack" hidden></pre></aside>
</div></section>`,
    `<section id="steps"><h2>Per-step peaks</h2>\n<div id="step-charts"></div></section>`,
    `<section id="ooms"><h2>Out of memory</h2>\n${oomsHtml(d)}</section>`,
    `<section id="details"><h2>Allocators</h2>\n${detailsHtml(d)}</section>`,
    '</main>',
    '<noscript><p>The charts and the state view need JavaScript; the tables above do not.</p></noscript>',
  ];
  return [
    ...pageHead({ title, version: d.tool.version, css: `${assets.uplotCss}\n${PAGE_CSS}`, csp: CSP }),
    ...sections,
    `<script type="application/octet-stream" id="memsim-data" data-encoding="gzip+base64">\n${packData(d)}\n</script>`,
    `<script>\n${licenseComment(assets)}\n${scriptText(assets.uplotJs)}\n</script>`,
    `<script>\n${scriptText(CLIENT_CORE_JS + CLIENT_CHARTS_JS + CLIENT_HOLDERS_JS + CLIENT_STATE_JS)}\n</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
