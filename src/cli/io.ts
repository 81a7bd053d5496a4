import { fstatSync } from 'node:fs';
import { createRequire } from 'node:module';
import { OutputClosed, UsageError } from '../errors.js';
import { OutputFile, writeText } from '../output/index.js';
import { DEFAULT_WIDTH, MIN_WIDTH } from '../report/layout.js';
import { formatCount } from '../util/bytes.js';

const nodeRequire = createRequire(import.meta.url);

/** The major number of Linux's memory character devices (`/dev/null` is 1, 3). */
const LINUX_MEMORY_DEVICES = 1;

/**
 * Whether file descriptor `fd` is a terminal. Asked of the descriptor, not of `process.stdout`: that
 * stream, once made, puts a pipe in non-blocking mode and reports its errors asynchronously; memsim
 * writes through {@link OutputFile} instead. Only a character device can be a terminal, and asking
 * that needs no `node:tty`, whose loading (sockets, streams) costs some milliseconds of start-up: a
 * pipe or a file is answered without it.
 */
export function isTerminal(fd: 1 | 2): boolean {
  try {
    const st = fstatSync(fd);
    if (!st.isCharacterDevice()) return false;
    // Linux's memory devices (major 1: /dev/null, /dev/zero, …), where output is thrown away (when
    // a run is timed, say), are not terminals either.
    if (process.platform === 'linux' && ((st.rdev >> 8) & 0xfff) === LINUX_MEMORY_DEVICES) return false;
  } catch {
    return false; // a closed descriptor
  }
  return (nodeRequire('node:tty') as typeof import('node:tty')).isatty(fd);
}

/** Whether to colour output written to stdout: a TTY, no NO_COLOR, no --no-color. */
export function useColor(noColorFlag: boolean, toFile: boolean): boolean {
  if (noColorFlag || toFile) return false;
  if (process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '') return false;
  if (process.env['FORCE_COLOR'] !== undefined && process.env['FORCE_COLOR'] !== '0') return true;
  return isTerminal(1);
}

/**
 * The columns a text report keeps to: `--width N`, else the terminal's width when stdout is one (and
 * the report goes there), else 100, so that a report piped or written to a file is the same
 * everywhere.
 */
export function reportWidth(given: number | undefined, toFile: boolean): number {
  if (given !== undefined) return given;
  // Only a terminal's stream is made here: stdout's stream would put a pipe in non-blocking mode.
  if (!toFile && isTerminal(1)) {
    const columns = process.stdout.columns;
    if (typeof columns === 'number' && columns > 0) return Math.max(MIN_WIDTH, columns);
  }
  return DEFAULT_WIDTH;
}

/**
 * Writes a command's result to `--output FILE` or stdout (`-` or none). A reader that has gone (`| head`)
 * had all it wanted: the command goes on to its other outputs (`--json-output`) and its gates, whose
 * failure still sets the exit code.
 */
export function writeOutput(content: string | Iterable<Uint8Array>, output: string | undefined): void {
  try {
    writeText(output, content);
  } catch (e) {
    if (!(e instanceof OutputClosed)) throw e;
  }
}

const stderr = new OutputFile(2);

/**
 * Writes to stderr (messages, notes, progress) straight away. Nothing can be said about a stderr that
 * cannot be written, so its failures are dropped.
 */
export function writeErr(text: string): void {
  try {
    stderr.write(text);
    stderr.flush();
  } catch {
    // The reader of stderr went away or its disk is full: there is nowhere left to tell.
  }
}

/**
 * Where an HTML report goes: `--output FILE`, or stdout when it is redirected. A page of a few
 * megabytes is of no use on a terminal, so there `--output` is required.
 */
export function htmlDestination(output: string | undefined): void {
  if ((output === undefined || output === '-') && isTerminal(1)) {
    throw new UsageError('the HTML report needs --output FILE (or redirect stdout to a file)');
  }
}

/** `--progress auto|always|never`. */
export type ProgressMode = 'auto' | 'always' | 'never';

/**
 * A progress line on stderr for work that takes more than about a second: only on a TTY (auto), or
 * always when asked. Timings go to stderr only; reports never depend on them.
 */
export class Progress {
  private readonly start = Date.now();
  private lastDraw = 0;
  private drawn = false;
  private readonly enabled: boolean;
  /** @param showElapsed also print the seconds since the start (for work of minutes). */
  constructor(mode: ProgressMode, private readonly label: string, private readonly showElapsed = false) {
    this.enabled = mode === 'always' || (mode === 'auto' && isTerminal(2));
  }
  update(done: number, total: number, unit = 'events'): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.start < 1000 || now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const frac = total > 0 ? Math.min(1, done / total) : 0;
    const width = 24;
    const bar = '#'.repeat(Math.round(frac * width)).padEnd(width, ' ');
    const elapsed = this.showElapsed ? `, ${formatElapsed(now - this.start)}\x1b[K` : '';
    writeErr(`\r${this.label} [${bar}] ${(frac * 100).toFixed(0).padStart(3)}% ${formatCount(done)}/${formatCount(total)} ${unit}${elapsed}`);
    this.drawn = true;
  }
  done(): void {
    if (this.drawn) writeErr('\r\x1b[K');
    this.drawn = false;
  }
}

/** Elapsed time on a progress line: `42s`, `3m05s`. */
export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}
