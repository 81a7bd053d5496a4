import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';
import { entry, frame, MiB, segment, settings, writeSnapshot } from '../pytorch/snapshot-helpers.js';
import { browserMissing, openBrowser, openReport } from './chromium.js';

const missing = browserMissing();
if (missing) console.warn(`SKIPPED: ${missing}`);

const SEG = 0x7f0000000000;
const user = (file: string, line: number, name: string) => frame(`/work/train/${file}`, line, name);
const fwd = [user('model.py', 10, 'forward'), user('train.py', 7, 'step')];
const opt = [user('optim.py', 5, 'init_state'), user('train.py', 8, 'step')];
// At the peak: model.py:10 holds 2 + 4 + 2 MiB in three blocks, optim.py:5 6 MiB in one.
const snap = {
  segments: [
    segment({
      address: SEG,
      blocks: [{ size: 2 * MiB, frames: fwd }, { size: 4 * MiB, frames: fwd }, { size: 6 * MiB, frames: opt }, { size: 2 * MiB, frames: fwd }, { size: 6 * MiB, state: 'inactive' }],
    }),
  ],
  device_traces: [[entry('alloc', SEG + 2 * MiB, 4 * MiB, { frames: fwd }), entry('alloc', SEG + 6 * MiB, 6 * MiB, { frames: opt }), entry('alloc', SEG + 12 * MiB, 2 * MiB, { frames: fwd })]],
  allocator_settings: settings(),
};

async function until(page: Page, expression: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await page.evaluate<boolean>(expression))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${expression}`);
    await page.waitForTimeout(50);
  }
}

describe.skipIf(missing !== null)('who holds the memory, beside the allocator state in Chromium', () => {
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  const pagePath = join(tempDir(), 'holders.html');
  const problems: string[] = [];

  beforeAll(async () => {
    const r = runCli(['replay', writeSnapshot(snap), '--allocator', 'caching', '--format', 'html', '--output', pagePath]);
    expect(r.code).toBe(0);
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const open = (): Promise<Page> => openReport(browser.context, pagePath, problems);

  /** Shows the state at the peak of live bytes (the page opens at the peak of reserved bytes, here event 0). */
  async function peakLive(page: Page): Promise<void> {
    const k = await page.evaluate<number>(`window.memsim.data.runs[0].states.findIndex((s) => s.reason === 'peak-live')`);
    expect(k).toBeGreaterThanOrEqual(0);
    await page.selectOption('#state-moment', String(k));
    await until(page, `window.memsim.state.index === ${k}`);
  }

  /** The canvas as a data URL: what the state view shows. */
  const pixels = (page: Page) => page.evaluate<string>(`document.getElementById('state-map').toDataURL()`);

  it('lists the holders of the shown state; hovering a row lights up exactly its blocks, leaving restores the view', async () => {
    const page = await open();
    await peakLive(page);
    await page.locator('#state-holders').scrollIntoViewIfNeeded();
    const rows = await page.locator('#holders-table tr.holder td.key').allTextContents();
    expect(rows).toEqual(['…/train/model.py:10:forward', '…/train/optim.py:5:init_state']);
    expect(await page.textContent('#holders-caption')).toContain('Live 14.00 MiB in 4 allocations, grouped by frame.');
    const before = await pixels(page);
    await page.locator('#holders-table tr.holder').nth(0).hover();
    await until(page, 'window.memsim.state.highlight === 0');
    // The lit pieces are the three blocks allocated at model.py:10 (requested 2 + 4 + 2 MiB).
    const lit = await page.evaluate<number[]>(`(() => {
      const M = window.memsim, st = M.data.runs[M.state.run].states[M.state.index];
      return M.highlightedPieces().map((j) => st.pieces[j * 5 + 2]);
    })()`);
    expect(lit.sort((a, b) => a - b)).toEqual([2 * MiB, 2 * MiB, 4 * MiB]);
    const hovered = await pixels(page);
    expect(hovered).not.toBe(before);
    await page.locator('#holders-table tr.holder').nth(1).hover();
    await until(page, 'window.memsim.state.highlight === 1');
    expect(await page.evaluate<number>('window.memsim.highlightedPieces().length')).toBe(1);
    await page.mouse.move(2, 2);
    await until(page, 'window.memsim.state.highlight === null');
    expect(await pixels(page)).toBe(before);
    await page.close();
    expect(problems).toEqual([]);
  });

  it('clicking a row pins it and shows the stack of its largest block', async () => {
    const page = await open();
    await peakLive(page);
    await page.locator('#holders-table tr.holder').nth(0).click();
    await page.mouse.move(2, 2);
    await until(page, 'window.memsim.state.pinned === 0 && window.memsim.state.highlight === 0');
    expect(await page.isVisible('#holder-stack')).toBe(true);
    expect(await page.textContent('#holder-stack')).toBe('stack of its largest block, innermost first:\n/work/train/model.py:10:forward\n/work/train/train.py:7:step');
    expect(await page.getAttribute('#holders-table tr.holder >> nth=0', 'title')).toContain('/work/train/model.py:10:forward');
    await page.locator('#holders-table tr.holder').nth(0).click();
    await page.mouse.move(2, 2);
    await until(page, 'window.memsim.state.pinned === null && window.memsim.state.highlight === null');
    expect(await page.isVisible('#holder-stack')).toBe(false);
    await page.close();
    expect(problems).toEqual([]);
  });
});
