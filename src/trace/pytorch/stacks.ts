import type { TraceStacks } from '../model.js';
import { asFrame, classify, FALLBACK, PYTHON } from './frames.js';
import { isDict, type PickleValue } from './pickle-value.js';

/**
 * The user stacks of a snapshot's allocations, interned for {@link TraceStacks}: a stack keeps the
 * Python frames outside torch (innermost first), or, when it has none, the frames the viewer shows
 * that are not the allocator's or ATen's — the frames the tag is chosen from, so that a stack's
 * first frame is the allocation's tag (see `FrameTags`). Frames lists and frame dicts are cached by
 * identity (snapshots share them among many entries), and equal stacks are stored once whichever
 * list they come from (found by a hash of their frame numbers, no string per stack).
 */
export class StackTable {
  private ofAllocation = new Uint32Array(1024);
  private runStart = new Uint32Array(1024);
  private frameRun = new Uint32Array(4096);
  private runEnd = 0;
  private readonly frames: string[] = [''];
  private readonly frameFile: number[] = [0];
  private readonly files: string[] = [''];
  private readonly frameIndex = new Map<string, number>();
  private readonly fileIndex = new Map<string, number>();
  /** Hash of a stack's frame numbers -> the stacks with that hash. */
  private readonly byHash = new Map<number, number | number[]>();
  private readonly lists = new Map<object, number>();
  private readonly frameDicts = new Map<object, number>();
  /** Scratch: the user frames of the list being read (python ones first, then the fallback ones). */
  private python = new Uint32Array(64);
  private fallback = new Uint32Array(64);
  private stacks = 1;
  private used = false;

  /** The stack of a frames list (0 when it has no user frame). */
  of(frames: PickleValue | undefined): number {
    if (!Array.isArray(frames) || frames.length === 0) return 0;
    const known = this.lists.get(frames);
    if (known !== undefined) return known;
    let np = 0;
    let nf = 0;
    for (const v of frames) {
      const c = this.frame(v);
      const kind = c & 3;
      if (kind === PYTHON) {
        if (np === this.python.length) this.python = grow(this.python, np * 2);
        this.python[np++] = c >>> 2;
      } else if (kind === FALLBACK && np === 0) {
        if (nf === this.fallback.length) this.fallback = grow(this.fallback, nf * 2);
        this.fallback[nf++] = c >>> 2;
      }
    }
    const s = np > 0 ? this.intern(this.python, np) : nf > 0 ? this.intern(this.fallback, nf) : 0;
    this.lists.set(frames, s);
    return s;
  }

  /** The innermost frame of stack `s` as `file:line:name` (the allocation's tag), or undefined for 0. */
  innermost(s: number): string | undefined {
    return s === 0 ? undefined : this.frames[this.frameRun[this.runStart[s] as number] as number];
  }

  /** Records the stack of allocation `a`. */
  set(a: number, stack: number): void {
    if (a >= this.ofAllocation.length) this.ofAllocation = grow(this.ofAllocation, Math.max(a + 1, this.ofAllocation.length * 2));
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
      runStart: this.runStart.slice(0, this.stacks + 1),
      frameRun: this.frameRun.slice(0, this.runEnd),
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
    c = f && kind !== 0 ? (this.internFrame(`${f.filename}:${f.line}:${f.name}`, f.filename) << 2) | kind : 0;
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

  private same(s: number, run: Uint32Array, n: number): boolean {
    const start = this.runStart[s] as number;
    if ((this.runStart[s + 1] as number) - start !== n) return false;
    for (let k = 0; k < n; k++) if (this.frameRun[start + k] !== run[k]) return false;
    return true;
  }

  private intern(run: Uint32Array, n: number): number {
    let h = 0x811c9dc5 ^ n;
    for (let k = 0; k < n; k++) h = Math.imul(h ^ (run[k] as number), 16777619);
    const found = this.byHash.get(h);
    if (found !== undefined) {
      for (const s of typeof found === 'number' ? [found] : found) if (this.same(s, run, n)) return s;
    }
    const s = this.stacks++;
    if (this.runEnd + n > this.frameRun.length) this.frameRun = grow(this.frameRun, Math.max(this.runEnd + n, this.frameRun.length * 2));
    this.frameRun.set(run.subarray(0, n), this.runEnd);
    this.runEnd += n;
    if (s + 1 >= this.runStart.length) this.runStart = grow(this.runStart, this.runStart.length * 2);
    this.runStart[s + 1] = this.runEnd;
    if (found === undefined) this.byHash.set(h, s);
    else if (typeof found === 'number') this.byHash.set(h, [found, s]);
    else found.push(s);
    return s;
  }
}

function grow(a: Uint32Array, n: number): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(n);
  b.set(a);
  return b;
}
