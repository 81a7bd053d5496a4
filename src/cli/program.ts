import { Command } from 'commander';
import { VERSION } from '../version.js';
import { EXIT_OK, handleError } from './errors.js';
import { isTerminal, writeErr, writeOutput } from './io.js';

/** Commands by name, each with a function that loads the module defining it and returns the command. */
export type CommandTable = Readonly<Record<string, () => Promise<Command>>>;

/**
 * The command names that a command line needs defined: the one it runs, none for the version, else
 * all of `commands`.
 */
export function commandsFor(argv: readonly string[] | undefined, commands: CommandTable): string[] {
  const first = argv?.[2];
  if (first !== undefined && Object.hasOwn(commands, first)) return [first];
  if (isVersionOnly(argv)) return [];
  return Object.keys(commands);
}

/** Whether a command line is `memsim --version` (or `-V`) and nothing else. */
export function isVersionOnly(argv: readonly string[] | undefined): boolean {
  return argv !== undefined && argv.length === 3 && (argv[2] === '-V' || argv[2] === '--version');
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
 * The commander program. Given the command line, it defines only the command of `commands` that the
 * line runs; without one, every command.
 */
export async function buildProgram(argv: readonly string[] | undefined, commands: CommandTable): Promise<Command> {
  const program = new Command('memsim')
    .description('replay device-memory allocation traces through faithful allocator simulations')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput(OUTPUT)
    .exitOverride();
  const names = commandsFor(argv, commands);
  const defined = await Promise.all(names.map((name) => (commands[name] as () => Promise<Command>)()));
  for (const cmd of defined) {
    program.addCommand(cmd.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput(OUTPUT));
  }
  return program;
}

/** Runs a program and returns the exit code (0 ok, 1 a gate failed, 2 error). */
export async function runProgram(program: Command, argv: readonly string[]): Promise<number> {
  try {
    await program.parseAsync(argv);
    return EXIT_OK;
  } catch (e) {
    return handleError(e, writeErr);
  }
}
