/**
 * The HTML report of a trace of a few events, in Chromium: the event axis ticks whole events only,
 * and a tag's right-to-left override stays inside its own label.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';
import { browserMissing, openBrowser, openReport } from './chromium.js';

const missing = browserMissing();
if (missing) console.warn(`SKIPPED: ${missing}`);

describe.skipIf(missing !== null)('the HTML report of a small trace, in Chromium', () => {
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  const dir = tempDir();
  const pagePath = join(dir, 'small.html');
  const problems: string[] = [];

  beforeAll(async () => {
    const trace = join(dir, 'small.csv');
    writeFileSync(trace, `op,id,size,step,tag\nalloc,a,100,0,plain\nalloc,b,4096,0,"rtl \u202eabc"\nfree,a,,0,\n`);
    const r = runCli(['report', trace, '-a', 'naive', '--output', pagePath]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('ticks the event axis at whole events, and isolates tags in the legend', async () => {
    const page = await openReport(browser.context, pagePath, problems);
    const splits = await page.evaluate<number[]>('window.memsim.charts.timeline.axes[0]._splits');
    expect(splits.length).toBeGreaterThan(1);
    expect(splits.every((x) => Number.isInteger(x))).toBe(true);
    const labels = await page.evaluate<string[]>('window.memsim.charts.timeline.axes[0].values(window.memsim.charts.timeline, window.memsim.charts.timeline.axes[0]._splits)');
    expect(new Set(labels).size).toBe(labels.length);
    // Colour by tag: each tag's label is a <bdi> of its own, its size after it.
    await page.click('input[name="state-color"][value="tag"]');
    const legend = await page.evaluate<string[]>(`[...document.querySelectorAll('#state-legend bdi')].map((b) => b.textContent)`);
    expect(legend).toContain('rtl \u202eabc');
    expect(problems).toEqual([]);
  });
});
