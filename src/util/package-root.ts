/**
 * Files of memsim's own package, wherever the running module sits: `src/` (tests run the sources),
 * `dist/`, or the CLI bundle in `dist/cli-bundle/` (`npm run build` bundles the CLI so that it starts
 * fast). Paths relative to a module would differ between these; paths from the package root do not.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let root: URL | undefined;

/** The directory of memsim's package.json. */
export function packageRoot(): URL {
  if (root) return root;
  let dir = new URL('./', import.meta.url);
  for (;;) {
    const pkg = new URL('package.json', dir);
    if (existsSync(fileURLToPath(pkg)) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'memsim') return (root = dir);
    const up = new URL('../', dir);
    if (up.href === dir.href) throw new Error(`memsim's package.json was not found above ${import.meta.url}`);
    dir = up;
  }
}

/** A file of the package, e.g. `dist/sweep/worker.js`. */
export function packageFile(path: string): URL {
  return new URL(path, packageRoot());
}
