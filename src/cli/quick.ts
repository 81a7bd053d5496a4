import type { Command } from 'commander';
import { EXIT_OK, handleError } from './errors.js';
import { writeErr } from './io.js';
import { buildProgram, type CommandTable, isVersionOnly } from './program.js';

/**
 * The entry of the quick bundle (dist/quick-bundle/, see scripts/bundle.mjs and quick-loader.ts):
 * the command lines whose time is mostly start-up, `memsim --version`, `memsim replay`, `memsim plan`
 * and `memsim compare`, run from a bundle that Node compiles from V8's code cache. Every other command line is left to the whole CLI
 * (dist/cli-bundle/), as are `replay --format html` and `compare --format html`, whose page code is
 * not in this bundle.
 */
const QUICK: CommandTable = {
  replay: async () => (await import('./commands/replay.js')).replayCommand(),
  plan: async () => (await import('./commands/plan.js')).planCommand(),
  compare: async () => (await import('./commands/compare.js')).compareCommand(),
};

/** Thrown before an action that the quick bundle cannot run; nothing has been read or written yet. */
class WholeCliNeeded extends Error {}

/** Whether the quick bundle runs this command line (quick-loader.ts decides the same without loading it). */
function isQuick(argv: readonly string[]): boolean {
  const first = argv[2];
  return isVersionOnly(argv) || (first !== undefined && Object.hasOwn(QUICK, first));
}

/**
 * Runs the command line and returns the exit code, or undefined when the whole CLI must run it (then
 * this has written nothing).
 */
export async function quickMain(argv: string[]): Promise<number | undefined> {
  if (!isQuick(argv)) return undefined;
  let program: Command;
  try {
    program = await buildProgram(argv, QUICK);
  } catch (e) {
    return handleError(e, writeErr);
  }
  // Options are parsed and checked by then; the action has not started.
  program.hook('preAction', (_program, command) => {
    if (command.opts()['format'] === 'html') throw new WholeCliNeeded();
  });
  try {
    await program.parseAsync(argv);
    return EXIT_OK;
  } catch (e) {
    if (e instanceof WholeCliNeeded) return undefined;
    return handleError(e, writeErr);
  }
}
