import type { TraceStacks } from '../model.js';
import { asFrame, classify, FALLBACK, frameText, PYTHON } from './frames.js';
import { isDict, type PickleValue } from './pickle-value.js';
import type { RawFrameLists } from './raw-frames.js';
import { growU32, HASH_START, RunIndex } from './run-index.js';
import { fitted, growColumn, newColumn } from '../columns.js';

/**
 * The user stacks of a snapshot's allocations, interned for {@link TraceStacks}: a stack keeps the
 * Python frames outside torch (innermost first), or, when it has none, the frames the viewer shows
 * that are not the allocator's or ATen's — the frames the tag is chosen from, so that a stack's
 * first frame is the allocation's tag (see `FrameTags`). Frames lists and frame dicts are cached by
 * identity (snapshots share them among many entries), and equal stacks are stored once whichever
 * list they come from (found by a hash of their frame numbers, no string per stack).
 */
export class StackTable {
  private ofAllocation: Uint32Array;
  /** Stack s (from 1; 0 is the empty stack) is run s - 1. */
  private readonly runs = new RunIndex(true);
  /** The most frames the stack being read can have (what {@link internFrame} keeps when it widens the runs). */
  private pending = 0;
  private readonly frames: string[] = [''];
  private readonly frameFile: number[] = [0];
  private readonly files: string[] = [''];
  private readonly frameIndex = new Map<string, number>();
  private readonly fileIndex = new Map<string, number>();
  private readonly lists = new Map<object, number>();
  private readonly frameDicts = new Map<object, number>();
  /** The user frames of the list being read: its Python ones (written after the stored runs), its fallback ones. */
  private fallback = new Uint32Array(64);
  private np = 0;
  /** Hash of the Python frames read so far (RunIndex.addHashed). */
  private hash = HASH_START;
  private nf = 0;
  /** Stacks and frame codes of the raw lists of one snapshot, by raw list and raw frame number (-1: not yet read). */
  private rawLists: RawFrameLists | undefined;
  private rawStack = new Int32Array(0);
  private rawFrameCode = new Int32Array(0);
  /**
   * Whether the stacks are written over the raw lists they come from, and the raw list that may be
   * read next so (see {@link ofRaw}).
   */
  private inPlace = false;
  private nextRaw = 0;
  private used = false;

  /** `room`: allocations to make room for at once (more grow the table, in place: see columns.ts). */
  constructor(room = 1024) {
    this.ofAllocation = newColumn(Uint32Array, room);
  }

  /** The stack of a frames list (0 when it has no user frame). */
  of(frames: PickleValue | undefined): number {
    if (!Array.isArray(frames) || frames.length === 0) return 0;
    const known = this.lists.get(frames);
    if (known !== undefined) return known;
    if (this.inPlace && !this.roomInPlace(frames.length)) this.leaveInPlace();
    this.np = 0;
    this.nf = 0;
    this.hash = HASH_START;
    this.pending = frames.length;
    for (const v of frames) this.add(this.frame(v));
    const s = this.finish();
    this.lists.set(frames, s);
    return s;
  }

  /**
   * The stack of frames list `r` of {@link RawFrameLists} (the lists of a snapshot's trace entries,
   * read straight from the pickle): the same stack {@link of} gives for a list of the same frames.
   *
   * `ordered`: the lists are asked for in the order they were stored (an alloc's list is stored when
   * the alloc is read, and the allocs are imported in the same order): a list is never asked for
   * after a later one. Then each stack is written over the lists already read, where the runs of the
   * stacks before it end: a stack is no longer than its list, so that it is written behind the numbers
   * being read, and a large snapshot's stacks need no memory of their own (tens of MB, each page a
   * fault to touch). Anything else (a plain list, a 16-bit table that must widen) copies the stacks
   * so far out of the lists first (see {@link leaveInPlace}).
   */
  ofRaw(r: number, raw: RawFrameLists, ordered = false): number {
    if (this.rawLists !== raw) this.begin(raw, ordered);
    let s = this.rawStack[r] as number;
    if (s >= 0) return s;
    if (this.inPlace) {
      // Lists before `nextRaw` may be written over: one of them asked for now would be read wrong.
      if (r < this.nextRaw) throw new Error('a frames list asked for after a later one');
      if (this.runs.data === raw.runs.data) this.nextRaw = r + 1;
      else this.leaveInPlace();
    }
    // The loop of `add`, with the run's room made once and the state in locals.
    const from = raw.runs.start[r] as number;
    const to = raw.runs.start[r + 1] as number;
    const runs = this.runs;
    const at = runs.end;
    runs.reserve(at + (to - from));
    let out = runs.data;
    this.pending = to - from;
    const ids = raw.runs.data;
    const codes = this.rawFrameCode;
    let np = 0;
    let h = HASH_START;
    this.nf = 0;
    for (let k = from; k < to; k++) {
      const f = ids[k] as number;
      let c = codes[f] as number;
      if (c < 0) {
        c = f === 0 ? 0 : this.frame(raw.objects[f] as PickleValue);
        codes[f] = c;
        // A frame numbered 2^16 or more widens the runs (see internFrame).
        out = runs.data;
      }
      const kind = c & 3;
      if (kind === PYTHON) {
        out[at + np++] = c >>> 2;
        h = Math.imul(h ^ (c >>> 2), 16777619);
      } else if (kind === FALLBACK && np === 0) {
        this.addFallback(c);
      }
    }
    this.np = np;
    this.hash = h;
    s = this.finish();
    this.rawStack[r] = s;
    return s;
  }

