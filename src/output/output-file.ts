import { closeSync, openSync, renameSync, unlinkSync } from 'node:fs';
import { OutputError } from '../errors.js';
import { describeSystemError } from '../util/system-error.js';
import { openStaging, type Staging } from './staging.js';
import { writeFully } from './write-fully.js';

/** Bytes of text gathered before they are written. */
const BUFFER_BYTES = 1 << 20;
/** What users call file descriptor 1 and 2 in messages. */
const STANDARD_NAMES: Readonly<Record<number, string>> = { 1: 'standard output', 2: 'standard error' };

/**
 * The one way memsim writes output: reports, `--output`, `--json-output`, `--placements`, generated
 * and converted traces, CSV plans, HTML pages, to a file or to standard output (`-`).
 *
 * Text and bytes are buffered and written with {@link writeFully}: every byte reaches a pipe however
 * slow its reader; a reader that went away ends the command quietly ({@link OutputClosed}); a full
 * disk or any other refusal is `cannot write FILE: what went wrong` ({@link OutputError}, exit 2).
 */
export class OutputFile {
  /** The destination as messages name it: the path, or `standard output`. */
  readonly name: string;
  private readonly fd: number;
  private readonly ownsFd: boolean;
  private parts: string[] = [];
  private partChars = 0;
  private isClosed = false;
  /** Where the output is written until {@link close} puts it in place (see the constructor's `replace`). */
  private readonly staging: Staging | undefined;

  /**
   * @param target a file to create or truncate; `-` for standard output; or an open descriptor (1, 2),
   *   which close() leaves open
   * @param options.replace write a file beside `target` and rename it onto it once closed (see
   *   staging.ts): the target is left as it was when the output is abandoned (an input found bad
   *   half-way), and is never seen half-written. Where that cannot be (a device, a pipe, a file with
   *   other hard links, a directory that takes no new file), the target is written in place.
   * @param staging a staging file opened already (see {@link OutputFile.staged})
   */
  constructor(target: string | number, options: { replace?: boolean } = {}, staging?: Staging) {
    if (typeof target === 'number' || target === '-') {
      this.fd = target === '-' ? 1 : target;
      this.ownsFd = false;
      this.name = STANDARD_NAMES[this.fd] ?? `file descriptor ${this.fd}`;
      return;
    }
    this.name = target;
    this.ownsFd = true;
    this.staging = staging ?? (options.replace ? openStaging(target) : undefined);
    if (this.staging) {
      this.fd = this.staging.fd;
      return;
    }
    try {
      this.fd = openSync(target, 'w');
    } catch (e) {
      throw new OutputError(`cannot write ${target}: ${describeSystemError(e)}`);
    }
  }

  /**
   * The output to file `target` written beside it and renamed onto it once whole (see the
   * constructor's `replace`), or undefined where it cannot be so written: then nothing was opened,
   * and the target is untouched.
   */
  static staged(target: string): OutputFile | undefined {
    const staging = openStaging(target);
    return staging ? new OutputFile(target, {}, staging) : undefined;
  }

  /** Appends text (UTF-8). */
  write(text: string): void {
    this.parts.push(text);
    this.partChars += text.length;
    if (this.partChars > BUFFER_BYTES) this.flush();
  }

  /** Appends bytes [0, length) of `bytes`, after the text so far (writers that format bytes themselves). */
  bytes(bytes: Uint8Array, length = bytes.length): void {
    this.flush();
    writeFully(this.fd, bytes, 0, length, this.name);
  }

  /** Writes what is buffered. */
  flush(): void {
    if (this.parts.length === 0) return;
    const buf = Buffer.from(this.parts.length === 1 ? (this.parts[0] as string) : this.parts.join(''), 'utf8');
    this.parts = [];
    this.partChars = 0;
    writeFully(this.fd, buf, 0, buf.length, this.name);
  }

  /** Writes what is buffered and closes the file (never standard output). Closing twice does nothing. */
  close(): void {
    if (this.isClosed) return;
    this.flush();
    this.isClosed = true;
    if (!this.ownsFd) return;
    try {
      closeSync(this.fd);
      if (this.staging) renameSync(this.staging.path, this.staging.target);
    } catch (e) {
      this.dropStaging();
      throw new OutputError(`cannot write ${this.name}: ${describeSystemError(e)}`);
    }
  }

  /** Removes the file written in place of the target (see the constructor's `replace`). */
  private dropStaging(): void {
    if (!this.staging) return;
    try {
      unlinkSync(this.staging.path);
    } catch {
      // gone already
    }
  }

  /** Gives the descriptor back without writing what is buffered (the command failed). */
  abandon(): void {
    this.parts = [];
    this.partChars = 0;
    if (this.isClosed || !this.ownsFd) return;
    this.isClosed = true;
    try {
      closeSync(this.fd);
    } catch {
      // Nothing to say about a file that is being given up on.
    }
    this.dropStaging();
  }
}

/**
 * Writes `text` whole to `path` (`-` or undefined: standard output) through an {@link OutputFile}:
 * a string, or its UTF-8 bytes as chunks written in turn (a large output built as bytes; each chunk
 * is written before the next is asked for, so they may share a buffer).
 */
export function writeText(path: string | undefined, text: string | Iterable<Uint8Array>): void {
  const out = new OutputFile(path ?? '-');
  try {
    if (typeof text === 'string') out.write(text);
    else for (const chunk of text) out.bytes(chunk);
    out.close();
  } catch (e) {
    out.abandon();
    throw e;
  }
}
