import { Command } from 'commander';
import { VERSION } from '../version.js';
import { EXIT_OK, handleError } from './errors.js';
import { isTerminal, writeErr, writeOutput } from './io.js';

/**
 * Every command, by name, with the module that defines it. A run loads the module of the command it
 * names and no other (start-up is the time of one command's modules, not of all of them); help and
 * unknown commands load them all.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  replay: async () => (await import('./commands/replay.js')).replayCommand(),
  compare: async () => (await import('./commands/compare.js')).compareCommand(),
  tune: async () => (await import('./commands/tune.js')).tuneCommand(),
  report: async () => (await import('./commands/report.js')).reportCommand(),
  validate: async () => (await import('./commands/validate.js')).validateCommand(),
  allocators: async () => (await import('./commands/allocators.js')).allocatorsCommand(),
  gen: async () => (await import('./commands/gen.js')).genCommand(),
  convert: async () => (await import('./commands/convert.js')).convertCommand(),
  plan: async () => (await import('./commands/plan.js')).planCommand(),
  diff: async () => (await import('./commands/diff.js')).diffCommand(),
};

/** The command names that a command line needs defined: the one it runs, none for the version, else all. */
function commandsFor(argv: readonly string[] | undefined): string[] {
  const first = argv?.[2];
  if (first !== undefined && Object.hasOwn(COMMANDS, first)) return [first];
  if (argv && argv.length === 3 && (first === '-V' || first === '--version')) return [];
  return Object.keys(COMMANDS);
}

/**
 * commander's output: its messages (unknown option, missing argument) under memsim's one prefix, and
 * help and version written as every other output is (never through `process.stdout`, see io.ts).
 */
const OUTPUT = {
  writeOut: (text: string): void => writeOutput(text, undefined),
  writeErr,
  outputError: (text: string, write: (s: string) => void): void => write(text.replace(/^error: /, 'memsim: ')),
  getOutHelpWidth: (): number => (isTerminal(1) ? process.stdout.columns : 80),
  getErrHelpWidth: (): number => (isTerminal(2) ? process.stderr.columns : 80),
  getOutHasColors: (): boolean => false,
  getErrHasColors: (): boolean => false,
};

/**
 * The commander program. Given the command line, it defines only the command that the line runs;
 * without one, every command.
 */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const program = new Command('memsim')
    .description('replay device-memory allocation traces through faithful allocator simulations')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput(OUTPUT)
    .exitOverride();
  const names = commandsFor(argv);
  const commands = await Promise.all(names.map((name) => (COMMANDS[name] as () => Promise<Command>)()));
  for (const cmd of commands) {
    program.addCommand(cmd.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput(OUTPUT));
  }
  return program;
}

/** Runs the CLI and returns the exit code (0 ok, 1 a gate failed, 2 error). */
export async function main(argv: string[]): Promise<number> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
    return EXIT_OK;
  } catch (e) {
    return handleError(e, writeErr);
  }
}