  /** Tables for the lists of `raw`, and whether their stacks are written over them (see {@link ofRaw}). */
  private begin(raw: RawFrameLists, ordered: boolean): void {
    if (this.inPlace) this.leaveInPlace();
    this.rawLists = raw;
    this.rawStack = new Int32Array(raw.runs.count).fill(-1);
    this.rawFrameCode = new Int32Array(raw.objects.length).fill(-1);
    this.runs.reserveRuns(this.runs.count + raw.runs.count);
    const runs = this.runs;
    if (ordered && runs.end === 0 && runs.data instanceof Uint16Array && raw.runs.data instanceof Uint16Array) {
      runs.adopt(raw.runs.data);
      this.inPlace = true;
      this.nextRaw = 0;
    } else {
      // Room for every stack of these lists at once (at most one per list, no longer than its list)
      // instead of growing by copies as they are read.
      runs.reserve(runs.end + raw.runs.end);
    }
  }

  /** Whether a stack of up to `n` frames written in place would leave the raw lists not yet read as they are. */
  private roomInPlace(n: number): boolean {
    const raw = this.rawLists as RawFrameLists;
    return this.nextRaw >= raw.runs.count || this.runs.end + n <= (raw.runs.start[this.nextRaw] as number);
  }

  /** The stacks so far copied out of the raw lists, with room for those of the lists not yet read. */
  private leaveInPlace(): void {
    this.inPlace = false;
    const raw = this.rawLists as RawFrameLists;
    if (this.runs.data !== raw.runs.data) return;
    this.runs.detach(this.runs.end + raw.runs.end - (raw.runs.start[this.nextRaw] as number));
  }

  private addFallback(c: number): void {
    if (this.nf === this.fallback.length) this.fallback = growU32(this.fallback, this.nf * 2);
    this.fallback[this.nf++] = c >>> 2;
  }

  /** Adds one frame (as {@link frame} codes it) to the user frames of the list being read. */
  private add(c: number): void {
    const kind = c & 3;
    if (kind === PYTHON) {
      const at = this.runs.end + this.np;
      if (at >= this.runs.data.length) this.runs.reserve(at + 1);
      this.runs.data[at] = c >>> 2;
      this.hash = Math.imul(this.hash ^ (c >>> 2), 16777619);
      this.np++;
    } else if (kind === FALLBACK && this.np === 0) {
      if (this.nf === this.fallback.length) this.fallback = growU32(this.fallback, this.nf * 2);
      this.fallback[this.nf++] = c >>> 2;
    }
  }

  /** The stack of the list read: its Python user frames, else its fallback ones, else 0. */
  private finish(): number {
    if (this.np > 0) return this.runs.addHashed(this.np, this.hash) + 1;
    if (this.nf === 0) return 0;
    this.runs.reserve(this.runs.end + this.nf);
    this.runs.data.set(this.fallback.subarray(0, this.nf), this.runs.end);
    return this.runs.add(this.nf) + 1;
  }

  /** The innermost frame of stack `s` (not 0) as a frame number (see {@link frameText}). */
  innermostFrame(s: number): number {
    return this.runs.data[this.runs.start[s - 1] as number] as number;
  }

  /** Frame `f` as `file:line:name`; frames are numbered by text, so equal numbers are equal texts. */
  frameText(f: number): string {
    return this.frames[f] as string;
  }

  /** Records the stack of allocation `a`. */
  set(a: number, stack: number): void {
    if (a >= this.ofAllocation.length) this.ofAllocation = growColumn(this.ofAllocation, Math.max(a + 1, this.ofAllocation.length * 2));
    this.ofAllocation[a] = stack;
    if (stack !== 0) this.used = true;
  }

  /** The table for `allocCount` allocations, or undefined when no allocation has a stack. */
  build(allocCount: number): TraceStacks | undefined {
    if (!this.used) return undefined;
    // A view of the column where it holds them all (no copy of hundreds of KB), zeros for those never set.
    if (allocCount > this.ofAllocation.length) this.ofAllocation = growColumn(this.ofAllocation, allocCount);
    const ofAllocation = fitted(this.ofAllocation, allocCount);
    const runs = this.runs;
    const runStart = new Uint32Array(runs.count + 2);
    runStart.set(runs.start.subarray(0, runs.count + 1), 1);
    return {
      ofAllocation,
      runStart,
      // The frames in place where the room reserved for them is (nearly) all used: no copy of tens of MB.
      frameRun: runs.viewable ? runs.data.subarray(0, runs.end) : runs.data.slice(0, runs.end),
      frames: this.frames,
      frameFile: Uint32Array.from(this.frameFile),
      files: this.files,
    };
  }

  /** A frame dict as (frame number << 2 | kind); 0 for frames that are not the user's. */
  private frame(v: PickleValue): number {
    if (!isDict(v)) return 0;
    let c = this.frameDicts.get(v);
    if (c !== undefined) return c;
    const f = asFrame(v);
    const kind = f ? classify(f) : 0;
    c = f && kind !== 0 ? (this.internFrame(frameText(f), f.filename) << 2) | kind : 0;
    this.frameDicts.set(v, c);
    return c;
  }

  private internFrame(text: string, file: string): number {
    let k = this.frameIndex.get(text);
    if (k !== undefined) return k;
    let fk = this.fileIndex.get(file);
    if (fk === undefined) {
      fk = this.files.length;
      this.files.push(file);
      this.fileIndex.set(file, fk);
    }
    k = this.frames.length;
    if (k === 0x10000) this.runs.widen(this.runs.end + this.pending);
    this.frames.push(text);
    this.frameFile.push(fk);
    this.frameIndex.set(text, k);
    return k;
  }
}
