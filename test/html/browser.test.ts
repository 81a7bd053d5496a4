import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers.js';
import { browserMissing, openBrowser } from './chromium.js';

const missing = browserMissing();
if (missing) console.warn(`SKIPPED: ${missing}`);

// 150 steps of the training workload (75k events) at 20 GiB: naive fits; lifetime-pool builds its
// pools late and runs out of memory 15 times (fragmentation).
const dir = tempDir();
const tracePath = join(dir, 'training.csv');
const pagePath = join(dir, 'report.html');
const shotPath = join(dir, 'report.png');

/**
 * Polls an expression in the page until it is true. (waitForFunction evaluates strings with eval,
 * which the page's Content-Security-Policy forbids, as it should.)
 */
async function until(page: Page, expression: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
    await page.waitForTimeout(50);
  }
}

type Browser = Awaited<ReturnType<typeof openBrowser>>;
interface ChartFacts {
  labels: string[];
  shown: boolean[];
  columns: number;
  points: number;
  inkRatio: number;
  steps: { labels: string[]; bars: number }[];
  oomMarkers: number;
  peakMarkers: number;
}

describe.skipIf(missing !== null)('the HTML report in Chromium', () => {
  let browser: Browser;
  const problems: string[] = [];

  beforeAll(async () => {
    const gen = runCli(['gen', 'training', '--steps', '150', '--format', 'csv', '--output', tracePath]);
    expect(gen.code).toBe(0);
    const r = runCli(['report', tracePath, '--allocators', 'naive,lifetime-pool', '--capacity', '20GiB', '--on-oom', 'continue', '--output', pagePath]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Opens the page from its file:// URL and waits until the charts and the state are drawn. */
  async function open(): Promise<Page> {
    const page = await browser.context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (req) => {
      if (!req.url().startsWith('file:') && !req.url().startsWith('data:')) problems.push(`request: ${req.url()}`);
    });
    await page.goto(pathToFileURL(pagePath).href);
    await page.waitForSelector('html[data-ready]', { timeout: 30_000 });
    return page;
  }

  it('loads from a file:// URL with no console errors and no network requests', async () => {
    const page = await open();
    expect(await page.getAttribute('html', 'data-error')).toBeNull();
    // The CSV's metadata line carries the trace's name, which the title shows.
    expect(await page.title()).toBe('memsim report · training-seed1-steps150');
    await page.close();
    expect(problems).toEqual([]);
  });

  it('draws the timeline with the expected series and the per-step peaks per allocator', async () => {
    const page = await open();
    const charts = await page.evaluate<ChartFacts>(`(() => {
      const M = window.memsim, u = M.charts.timeline;
      // The plot canvas has ink on it (not a blank chart).
      const c = u.ctx.canvas, px = u.ctx.getImageData(0, 0, c.width, c.height).data;
      let ink = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i] > 0) ink++;
      return {
        labels: u.series.map((s) => s.label),
        shown: u.series.map((s) => s.show),
        columns: u.data.length,
        points: u.data[0].length,
        inkRatio: ink / (c.width * c.height),
        steps: M.charts.steps.map((s) => ({ labels: s.series.map((x) => x.label), bars: s.data[0].length })),
        oomMarkers: document.querySelectorAll('#chart-timeline .mk-oom').length,
        peakMarkers: document.querySelectorAll('#chart-timeline .mk-peak').length,
      };
    })()`);
    expect(charts.labels).toEqual([
      'event', 'live (trace)',
      'naive reserved', 'naive allocated', 'naive live',
      'lifetime-pool reserved', 'lifetime-pool allocated', 'lifetime-pool live',
      'capacity',
    ]);
    // Allocated and served-live lines start hidden with several allocators (the legend shows them).
    expect(charts.shown).toEqual([true, true, true, false, false, true, false, false, true]);
    expect(charts.columns).toBe(9);
    expect(charts.points).toBeGreaterThan(1000);
    expect(charts.inkRatio).toBeGreaterThan(0.01);
    expect(charts.steps).toEqual([
      { labels: ['step', 'peak reserved', 'peak allocated', 'peak live'], bars: 150 },
      { labels: ['step', 'peak reserved', 'peak allocated', 'peak live'], bars: 150 },
    ]);
    expect(charts.oomMarkers).toBe(15);
    expect(charts.peakMarkers).toBe(2);
    // The x axis reads in steps on demand: 500 events of 150 steps of ~500 events each is step 1.
    const axis = `memsim.charts.timeline.axes[0].values(memsim.charts.timeline, [0, 500, 74000])`;
    expect(await page.evaluate(axis)).toEqual(['0', '500', '74,000']);
    await page.check('input[name="x-mode"][value="step"]');
    const stepAt = await page.evaluate<number[]>(`[0, 500, 74000].map((e) => { const m = memsim.data.stepMarks; let k = 0; while (k + 1 < m.event.length && m.event[k + 1] <= e) k++; return m.step[k]; })`);
    expect(stepAt[2]).toBeGreaterThan(140);
    expect(await page.evaluate(axis)).toEqual(stepAt.map((st) => `step ${st}`));
    // Colour by size: the legend becomes a size scale.
    await page.check('input[name="state-color"][value="size"]');
    expect(await page.textContent('#state-legend')).toMatch(/^block size \d/);
    await page.close();
    expect(problems).toEqual([]);
  });

  it('clicking an OOM marker shows the state at that OOM', async () => {
    const page = await open();
    await page.locator('#chart-timeline').scrollIntoViewIfNeeded();
    // A marker that nothing covers (several OOMs can sit on one spot).
    const k = await page.evaluate<number>(`[...document.querySelectorAll('#chart-timeline .mk-oom')].findLastIndex((m) => {
      const r = m.getBoundingClientRect();
      return !m.hidden && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === m;
    })`);
    expect(k).toBeGreaterThanOrEqual(0);
    const marker = page.locator('#chart-timeline .mk-oom').nth(k);
    const oom = Number(await marker.getAttribute('data-oom'));
    await marker.click();
    const shown = await page.evaluate<{ run: string; reason: string; oom: number; event: number; oomEvent: number }>(`(() => {
      const M = window.memsim, run = M.data.runs[M.state.run], st = run.states[M.state.index];
      return { run: run.name, reason: st.reason, oom: st.oom, event: st.event, oomEvent: run.ooms[st.oom].event };
    })()`);
    expect(shown).toEqual({ run: 'lifetime-pool', reason: 'oom', oom, event: shown.oomEvent, oomEvent: shown.oomEvent });
    expect(await page.textContent('#state-head')).toContain(`lifetime-pool at OOM ${oom + 1}: the request of`);
    expect(await page.inputValue('#state-run')).toBe('1');
    expect(await page.locator('#state-moment option:checked').textContent()).toBe(`OOM ${oom + 1} · event ${shown.event.toLocaleString('en-US')}`);
    // The button in the OOM section does the same.
    await page.click('button.show-oom[data-run="1"][data-oom="0"]');
    expect(await page.textContent('#state-head')).toContain('lifetime-pool at OOM 1: the request of');
    await page.close();
    expect(problems).toEqual([]);
  });

  it('picking a point on the timeline shows the nearest captured state, and says so', async () => {
    const page = await open();
    await page.locator('#chart-timeline').scrollIntoViewIfNeeded();
    const box = await page.locator('#chart-timeline .u-over').boundingBox();
    if (!box) throw new Error('no plot area');
    const x = Math.round(box.width * 0.37);
    await page.mouse.click(box.x + x, box.y + box.height / 2);
    const picked = await page.evaluate<{ want: number; picked: number; index: number; best: number; event: number }>(`(() => {
      const M = window.memsim;
      const want = Math.max(0, Math.round(M.charts.timeline.posToVal(${x}, 'x')));
      const states = M.data.runs[M.state.run].states;
      let best = 0;
      for (let k = 1; k < states.length; k++) if (Math.abs(states[k].event - want) < Math.abs(states[best].event - want)) best = k;
      return { want, picked: M.state.picked, index: M.state.index, best, event: states[M.state.index].event };
    })()`);
    expect(picked.picked).toBe(picked.want);
    expect(picked.index).toBe(picked.best);
    const note = await page.textContent('#state-note');
    expect(note).toContain(`You picked event ${picked.want.toLocaleString('en-US')}`);
    expect(note).toContain(`the nearest one, event ${picked.event.toLocaleString('en-US')}`);
    // Hovering the drawing names a block.
    await page.locator('#state-map').scrollIntoViewIfNeeded();
    const map = await page.locator('#state-map').boundingBox();
    if (!map) throw new Error('no state map');
    await page.mouse.move(map.x + 90, map.y + 8);
    await page.waitForSelector('#state-tip:not([hidden])');
    expect(await page.textContent('#state-tip')).toMatch(/(block|blocks, aggregated|free block) at 0x[0-9a-f]+|from 0x[0-9a-f]+/);
    await page.close();
    expect(problems).toEqual([]);
  });

  it('follows the system theme, and is plain black on white in print', async () => {
    const page = await open();
    const look = () => page.evaluate<{ bg: string; axis: string }>(`(() => {
      const M = window.memsim, axis = M.charts.timeline.axes[0].stroke;
      return { bg: getComputedStyle(document.documentElement).backgroundColor, axis: typeof axis === 'function' ? axis(M.charts.timeline, 0) : axis };
    })()`);
    expect(await look()).toEqual({ bg: 'rgb(255, 255, 255)', axis: '#5d6570' });
    await page.emulateMedia({ colorScheme: 'dark' });
    // The charts are rebuilt with the dark colours when the system theme changes.
    await until(page, `getComputedStyle(document.documentElement).backgroundColor === 'rgb(18, 20, 23)' && memsim.charts.timeline.axes[0].stroke(memsim.charts.timeline, 0) === '#9aa3ae'`);
    expect(await look()).toEqual({ bg: 'rgb(18, 20, 23)', axis: '#9aa3ae' });
    await page.emulateMedia({ media: 'print' });
    expect(await page.evaluate(`getComputedStyle(document.querySelector('.controls')).display`)).toBe('none');
    expect(await page.evaluate(`getComputedStyle(document.body).color`)).toBe('rgb(0, 0, 0)');
    // Printing from the dark theme draws the charts in the print colours, and opens the tables.
    await page.evaluate(`window.dispatchEvent(new Event('beforeprint'))`);
    expect(await look()).toEqual({ bg: 'rgb(255, 255, 255)', axis: '#444444' });
    expect(await page.evaluate(`[...document.querySelectorAll('details:not(.oom)')].every((d) => d.open)`)).toBe(true);
    await page.emulateMedia({ media: 'screen' });
    await page.evaluate(`window.dispatchEvent(new Event('afterprint'))`);
    expect(await look()).toEqual({ bg: 'rgb(18, 20, 23)', axis: '#9aa3ae' });
    await page.close();
    expect(problems).toEqual([]);
  });

  it('takes the README screenshot', async () => {
    const page = await open();
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.evaluate(`window.dispatchEvent(new Event('resize'))`);
    await page.waitForTimeout(300);
    await page.locator('#chart-timeline').scrollIntoViewIfNeeded();
    await page.locator('#chart-timeline .mk-oom').last().click();
    // At the top, the boxes' viewport coordinates are page coordinates, which a full-page clip takes.
    await page.evaluate('window.scrollTo(0, 0)');
    const top = await page.locator('#timeline').boundingBox();
    const bottom = await page.locator('#state').boundingBox();
    if (!top || !bottom) throw new Error('no sections');
    await page.screenshot({ path: shotPath, fullPage: true, clip: { x: 0, y: top.y - 8, width: 1200, height: bottom.y + bottom.height - top.y + 16 } });
    expect(statSync(shotPath).size).toBeGreaterThan(20_000);
    // `MEMSIM_UPDATE_SCREENSHOT=1 npx vitest run test/html/browser.test.ts` refreshes docs/report.png.
    if (process.env['MEMSIM_UPDATE_SCREENSHOT'] === '1') {
      mkdirSync(join(ROOT, 'docs'), { recursive: true });
      copyFileSync(shotPath, join(ROOT, 'docs', 'report.png'));
    }
    await page.close();
    expect(problems).toEqual([]);
  });
});
