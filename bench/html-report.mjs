// Size and load time of the HTML report on a large trace. Run after `npm run build`:
//   node bench/html-report.mjs [--trace /tmp/t1m.csv] [--runs 4] [--loads 3] [--keep /tmp/report.html]
// Without --trace it generates the training workload of 10^6 events (as `memsim gen training
// --events 1000000 --format csv`). Rows: naive, bfc and lifetime-pool with their defaults, then
// (--runs 4) lifetime-pool with its statistics from step 2, built through the library as the CLI
// builds them. The load time is measured in Debian's chromium, from navigation to the moment the
// page says it has drawn (its charts and the first state, then two animation frames).
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { readTrace } from '../dist/trace/read.js';
import { buildVisualReport, collectVisualRun, visualContext } from '../dist/sim/visual.js';
import { loadHtmlAssets, renderHtmlReport } from '../dist/report/html/index.js';
import '../dist/allocators/index.js';

const args = process.argv.slice(2);
const arg = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const runsWanted = Number(arg('--runs', '4'));
const loads = Number(arg('--loads', '3'));
const dir = mkdtempSync(join(tmpdir(), 'memsim-bench-html-'));
let tracePath = arg('--trace', undefined);
if (!tracePath) {
  tracePath = join(dir, 't1m.csv');
  execFileSync(process.execPath, ['bin/memsim.js', 'gen', 'training', '--events', '1000000', '--format', 'csv', '--output', tracePath]);
}

const rows = [
  { allocator: 'naive', options: {} },
  { allocator: 'bfc', options: {} },
  { allocator: 'lifetime-pool', options: {} },
  { allocator: 'lifetime-pool', options: { start_step: '2', stable_steps: '1' } },
].slice(0, runsWanted);

let t = performance.now();
const trace = readTrace(tracePath);
const readMs = performance.now() - t;
t = performance.now();
const ctx = visualContext(trace);
const runs = rows.map((r, k) => {
  const { visual } = collectVisualRun(ctx, { allocator: r.allocator, options: r.options });
  // Two rows of one allocator need two names on the page.
  if (rows.findIndex((x) => x.allocator === r.allocator) !== k) visual.name = `${r.allocator} (${Object.entries(r.options).map(([a, b]) => `${a}=${b}`).join(' ')})`;
  return visual;
});
const collectMs = performance.now() - t;
t = performance.now();
const html = renderHtmlReport(buildVisualReport(ctx, runs, { command: 'report', capacityBytes: Infinity, onOom: 'stop' }), loadHtmlAssets());
const renderMs = performance.now() - t;
const out = arg('--keep', join(dir, 'report.html'));
writeFileSync(out, html);
console.log(`trace ${tracePath}: ${trace.length} events; ${runs.length} allocators: ${runs.map((r) => r.name).join(', ')}`);
console.log(`read ${readMs.toFixed(0)} ms, replays for the page (2 per allocator) ${collectMs.toFixed(0)} ms, render ${renderMs.toFixed(0)} ms`);
console.log(`page ${out}: ${(statSync(out).size / 1024).toFixed(0)} KiB`);

if (!existsSync('/usr/bin/chromium')) {
  console.log('no /usr/bin/chromium: load time not measured');
} else {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'memsim-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const times = [];
  for (let k = 0; k < loads; k++) {
    const page = await context.newPage();
    await page.goto(pathToFileURL(out).href);
    await page.waitForSelector('html[data-ready]', { timeout: 60_000 });
    times.push(await page.evaluate(`(() => {
      const mark = (n) => Math.round(performance.getEntriesByName(n)[0].startTime);
      return { ready: Math.round(memsim.readyMs), scriptStart: mark('memsim:start'), dataUnpacked: mark('memsim:data'), drawn: mark('memsim:drawn') };
    })()`));
    await page.close();
  }
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  for (const x of times) console.log(`load: scripts start ${x.scriptStart} ms, data unpacked ${x.dataUnpacked} ms, charts and state drawn ${x.drawn} ms, painted (ready) ${x.ready} ms`);
}
if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
