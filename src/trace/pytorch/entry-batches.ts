import { EntryReader } from './entry-reader.js';
import type { PickleValue } from './pickle-value.js';
import { ReadAgain } from './raw-frames.js';
import type { TraceRows } from './trace-rows.js';

/**
 * The snapshot unpickler's reading of a trace list's batches: MARK, then entry after entry (each
 * EMPTY_DICT and the rest of the entry read in one go), then APPENDS. The entries after the first
 * of a batch are not pushed on the value stack while they are read, only counted: a thousand pushed
 * and then dropped by APPENDS would have the runtime trim the stack's room and grow it again, some
 * 30 KB of garbage per batch (16 MB for a snapshot of 100 MB). The batch's APPENDS takes them as
 * the opcode would; anything else after them gets them pushed first.
 */
export abstract class BatchReader extends EntryReader {
  /** Stack index of the last entry begun. */
  protected entryAt = -1;
  /** The position in {@link buf} past which the window moves on (the end of `buf`: the whole input is held; see file-window.ts). */
  protected limit = 0;
  /** Entries of the batch being read that are not on the stack (they would be above its top). */
  protected entriesHeld = 0;

  /**
   * The entries of `rows` from the one just begun (its EMPTY_DICT ends at `pos`), each read in one go,
   * and those that follow it in the same batch (EMPTY_DICT after EMPTY_DICT above the list's MARK),
   * begun as EMPTY_DICT does, but held (see {@link entriesHeld}): the position where the opcodes go
   * on, after {@link afterBatch}. A small loop of its own, so that it runs optimized early in a read;
   * its way out runs nothing that has not run before in every entry, so that the optimized code is
   * not thrown away at the end of the first batch.
   */
  protected entries(rows: TraceRows, pos: number): number {
    const buf = this.buf;
    const stack = this.stack;
    let held = 0;
    this.entriesHeld = 0;
    for (;;) {
      const after = this.readEntry(rows, pos);
      if (after < 0) {
        this.undoEntry();
        return pos;
      }
      pos = after;
      // Past the window's limit, the opcodes' loop moves it on first.
      if (pos > this.limit || buf[pos] !== 0x7d || this.marks.length === 0 || stack[this.floor - 1] !== (rows as unknown)) return pos;
      this.at = pos++;
      this.op = 0x7d;
      rows.open();
      // The index the entry has on the stack once pushed.
      this.entryAt = stack.length + held;
      this.entriesHeld = ++held;
    }
  }

  /** After {@link entries} held some entries of `rows`: the batch's APPENDS at `pos` run, else the entries pushed; the position after. */
  protected afterBatch(rows: TraceRows, pos: number): number {
    const held = this.entriesHeld;
    this.entriesHeld = 0;
    const stack = this.stack;
    if (pos <= this.limit && this.buf[pos] === 0x65 && this.marks.length > 0 && stack[this.floor - 1] === (rows as unknown)) {
      // APPENDS, as the opcode runs it, with the entries held as if they were on the stack.
      this.at = pos;
      this.op = 0x65;
      const m = this.popMark();
      if (this.below(m) !== (rows as unknown)) throw new ReadAgain('a batch of entries appended to another list');
      const n = stack.length;
      for (let i = m; i < n; i++) if (stack[i] !== (rows.entry as unknown)) throw new ReadAgain('a trace list holding something other than its entries');
      rows.take(n - m + held);
      stack.length = m;
      return pos + 1;
    }
    for (let i = 0; i < held; i++) stack.push(rows.entry as unknown as PickleValue);
    return pos;
  }
}
