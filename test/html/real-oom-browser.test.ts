/**
 * The real run's OOM of a PyTorch snapshot in the HTML report of a simulation: the page captures the
 * simulation's state when the failed request came (after the event before it; the request is no
 * event of the trace) and its button shows that state. `gpt2-cpp-oom` failed on a 64 MiB request
 * under a 600 MiB fraction, before event 749; the caching simulation reproduces it at 600 MiB.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempDir } from '../helpers.js';
import { browserMissing, openBrowser } from './chromium.js';

const missing = browserMissing();
if (missing) console.warn(`SKIPPED: ${missing}`);

describe.skipIf(missing !== null)("the real run's OOM in the HTML report, in Chromium", () => {
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  const pagePath = join(tempDir(), 'real-oom.html');
  const problems: string[] = [];

  beforeAll(async () => {
    const r = runCli(['replay', join(FIXTURES, 'pytorch-gpu', 'gpt2-cpp-oom.pickle'), '--capacity', '600MiB', '--format', 'html', '--output', pagePath]);
    expect(r.code).toBe(0);
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows the simulation's state when the real run failed: 538 MiB reserved, with the holders then", async () => {
    const page = await browser.context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(pathToFileURL(pagePath).href);
    await page.waitForSelector('html[data-ready]', { timeout: 30_000 });
    await page.click('button.show-real-oom[data-run="0"][data-real-oom="0"]');
    const shown = await page.evaluate<{ event: number; realOom: number | undefined; reserved: number; live: number | null }>(`(() => {
      const M = window.memsim, st = M.data.runs[M.state.run].states[M.state.index];
      return { event: st.event, realOom: st.realOom, reserved: st.totals.reservedBytes, live: st.holders ? st.holders.moment.liveBytes : null };
    })()`);
    // The state after event 748: what the caching simulation held when the 64 MiB request came.
    // The same live set as the report's holders at that OOM (attribution.realRunOoms).
    const json = JSON.parse(runCli(['replay', join(FIXTURES, 'pytorch-gpu', 'gpt2-cpp-oom.pickle'), '--capacity', '600MiB', '--format', 'json']).stdout);
    expect(shown).toEqual({ event: 748, realOom: 0, reserved: 538 * 1024 * 1024, live: json.attribution.realRunOoms[0].liveBytes });
    expect(await page.textContent('#state-head')).toContain("caching when the real run's request of 64.00 MiB failed on the device, before event 749 (after event 748, step 0): reserved 538.00 MiB");
    expect(await page.locator('#state-moment option:checked').textContent()).toBe("the real run's OOM · before event 749");
    await page.close();
    expect(problems).toEqual([]);
  });
});
