import type { TraceStacks } from '../model.js';
import { asFrame, classify, FALLBACK, PYTHON } from './frames.js';
import { isDict, type PickleValue } from './pickle-value.js';

/**
 * The user stacks of a snapshot's allocations, interned for {@link TraceStacks}: a stack keeps the
 * Python frames outside torch (innermost first), or, when it has none, the frames the viewer shows
 * that are not the allocator's or ATen's — the frames the tag is chosen from, so that a stack's
 * first frame is the allocation's tag. Frames lists are cached by identity (snapshots share them
 * among many entries), and equal stacks are stored once whichever list they come from.
 */
export class StackTable {
  private ofAllocation = new Uint32Array(1024);
  private readonly runStart: number[] = [0, 0];
  private readonly frameRun: number[] = [];
  private readonly frames: string[] = [''];
  private readonly frameFile: number[] = [0];
  private readonly files: string[] = [''];
  private readonly frameIndex = new Map<string, number>();
  private readonly fileIndex = new Map<string, number>();
  private readonly stackIndex = new Map<string, number>();
  private readonly lists = new Map<object, number>();
  private readonly frameDicts = new Map<object, { kind: number; frame: number }>();
  private stacks = 1;
  private used = false;

  /** The stack of a frames list (0 when it has no user frame). */
  of(frames: PickleValue | undefined): number {
    if (!Array.isArray(frames) || frames.length === 0) return 0;
    const known = this.lists.get(frames);
    if (known !== undefined) return known;
    const python: number[] = [];
    const fallback: number[] = [];
    for (const v of frames) {
      const f = this.frame(v);
      if (f.kind === PYTHON) python.push(f.frame);
      else if (f.kind === FALLBACK) fallback.push(f.frame);
    }
    const run = python.length > 0 ? python : fallback;
    const s = run.length === 0 ? 0 : this.intern(run);
    this.lists.set(frames, s);
    return s;
  }

  /** Records the stack of allocation `a`. */
  set(a: number, stack: number): void {
    if (a >= this.ofAllocation.length) {
      const grown = new Uint32Array(Math.max(a + 1, this.ofAllocation.length * 2));
      grown.set(this.ofAllocation);
      this.ofAllocation = grown;
    }
    this.ofAllocation[a] = stack;
    if (stack !== 0) this.used = true;
  }

  /** The table for `allocCount` allocations, or undefined when no allocation has a stack. */
  build(allocCount: number): TraceStacks | undefined {
    if (!this.used) return undefined;
    const ofAllocation = new Uint32Array(allocCount);
    ofAllocation.set(this.ofAllocation.subarray(0, Math.min(allocCount, this.ofAllocation.length)));
    return {
      ofAllocation,
      runStart: Uint32Array.from(this.runStart),
      frameRun: Uint32Array.from(this.frameRun),
      frames: this.frames,
      frameFile: Uint32Array.from(this.frameFile),
      files: this.files,
    };
  }

  private frame(v: PickleValue): { kind: number; frame: number } {
    if (!isDict(v)) return { kind: 0, frame: 0 };
    let c = this.frameDicts.get(v);
    if (c) return c;
    const f = asFrame(v);
    const kind = f ? classify(f) : 0;
    c = { kind, frame: f && kind !== 0 ? this.internFrame(`${f.filename}:${f.line}:${f.name}`, f.filename) : 0 };
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
    this.frames.push(text);
    this.frameFile.push(fk);
    this.frameIndex.set(text, k);
    return k;
  }

  private intern(run: number[]): number {
    const key = run.join(',');
    let s = this.stackIndex.get(key);
    if (s !== undefined) return s;
    s = this.stacks++;
    this.frameRun.push(...run);
    this.runStart.push(this.frameRun.length);
    this.stackIndex.set(key, s);
    return s;
  }
}
