import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { describeSystemError } from '../util/system-error.js';

/** Whether to colour output written to stdout: a TTY, no NO_COLOR, no --no-color. */
export function useColor(noColorFlag: boolean, toFile: boolean): boolean {
  if (noColorFlag || toFile) return false;
  if (process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '') return false;
  if (process.env['FORCE_COLOR'] !== undefined && process.env['FORCE_COLOR'] !== '0') return true;
  return process.stdout.isTTY === true;
}

/** Writes a command's result to `--output FILE` or stdout. */
export function writeOutput(text: string, output: string | undefined): void {
  if (output && output !== '-') {
    try {
      writeFileSync(output, text);
    } catch (e) {
      throw new UsageError(`cannot write ${output}: ${describeSystemError(e)}`);
    }
    return;
  }
  process.stdout.write(text);
}

/**
 * Where an HTML report goes: `--output FILE`, or stdout when it is redirected. A page of a few
 * megabytes is of no use on a terminal, so there `--output` is required.
 */
export function htmlDestination(output: string | undefined): void {
  if ((output === undefined || output === '-') && process.stdout.isTTY === true) {
    throw new UsageError('the HTML report needs --output FILE (or redirect stdout to a file)');
  }
}

/** A line-oriented file writer with a buffer (placements CSV). */
export class LineFile {
  private fd: number;
  private parts: string[] = [];
  private size = 0;
  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, 'w');
    } catch (e) {
      throw new UsageError(`cannot write ${path}: ${describeSystemError(e)}`);
    }
  }
  line(s: string): void {
    this.parts.push(s, '\n');
    this.size += s.length + 1;
    if (this.size > 1 << 20) this.flush();
  }
  /** Writes bytes [0, length) of `bytes` after the lines so far (writers that format bytes themselves). */
  bytes(bytes: Uint8Array, length: number): void {
    this.flush();
    let done = 0;
    while (done < length) done += writeSync(this.fd, bytes, done, length - done);
  }
  private flush(): void {
    if (this.parts.length === 0) return;
    writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.size = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
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
    this.enabled = mode === 'always' || (mode === 'auto' && process.stderr.isTTY === true);
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
    process.stderr.write(`\r${this.label} [${bar}] ${(frac * 100).toFixed(0).padStart(3)}% ${done}/${total} ${unit}${elapsed}`);
    this.drawn = true;
  }
  done(): void {
    if (this.drawn) process.stderr.write('\r\x1b[K');
    this.drawn = false;
  }
}

/** Elapsed time on a progress line: `42s`, `3m05s`. */
export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}
