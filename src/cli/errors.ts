import { CommanderError } from 'commander';
import { MemsimError, OutputClosed, printable, TraceError, UsageError } from '../errors.js';
import { describeSystemError, isSystemError } from '../util/system-error.js';

/** A gate failed: the command ran to the end, and exits 1 with this message as the last stderr line. */
export class GateFailure extends Error {
  override name = 'GateFailure';
}

/** Exit codes: 0 ok, 1 a gate failed, 2 bad usage, invalid input or an internal error. */
export const EXIT_OK = 0;
export const EXIT_GATE = 1;
export const EXIT_ERROR = 2;

/**
 * Turns any error into a message on stderr and an exit code, in one place. Bad input never shows a
 * stack trace; an internal error shows one only with MEMSIM_DEBUG=1.
 */
export function handleError(e: unknown, writeErr: (s: string) => void): number {
  if (e instanceof CommanderError) {
    // commander has printed its own message (or the help); only the code is ours to set.
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT_OK;
    return EXIT_ERROR;
  }
  if (e instanceof OutputClosed) {
    // The reader has all it wanted (`| head`): nothing went wrong, as with cat and grep.
    return EXIT_OK;
  }
  if (e instanceof GateFailure) {
    writeErr(`memsim: ${printable(e.message, true)}\n`);
    return EXIT_GATE;
  }
  if (e instanceof TraceError) {
    const n = e.totalProblems;
    writeErr(`memsim: invalid input (${n} problem${n === 1 ? '' : 's'}):\n${e.message}\n`);
    return EXIT_ERROR;
  }
  if (e instanceof UsageError || e instanceof MemsimError) {
    writeErr(`memsim: ${printable(e.message, true)}\n`);
    return EXIT_ERROR;
  }
  if (isSystemError(e)) {
    // The operating system refused something (a file, a device): its words, not a bug.
    writeErr(`memsim: ${printable(`${e.path ? `${e.path}: ` : ''}${describeSystemError(e)}`, true)}\n`);
    return EXIT_ERROR;
  }
  const message = e instanceof Error ? e.message : String(e);
  writeErr(`memsim: internal error: ${printable(message, true)}\n`);
  if (process.env['MEMSIM_DEBUG'] && e instanceof Error && e.stack) writeErr(`${e.stack}\n`);
  else writeErr('(set MEMSIM_DEBUG=1 for details, and please report it)\n');
  return EXIT_ERROR;
}
