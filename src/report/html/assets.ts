import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** What the HTML report inlines from its charting library. */
export interface HtmlAssets {
  /** uPlot's minified browser build (it defines the global `uPlot`). */
  uplotJs: string;
  uplotCss: string;
  /** uPlot's license text, kept with the code. */
  uplotLicense: string;
  uplotVersion: string;
}

let cached: HtmlAssets | undefined;

/**
 * Reads uPlot from the installed package (a runtime dependency pinned in package.json), once per
 * process. The page inlines it, so that the report opens with no network access.
 */
export function loadHtmlAssets(): HtmlAssets {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('uplot/package.json');
  const root = dirname(pkgPath);
  const read = (p: string): string => readFileSync(join(root, p), 'utf8');
  const pkg = JSON.parse(read('package.json')) as { version: string };
  cached = {
    uplotJs: read('dist/uPlot.iife.min.js'),
    uplotCss: read('dist/uPlot.min.css'),
    uplotLicense: read('LICENSE'),
    uplotVersion: pkg.version,
  };
  return cached;
}
