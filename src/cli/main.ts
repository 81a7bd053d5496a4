import type { Command } from 'commander';
import { handleError } from './errors.js';
import { writeErr } from './io.js';
import { buildProgram as build, type CommandTable, runProgram } from './program.js';

/**
 * Every command, by name, with the module that defines it. A run loads the module of the command it
 * names and no other (start-up is the time of one command's modules, not of all of them); help and
 * unknown commands load them all.
 */
const COMMANDS: CommandTable = {
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

/**
 * The commander program. Given the command line, it defines only the command that the line runs;
 * without one, every command.
 */
export function buildProgram(argv?: readonly string[]): Promise<Command> {
  return build(argv, COMMANDS);
}

/** Runs the CLI and returns the exit code (0 ok, 1 a gate failed, 2 error). */
export async function main(argv: string[]): Promise<number> {
  let program: Command;
  try {
    program = await buildProgram(argv);
  } catch (e) {
    return handleError(e, writeErr);
  }
  return runProgram(program, argv);
}
