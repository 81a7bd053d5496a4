import { Command } from 'commander';
import { VERSION } from '../version.js';
import { allocatorsCommand } from './commands/allocators.js';
import { compareCommand } from './commands/compare.js';
import { convertCommand } from './commands/convert.js';
import { genCommand } from './commands/gen.js';
import { planCommand } from './commands/plan.js';
import { replayCommand } from './commands/replay.js';
import { reportCommand } from './commands/report.js';
import { tuneCommand } from './commands/tune.js';
import { validateCommand } from './commands/validate.js';
import { EXIT_OK, handleError } from './errors.js';

/** The commander program with every command. */
export function buildProgram(): Command {
  const program = new Command('memsim')
    .description('replay device-memory allocation traces through faithful allocator simulations')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const cmd of [replayCommand(), compareCommand(), tuneCommand(), reportCommand(), validateCommand(), allocatorsCommand(), genCommand(), convertCommand(), planCommand()]) {
    program.addCommand(cmd.exitOverride().showHelpAfterError('(run with --help for usage)'));
  }
  return program;
}

/** Runs the CLI and returns the exit code (0 ok, 1 a gate failed, 2 error). */
export async function main(argv: string[]): Promise<number> {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  try {
    await buildProgram().parseAsync(argv);
    return EXIT_OK;
  } catch (e) {
    return handleError(e, (s) => process.stderr.write(s));
  }
}
