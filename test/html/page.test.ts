import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadHtmlAssets, renderHtmlReport } from '../../src/report/html/index.js';
import { CLIENT_CHARTS_JS } from '../../src/report/html/client-charts.js';
import { CLIENT_CORE_JS } from '../../src/report/html/client-core.js';
import { CLIENT_STATE_JS } from '../../src/report/html/client-state.js';
import { compareTrace } from '../../src/sweep/compare.js';
import { buildVisualReport, collectComparedRuns, type VisualReport, visualContext } from '../../src/sim/visual.js';
import { alloc, free, MiB, traceFromEvents } from '../helpers.js';

// A tag and an id that would break the page if they were not escaped.
const hostile = '</script><img src=http://example.invalid/x.png>';
const trace = traceFromEvents([
  alloc('a', 1000, { tag: hostile }),
  alloc('<b>', 3 * MiB, { tag: 'weights' }),
  free('a'),
  alloc('<c>', 6 * MiB, { tag: hostile }),
  free('<b>'),
]);

async function build(): Promise<{ data: VisualReport; html: string }> {
  const { report } = await compareTrace(trace, { allocators: ['naive', 'lifetime-pool'], jobs: 1, capacityBytes: 8 * MiB, onOom: 'continue' });
  const ctx = visualContext(trace, { sampleStates: 4 });
  const data = buildVisualReport(ctx, collectComparedRuns(ctx, report, {}), { command: 'report', capacityBytes: 8 * MiB, onOom: 'continue', compare: report });
  return { data, html: renderHtmlReport(data, loadHtmlAssets()) };
}

/** The page's embedded data, unpacked as the page's script does. */
function unpack(html: string): unknown {
  const m = /<script type="application\/octet-stream" id="memsim-data" data-encoding="gzip\+base64">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error('no data element');
  return JSON.parse(gunzipSync(Buffer.from((m[1] as string).replace(/\s+/g, ''), 'base64')).toString('utf8'));
}

describe('the HTML report generator', () => {
  it('writes a self-contained page: nothing to fetch, and the browser told so', async () => {
    const { html } = await build();
    // No attribute of any element points anywhere on a network (src=, href=, action=, …).
    const markup = html.replace(/(<script\b[^>]*>)[\s\S]*?<\/script>/g, '$1</script>');
    const tags = [...markup.matchAll(/<[a-zA-Z][^>]*>/g)].map((m) => m[0]);
    expect(tags.length).toBeGreaterThan(100);
    for (const tag of tags) expect(tag).not.toMatch(/\b(?:src|href|action|data|poster|srcset|formaction)\s*=\s*["']?\s*(?:[a-z]+:)?\/\//i);
    expect(html).not.toMatch(/<script[^>]*\ssrc=/i);
    expect(html).not.toMatch(/<link[^>]*stylesheet/i);
    expect(html).not.toMatch(/@import|url\(\s*["']?(?:https?:)?\/\//i);
    for (const m of html.matchAll(/\bhref="([^"]*)"/g)) expect(m[1]).toMatch(/^(?:data:|#)/);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:">`);
    expect(html.match(/<script\b/g)?.length).toBe(3);
    expect(html.match(/<\/script>/g)?.length).toBe(3);
  });

  it('is byte-identical across runs', async () => {
    const a = await build();
    const b = await build();
    expect(b.html).toBe(a.html);
  });

  it('embeds exactly the data it was given, compressed', async () => {
    const { data, html } = await build();
    expect(unpack(html)).toEqual(JSON.parse(JSON.stringify(data)));
  });

  it('escapes trace text in the tables and OOM sections', async () => {
    const { data, html } = await build();
    expect(data.runs.every((r) => r.summary.oomCount === 1)).toBe(true);
    expect(html).not.toContain(hostile);
    expect(html).toContain('&lt;/script&gt;&lt;img src=http://example.invalid/x.png&gt;');
    expect(html).toContain('<code>&lt;c&gt;</code>');
  });

  it('shows the tables, the OOM sections with native text, and inlines uPlot with its license', async () => {
    const { data, html } = await build();
    const assets = loadHtmlAssets();
    expect(html).toContain('<table id="summary-table">');
    expect(html).toContain('<table id="compare-table">');
    const oom = data.runs[0]?.ooms[0];
    expect(oom?.native).toBeTruthy();
    expect(html).toContain(`<pre class="native">${(oom?.native ?? '').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</pre>`);
    expect(html).toContain('data-run="0" data-oom="0"');
    expect(html).toContain(`uPlot ${assets.uplotVersion}, inlined by memsim`);
    expect(html).toContain('Permission is hereby granted, free of charge');
    expect(html).toContain(assets.uplotJs.slice(0, 2000));
    expect(html).toContain('@media (prefers-color-scheme: dark)');
    expect(html).toContain('@media print');
  });

  it('has page scripts that parse', () => {
    for (const code of [CLIENT_CORE_JS, CLIENT_CHARTS_JS, CLIENT_STATE_JS]) {
      expect(() => new Function(code)).not.toThrow();
      // They live in template literals: no interpolation may have crept in.
      expect(code).not.toContain('`');
    }
  });
});
