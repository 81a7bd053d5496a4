import { createRequire } from 'node:module';
import type * as Path from 'node:path';
import type * as Url from 'node:url';
import { CodeCachedBundle } from '../util/code-cache.js';

export { cacheFileName, CodeCachedBundle } from '../util/code-cache.js';

// Through require, not import: the ES module facade of node:fs loads its streams, some milliseconds
// of a start-up that this module exists to shorten.
const nodeRequire = createRequire(import.meta.url);
const path = nodeRequire('node:path') as typeof Path;
const url = nodeRequire('node:url') as typeof Url;

/** The commands that the quick bundle runs (its entry, src/cli/quick.ts, defines them). */
export const QUICK_COMMANDS: readonly string[] = ['replay', 'plan', 'compare'];

/** Whether the quick bundle runs a command line: `memsim --version` (or `-V`) alone, or a quick command. */
export function isQuickLine(argv: readonly string[]): boolean {
  const first = argv[2];
  if (argv.length === 3 && (first === '-V' || first === '--version')) return true;
  return first !== undefined && QUICK_COMMANDS.includes(first);
}

/** The quick bundle of this package, dist/quick-bundle/, and its code cache. */
function quickBundle(): CodeCachedBundle {
  const dir = path.join(path.dirname(url.fileURLToPath(import.meta.url)), '..', 'quick-bundle');
  return CodeCachedBundle.inDir(dir);
}

/**
 * Runs a command line through the quick bundle and returns its exit code, or undefined when the
 * whole CLI must run it: another command, `replay --format html`, or no quick bundle built.
 */
export async function runQuick(argv: string[], bundle: CodeCachedBundle = quickBundle()): Promise<number | undefined> {
  if (!isQuickLine(argv)) return undefined;
  let entry: { quickMain(argv: string[]): Promise<number | undefined> };
  try {
    entry = bundle.load('index.cjs') as typeof entry;
  } catch {
    return undefined;
  }
  process.once('exit', () => bundle.writeCache());
  return entry.quickMain(argv);
}
