import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium; the tests never download a browser. `.ci/run` installs it with apt. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  return existsSync(CHROMIUM_PATH) ? null : `no browser at ${CHROMIUM_PATH} (apt-get install chromium); the HTML report's browser tests are skipped`;
}

/** A headless Chromium with a fresh profile; `close` also removes the profile. */
export async function openBrowser(options: { colorScheme?: 'light' | 'dark' } = {}): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'memsim-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
    colorScheme: options.colorScheme ?? 'light',
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens a report from its file:// URL in a new page and waits until it has drawn itself; console
 * errors and warnings and page errors go to `problems`, for the test to require none.
 */
export async function openReport(context: BrowserContext, path: string, problems: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(pathToFileURL(path).href);
  await page.waitForSelector('html[data-ready]', { timeout: 30_000 });
  return page;
}
