/**
 * The levels of the exact search (search.ts), kept on a stack of its own rather than the engine's
 * call stack: the search goes one level deeper for every buffer it places, some thousands deep on a
 * large partition, where recursive calls overflow the engine's stack.
 */

/** What the frame below returned, or that one was set up to run (`CALL`). */
export const FALSE = 0;
export const TRUE = 1;
export const CALL = 2;
export type Step = typeof FALSE | typeof TRUE | typeof CALL;

/** The kinds of frame: a node that tries its candidates, the placement of one, a piece split off. */
export const DFS = 0;
export const PLACE = 1;
export const PIECE = 2;

const NONE = new Int32Array(0);

/** One level of the search. Fields are those of its kind; frames are reused, level by level. */
export class Frame {
  kind = DFS;
  depth = 0;
  /** dfs: the parent's order and its length; place: the node's order length; piece: the parent order's length, then the ranks saved. */
  parent: Int32Array = NONE;
  count = 0;
  lastOffset = 0;
  lastRank = 0;
  secLo = 0;
  secHi = 0;
  movedFrom = 0;
  // dfs: the node's order, its length, the candidate being tried, and the node's bounds
  order: Int32Array = NONE;
  k = 0;
  j = 0;
  minHeight = 0;
  largest = 0;
  // place: the buffer, its offset and top, the undo records from minOffFrom on, the pieces' progress
  b = 0;
  o = 0;
  top = 0;
  minOffFrom = 0;
  inPieces = false;
  from = 0;
  s = 0;
  // piece: where its saved ranks begin
  savedFrom = 0;

  callDfs(depth: number, parent: Int32Array, count: number, lastOffset: number, lastRank: number, secLo: number, secHi: number, movedFrom: number): void {
    this.kind = DFS;
    this.depth = depth;
    this.parent = parent;
    this.count = count;
    this.lastOffset = lastOffset;
    this.lastRank = lastRank;
    this.secLo = secLo;
    this.secHi = secHi;
    this.movedFrom = movedFrom;
  }

  callPlace(b: number, o: number, top: number, depth: number, k: number, secLo: number, secHi: number): void {
    this.kind = PLACE;
    this.b = b;
    this.o = o;
    this.top = top;
    this.depth = depth;
    this.count = k;
    this.secLo = secLo;
    this.secHi = secHi;
  }

  callPiece(depth: number, count: number, secLo: number, secHi: number): void {
    this.kind = PIECE;
    this.depth = depth;
    this.count = count;
    this.secLo = secLo;
    this.secHi = secHi;
  }
}

/** The stack of frames, grown as the search goes deeper. */
export class Frames {
  private readonly list: Frame[] = [];

  at(level: number): Frame {
    let fr = this.list[level];
    if (fr === undefined) {
      fr = new Frame();
      this.list[level] = fr;
    }
    return fr;
  }
}

/** Ranks saved as (buffer, rank) pairs, a stack (pieces nest), restored when a piece is done. */
export class SavedRanks {
  private pairs: Int32Array<ArrayBuffer> = new Int32Array(256);
  private top = 0;

  clear(): void {
    this.top = 0;
  }

  /** Saves the ranks of list[0, n) (pairs: the list is re-sorted after, so the order alone would not do); returns where they begin. */
  save(list: Int32Array, n: number, rank: Int32Array): number {
    const from = this.top;
    if (from + 2 * n > this.pairs.length) {
      const grown = new Int32Array(Math.max(2 * this.pairs.length, from + 2 * n));
      grown.set(this.pairs);
      this.pairs = grown;
    }
    for (let j = 0; j < n; j++) {
      const b = list[j] as number;
      this.pairs[from + 2 * j] = b;
      this.pairs[from + 2 * j + 1] = rank[b] as number;
    }
    this.top = from + 2 * n;
    return from;
  }

  /** Puts back the `n` ranks saved at `from`, and drops them (and any saved after them). */
  restore(from: number, n: number, rank: Int32Array): void {
    const pairs = this.pairs;
    for (let j = 0; j < n; j++) rank[pairs[from + 2 * j] as number] = pairs[from + 2 * j + 1] as number;
    this.top = from;
  }
}
