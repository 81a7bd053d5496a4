import { type InputProblem, ProblemList } from '../errors.js';
import { EventColumns } from './event-columns.js';
import { invalidIdMessage, invalidUtf8At } from './utf8.js';

/**
 * The problems found while a trace is built, and how they name where an event came from: its line,
 * its entry in a list (importers of files without lines), or its index in a file's array. The
 * {@link TraceBuilder} builds on these columns and reports through them.
 */
/** The most ids of refused allocs that a build keeps (see BuildProblems.refused). */
const MAX_REFUSED = 4096;

export class BuildProblems extends EventColumns {
  readonly problems = new ProblemList();
  /**
   * Set by importers of files without lines (a snapshot's `device_traces[d]`): the `line` given with
   * each event is then 1 + the index of its entry in that list, problems name the entry by its path
   * (`device_traces[0][4].addr`), and `fields` names the entry's fields for the event's.
   */
  entries: { list: string; fields: Readonly<Record<string, string>> } | undefined;

  /**
   * Where the event being read sits in the file's array (`events[3]`), for problems, when the reader
   * says that lines do not tell events apart; -1 otherwise. Kept as a name and a number so that no
   * string is built per event.
   */
  itemArray = 'events';
  itemIndex = -1;

  /**
   * Ids whose alloc was refused for a problem with its fields: their free is not a second problem
   * (`free of id … which was never allocated`), which would only follow from the first. Kept up to
   * {@link MAX_REFUSED} of them.
   */
  private refused: Set<string> | undefined;

  /** Notes that the alloc of `id` was refused (see {@link refused}). */
  refuseAlloc(id: string): void {
    this.refused ??= new Set();
    if (this.refused.size < MAX_REFUSED) this.refused.add(id);
  }

  /** Reports a tag (bytes [s, e) of `buf`) that is not UTF-8, which would read as U+FFFD (see utf8.ts). */
  protected checkTag(buf: Uint8Array, s: number, e: number, line: number): void {
    const bad = invalidUtf8At(buf, s, e);
    if (bad >= 0) this.problem({ line, field: 'tag', message: invalidIdMessage(buf, s, bad, 'tag') });
  }

  /** True when the latest alloc of `id` was refused (and forgets it: one free follows one alloc). */
  protected wasRefused(id: string): boolean {
    return this.refused?.delete(id) ?? false;
  }

  /** Records a syntax or type problem found by the reader. */
  problem(p: Omit<InputProblem, 'file'>): void {
    if (this.itemIndex >= 0 && p.item === undefined) p = { ...p, item: `${this.itemArray}[${this.itemIndex}]` };
    const e = this.entries;
    if (e && p.line !== undefined && p.entry === undefined) {
      const { line, col: _col, field, ...rest } = p;
      const named = field === undefined ? undefined : (e.fields[field] ?? field);
      this.problems.add({ file: this.file, ...rest, entry: this.entryAt(line), ...(named !== undefined ? { field: named } : {}) });
      return;
    }
    this.problems.add({ file: this.file, ...p });
  }

  /** The path of the entry an event came from (entries mode), e.g. `device_traces[0][4]`. */
  private entryAt(line: number): string {
    const e = this.entries as { list: string };
    return line > 0 ? `${e.list}[${line - 1}]` : `${e.list} (the state when the window opened)`;
  }

  /** Where an earlier event is, for messages: `line N`, or its entry's path. */
  protected where(line: number, event?: number): string {
    if (this.entries) return this.entryAt(line);
    // On a line shared by many events the event's index says more.
    return this.itemIndex >= 0 && event !== undefined ? `line ${line}, event ${event}` : `line ${line}`;
  }
}

/**
 * The problem of a free that gives a size (`given`) other than its allocation's (`allocated`, whose
 * alloc is at `where`): the id is bytes [s, e) of `buf`.
 */
export function freeSizeMessage(buf: Uint8Array, s: number, e: number, given: number, allocated: number, where: string): string {
  const id = Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('utf8');
  return `size ${given} on the free of id "${id}", whose alloc at ${where} has size ${allocated} (a free's size is left empty, or repeats its alloc's)`;
}
