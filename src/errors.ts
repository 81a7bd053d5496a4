/**
 * Typed errors. Outcomes (an OOM, a failed gate) are data, not exceptions; these are for bad input
 * and bad usage, and the CLI maps every one of them to exit code 2 in one place.
 */

/** One problem found in an input file, located as precisely as the reader can. */
export interface InputProblem {
  /** The file as the user named it. */
  file: string;
  /** 1-based line, when known. */
  line?: number;
  /** 1-based column (bytes), when known. */
  col?: number;
  /**
   * Where in a structured file without lines (a pickle) the problem is: the path of the entry,
   * e.g. `device_traces[0][4]`; the field, when given, follows it (`device_traces[0][4].size`).
   */
  entry?: string;
  /**
   * The event's place in the file's array (`events[3]`), where lines do not tell events apart (a JSON
   * trace written on one line).
   */
  item?: string;
  /** The field of the event or record at fault, when there is one. */
  field?: string;
  message: string;
}

/** Base class of every error that memsim reports to the user as a message rather than a bug. */
export class MemsimError extends Error {
  override name = 'MemsimError';
}

/** Bad command-line usage: unknown allocator, malformed option value, missing file argument. */
export class UsageError extends MemsimError {
  override name = 'UsageError';
}

/**
 * An output could not be written (a full disk, a read-only file system, a missing folder): the message
 * is `cannot write FILE: what went wrong`, exit 2.
 */
export class OutputError extends MemsimError {
  override name = 'OutputError';
}

/**
 * The reader of an output went away (a pipe closed early, as with `| head`). Not a failure of the
 * command: it stops writing and exits quietly, as `cat` and `grep` do.
 */
export class OutputClosed extends Error {
  override name = 'OutputClosed';
  /** @param destination what the user calls the output (`standard output`, a path) */
  constructor(readonly destination: string) {
    super(`the reader of ${destination} closed it`);
  }
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const CONTROL_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` with the control characters that a terminal acts on written as escapes (`\x1b`), so that
 * input quoted in a message cannot clear, recolour or rewrite the screen; line feeds are kept when
 * `lines` is true (messages of several lines), escaped otherwise.
 */
export function printable(text: string, lines = false): string {
  return text.replace(lines ? CONTROL_BUT_LF : CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Formats one problem as `file:line[:col]: [field: ]message`, or `file: entry.field: message`, on one line. */
export function formatProblem(p: InputProblem): string {
  if (p.entry !== undefined) return printable(`${p.file}: ${p.entry}${p.field ? `.${p.field}` : ''}: ${p.message}`);
  let where = p.file;
  if (p.line !== undefined) where += `:${p.line}`;
  if (p.line !== undefined && p.col !== undefined) where += `:${p.col}`;
  const item = p.item ? `${p.item}: ` : '';
  const field = p.field ? `field "${p.field}": ` : '';
  return printable(`${where}: ${item}${field}${p.message}`);
}

/** Maximum number of problems listed one by one; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 20;

/**
 * Invalid input: one or more problems, each with file and line. Readers collect up to
 * {@link MAX_LISTED_PROBLEMS} and count the rest so that a user can fix a file in one go.
 */
export class TraceError extends MemsimError {
  override name = 'TraceError';
  readonly problems: InputProblem[];
  readonly totalProblems: number;

  constructor(problems: InputProblem[], totalProblems = problems.length) {
    super(TraceError.render(problems, totalProblems));
    this.problems = problems;
    this.totalProblems = totalProblems;
  }

  /** A single-problem error. */
  static at(file: string, line: number | undefined, message: string, field?: string, col?: number): TraceError {
    const p: InputProblem = { file, message };
    if (line !== undefined) p.line = line;
    if (col !== undefined) p.col = col;
    if (field !== undefined) p.field = field;
    return new TraceError([p]);
  }

  private static render(problems: InputProblem[], total: number): string {
    const lines = problems.map(formatProblem);
    if (total > problems.length) lines.push(`… and ${total - problems.length} more problems`);
    return lines.join('\n');
  }
}

/** Collects problems up to the listing limit and counts the rest. */
export class ProblemList {
  readonly listed: InputProblem[] = [];
  total = 0;

  add(p: InputProblem): void {
    this.total++;
    if (this.listed.length < MAX_LISTED_PROBLEMS) this.listed.push(p);
  }

  get isEmpty(): boolean {
    return this.total === 0;
  }

  /** Throws a {@link TraceError} carrying every collected problem, if there is any. */
  throwIfAny(): void {
    if (this.total > 0) throw new TraceError(this.listed, this.total);
  }
}
