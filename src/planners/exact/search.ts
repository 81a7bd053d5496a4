import { alignUp } from '../records.js';
import type { UsageRecords } from '../types.js';
import { UnallocatedFloors } from './floors.js';
import { Preorder } from './preorder.js';
import { RangeMax } from './range-max.js';
import { hasUnplacedNeighbour, mergeMoved } from './candidates.js';
import { CALL, DFS, FALSE, type Frame, Frames, PLACE, SavedRanks, type Step, TRUE } from './search-frames.js';
import type { Partition } from './sweep.js';

export { HEURISTICS } from './preorder.js';

/** Limits and clock of a search. */
export interface SearchBudget {
  /** Stop (not proven) when the clock passes this. */
  deadlineMs: number;
  now: () => number;
}

/** How one bounded run of the search ended. */
export type RunEnd = 'found' | 'exhausted' | 'nodes' | 'timeout';

/**
 * Depth-first search over canonical placements of one partition, after minimalloc's SolverImpl
 * (src/solver.cc). A buffer is only ever placed at its lowest feasible offset (the top of the placed
 * buffers it overlaps, aligned), in non-decreasing (offset, preorder) order, so each packing is
 * reached once. Pruning, as minimalloc: a buffer at or above the lowest top any unplaced buffer
 * could reach would leave room under it (dominated); a section whose floor, raised to the current
 * offset, plus the sizes still to place in it exceeds the capacity cannot be completed; a buffer
 * with nothing unplaced overhead, once tried, needs no alternative (hatless pruning). When no
 * unplaced buffer crosses a boundary between sections any more, the two sides are solved one after
 * the other (minimalloc's dynamic decomposition): a failure on one side is not retried against
 * every packing of the other. Each piece is preordered afresh, as minimalloc's SubSolve: its section
 * totals count only the bytes still unplaced, and its buffers are re-sorted and re-ranked (ranks
 * restored when the piece is done), all in scratch arrays sized once.
 */
export class PartitionSearch {
  private readonly m: number;
  private readonly S: number;
  private readonly size: Float64Array;
  private readonly rank: Int32Array;
  private readonly preorder: Preorder;
  /** Ranks a piece replaced, restored when it is done (a stack: pieces nest). */
  private readonly savedRanks = new SavedRanks();
  private readonly offset: Float64Array;
  private readonly minOff: Float64Array;
  private readonly floors: UnallocatedFloors;
  private readonly total: Float64Array;
  private readonly cuts: Int32Array;
  private readonly solution: Float64Array;
  private readonly orders: Int32Array<ArrayBuffer>[] = [];
  /** The search's own stack (see search). */
  private readonly frames = new Frames();
  /** Per buffer, 1 while its minimum offset rose at the placement the current node follows. */
  private readonly moved: Uint8Array;
  private readonly movedList: Int32Array;
  // Undo stacks (a slot per section would be overwritten by nested placements).
  private readonly minOffUndo: Int32Array;
  private readonly minOffUndoVal: Float64Array;
  /** The section totals again, for the largest one of a piece in O(log S). */
  private readonly totals: RangeMax;
  private minOffTop = 0;
  private cap = 0;
  private limit = 0;
  private end: RunEnd | null = null;
  nodes = 0;
  /** Best packing found: its height, and offsets per local buffer. */
  bestHeight = 0;
  readonly bestOffsets: Float64Array;

  constructor(
    r: UsageRecords,
    private readonly p: Partition,
    incumbent: Float64Array,
    private readonly alignmentBytes: number,
    private readonly budget: SearchBudget,
  ) {
    const m = (this.m = p.records.length);
    const S = (this.S = p.sectionTotal.length);
    this.size = new Float64Array(m);
    this.bestOffsets = new Float64Array(m);
    const width = new Float64Array(m);
    const area = new Float64Array(m);
    const tie = new Int32Array(m);
    for (let b = 0; b < m; b++) {
      const rec = p.records[b] as number;
      this.size[b] = r.size[rec] as number;
      this.bestOffsets[b] = incumbent[rec] as number;
      this.bestHeight = Math.max(this.bestHeight, (incumbent[rec] as number) + (r.size[rec] as number));
      width[b] = (r.last[rec] as number) - (r.first[rec] as number) + 1;
      area[b] = (width[b] as number) * (this.size[b] as number);
      tie[b] = rec;
    }
    this.preorder = new Preorder(width, area, tie);
    this.rank = new Int32Array(m);
    this.offset = new Float64Array(m);
    this.minOff = new Float64Array(m);
    this.floors = new UnallocatedFloors(S, p.memberStart, p.members);
    this.total = new Float64Array(S);
    this.cuts = new Int32Array(Math.max(0, S - 1));
    this.moved = new Uint8Array(m);
    this.movedList = new Int32Array(m);
    this.solution = new Float64Array(m);
    this.minOffUndo = new Int32Array(p.overlaps.length + 1);
    this.minOffUndoVal = new Float64Array(p.overlaps.length + 1);
    this.totals = new RangeMax(S);
  }

  /**
   * Searches for a packing no higher than `capacity` (and lower than the best so far): `found` at the
   * first one, `exhausted` when none exists, `nodes` after `nodeLimit` more nodes, `timeout` past
   * the deadline. The capacity is fixed during a run, which lets each node check only what changed.
   */
  run(heuristic: number, capacity: number, nodeLimit: number): RunEnd {
    const { p, m, S } = this;
    this.preorder.use(heuristic);
    this.cap = Math.min(capacity, this.bestHeight - 1);
    this.limit = this.nodes + nodeLimit;
    this.end = null;
    this.offset.fill(-1);
    this.minOff.fill(0);
    this.total.set(p.sectionTotal);
    this.totals.reset(p.sectionTotal);
    this.cuts.fill(0);
    this.minOffTop = 0;
    for (let b = 0; b < m; b++) {
      for (let s = p.sectionLo[b] as number; s + 1 < (p.sectionHi[b] as number); s++) this.cuts[s] = (this.cuts[s] as number) + 1;
    }
    for (let s = 0; s < S; s++) if ((this.total[s] as number) > this.cap) return 'exhausted';
    const first = this.orders[0] ?? (this.orders[0] = new Int32Array(m));
    for (let b = 0; b < m; b++) first[b] = b;
    this.rankPiece(first, m, 0, S); // every minimum offset is 0: the rank order is the dynamic order
    this.savedRanks.clear();
    if (this.search(first, m, 0, S)) {
      let height = 0;
      for (let b = 0; b < m; b++) height = Math.max(height, (this.solution[b] as number) + (this.size[b] as number));
      this.bestHeight = height;
      this.bestOffsets.set(this.solution);
      return 'found';
    }
    return this.end ?? 'exhausted';
  }

  /**
   * Places every unplaced buffer of the sections [secLo, secHi) of `parent` (the partition, or a piece
   * split off by decomposition); true when it succeeded, with the offsets recorded in `solution`.
   *
   * The search goes as deep as there are buffers to place (and two levels more per piece split off),
   * which no call stack of a JavaScript engine takes for a partition of some thousands of buffers: its
   * levels are frames of its own (search-frames.ts). Each kind of frame runs in two parts, before and
   * after the level it starts below it: a node (`dfs`) tries its candidates in turn, a placement
   * (`place`) searches what remains (whole, or piece by piece) and undoes itself, a piece (`piece`)
   * searches its buffers with ranks of its own and restores the others.
   */
  private search(parent: Int32Array, count: number, secLo: number, secHi: number): boolean {
    const frames = this.frames;
    let f = 0;
    frames.at(0).callDfs(1, parent, count, 0, -1, secLo, secHi, 0);
    let r = this.enter(frames.at(0), 0);
    for (;;) {
      if (r === CALL) {
        f++;
        r = this.enter(frames.at(f), f);
        continue;
      }
      if (f === 0) return r === TRUE;
      f--;
      r = this.resume(frames.at(f), f, r === TRUE);
    }
  }

  /** Runs the first part of frame `fr` (at level `f`): a result, or CALL with the level below set up. */
  private enter(fr: Frame, f: number): Step {
    return fr.kind === DFS ? this.enterDfs(fr, f) : fr.kind === PLACE ? this.enterPlace(fr, f) : this.enterPiece(fr, f);
  }

  /** Runs the rest of frame `fr` once the level below returned `ok`. */
  private resume(fr: Frame, f: number, ok: boolean): Step {
    if (fr.kind === DFS) {
      if (ok) return TRUE;
      if (this.end !== null) return FALSE;
      // Nothing unplaced overhead: if b at its lowest offset fails, so does every alternative.
      if (!hasUnplacedNeighbour(this.p, this.offset, fr.order[fr.j] as number)) return FALSE;
      fr.j++;
      return this.nextCandidate(fr, f);
    }
    if (fr.kind === PLACE) {
      if (!fr.inPieces || !ok) return this.leavePlace(fr, ok);
      fr.from = fr.s + 1;
      fr.s++;
      return this.nextPiece(fr, f);
    }
    this.savedRanks.restore(fr.savedFrom, fr.count, this.rank);
    return ok ? TRUE : FALSE;
  }

  /** A node: its unplaced buffers in order, then the first candidate (see nextCandidate). */
  private enterDfs(fr: Frame, f: number): Step {
    if (this.nodes >= this.limit) {
      this.end = 'nodes';
      return FALSE;
    }
    this.nodes++;
    if ((this.nodes & 1023) === 0 && this.budget.now() > this.budget.deadlineMs) {
      this.end = 'timeout';
      return FALSE;
    }
    const { minOff, size, moved, movedList, minOffUndo } = this;
    const { depth, parent, count, movedFrom } = fr;
    // The parent's order minus the buffer it placed, re-sorted by (min offset, preorder). (Every
    // buffer of the parent's order is in this piece: a piece is split off where no unplaced buffer
    // crosses, and its search starts from a list of its own buffers.) Only the buffers whose
    // minimum offsets the parent's placement raised (the undo records from `movedFrom` on) are out
    // of place: they are taken out, sorted, and merged back.
    const order = this.orders[depth] ?? (this.orders[depth] = new Int32Array(this.m));
    const movedTo = this.minOffTop;
    for (let q = movedFrom; q < movedTo; q++) moved[minOffUndo[q] as number] = 1;
    let k = 0;
    let r = 0;
    let minHeight = Infinity;
    for (let j = 0; j < count; j++) {
      const b = parent[j] as number;
      const lowest = minOff[b] as number; // Infinity once placed
      if (lowest === Infinity) continue;
      if (moved[b] === 1) movedList[r++] = b;
      else order[k++] = b;
      minHeight = Math.min(minHeight, lowest + (size[b] as number));
    }
    for (let q = movedFrom; q < movedTo; q++) moved[minOffUndo[q] as number] = 0;
    if (r > 0) k = mergeMoved(order, k, movedList, r, minOff, this.rank);
    if (k === 0) return TRUE;
    // Every section passed max(offset, floor) + total <= cap when the parent placed its buffer, and
    // the capacity is fixed. Placing b at o raises the floors of b's sections to its top (nothing
    // placed there reaches above o, which is b's minimum offset, and nor does their unallocated
    // floor) and takes b's size off their totals, so there the check reads top + total - size, that
    // is o + total; elsewhere o + total too, since floor + total passed already. So one number per
    // node, the largest total of the piece, decides; and candidates come by increasing o, so the
    // first to fail it (or to be dominated) ends the loop.
    fr.order = order;
    fr.k = k;
    fr.minHeight = minHeight;
    fr.largest = this.totals.max(fr.secLo, fr.secHi);
    fr.j = 0;
    return this.nextCandidate(fr, f);
  }

  /** The node's candidates from `fr.j` on: CALL to place the next that may fit, or FALSE when none is left. */
  private nextCandidate(fr: Frame, f: number): Step {
    const { minOff, size, rank, cap } = this;
    const { order, k, lastOffset, lastRank, minHeight, largest } = fr;
    for (; fr.j < k; fr.j++) {
      const b = order[fr.j] as number;
      const o = minOff[b] as number;
      if (o < lastOffset || (o === lastOffset && (rank[b] as number) < lastRank)) continue; // canonical
      if (o >= minHeight || o + largest > cap) return FALSE; // dominated, or no room: nor for the next ones
      const top = o + (size[b] as number);
      if (top <= cap) {
        this.frames.at(f + 1).callPlace(b, o, top, fr.depth, k, fr.secLo, fr.secHi);
        return CALL;
      }
      if (!hasUnplacedNeighbour(this.p, this.offset, b)) return FALSE;
    }
    return FALSE;
  }

  /** Places b at o, then searches what remains (splitting it where no buffer crosses any more); undone in leavePlace. */
  private enterPlace(fr: Frame, f: number): Step {
    const { offset, minOff, size, p, total, cuts } = this;
    const { b, o, top } = fr;
    const sb = size[b] as number;
    const sLo = p.sectionLo[b] as number;
    const sHi = p.sectionHi[b] as number;
    offset[b] = o;
    minOff[b] = Infinity; // so that scans over section members skip it without a second load
    this.solution[b] = o;
    const minOffFrom = this.minOffTop;
    const raised = alignUp(top, this.alignmentBytes);
    const { overlaps } = p;
    const undo = this.minOffUndo;
    const undoVal = this.minOffUndoVal;
    let undoTop = minOffFrom;
    for (let q = p.overlapStart[b] as number, qEnd = p.overlapStart[b + 1] as number; q < qEnd; q++) {
      const u = overlaps[q] as number;
      const was = minOff[u] as number;
      if (was >= raised) continue; // placed ones are at Infinity
      undo[undoTop] = u;
      undoVal[undoTop++] = was;
      minOff[u] = raised;
    }
    this.minOffTop = undoTop;
    fr.minOffFrom = minOffFrom;
    for (let s = sLo; s < sHi; s++) total[s] = (total[s] as number) - sb;
    this.totals.add(sLo, sHi, -sb);
    // Unallocated floor (minimalloc's UpdateSectionData): in every section where a buffer's minimum
    // offset rose, nothing unplaced can start below the lowest minimum offset of its unplaced
    // buffers; check those sections against it. (Elsewhere nothing changed but b's own sections,
    // whose check, top + total, is o plus the total before, which passed.)
    const ok = this.unallocatedFloorsFit(minOffFrom);
    // Boundaries inside b's sections that no unplaced buffer crosses any more split the rest.
    let cutsHere = 0;
    for (let s = sLo; s + 1 < sHi; s++) {
      cuts[s] = (cuts[s] as number) - 1;
      if (cuts[s] === 0) cutsHere++;
    }
    if (!ok) return this.leavePlace(fr, false); // pruned by the unallocated floor
    if (cutsHere === 0) {
      fr.inPieces = false;
      this.frames.at(f + 1).callDfs(fr.depth + 1, this.orders[fr.depth] as Int32Array, fr.count, o, this.rank[b] as number, fr.secLo, fr.secHi, minOffFrom);
      return CALL;
    }
    // Inside a piece every boundary had a crossing buffer: the zero cuts now are the new ones.
    fr.inPieces = true;
    fr.from = fr.secLo;
    fr.s = fr.secLo;
    return this.nextPiece(fr, f);
  }

  /** The placement's pieces from section `fr.s` on: CALL to solve the next, or the placement's end when all are solved. */
  private nextPiece(fr: Frame, f: number): Step {
    const { cuts } = this;
    for (; fr.s < fr.secHi; fr.s++) {
      const s = fr.s;
      if (s + 1 < fr.secHi && cuts[s] !== 0) continue;
      this.frames.at(f + 1).callPiece(fr.depth, fr.count, fr.from, s + 1);
      return CALL;
    }
    return this.leavePlace(fr, true);
  }

  /** Undoes the placement of `fr` and returns `ok`. */
  private leavePlace(fr: Frame, ok: boolean): Step {
    const { offset, minOff, size, p, total, cuts } = this;
    const b = fr.b;
    const sb = size[b] as number;
    const sLo = p.sectionLo[b] as number;
    const sHi = p.sectionHi[b] as number;
    const minOffFrom = fr.minOffFrom;
    const undo = this.minOffUndo;
    const undoVal = this.minOffUndoVal;
    for (let s = sLo; s + 1 < sHi; s++) cuts[s] = (cuts[s] as number) + 1;
    for (let s = sLo; s < sHi; s++) total[s] = (total[s] as number) + sb;
    this.totals.add(sLo, sHi, sb);
    for (let q = this.minOffTop - 1; q >= minOffFrom; q--) minOff[undo[q] as number] = undoVal[q] as number;
    this.minOffTop = minOffFrom;
    offset[b] = -1;
    minOff[b] = fr.o;
    return ok ? TRUE : FALSE;
  }

  /**
   * The piece [secLo, secHi) that a decomposition split off below depth `depth`, as minimalloc's
   * SubSolve: its unplaced buffers (taken from that depth's order, into the next depth's array,
   * which the piece's search reads as its parent order) are preordered afresh with the section
   * totals of what is still unplaced, and searched from offset 0 with any preorder; their ranks are
   * restored in `resume`.
   */
  private enterPiece(fr: Frame, f: number): Step {
    const { offset, p } = this;
    const { depth, secLo, secHi } = fr;
    const parent = this.orders[depth] as Int32Array;
    const list = this.orders[depth + 1] ?? (this.orders[depth + 1] = new Int32Array(this.m));
    let n = 0;
    for (let j = 0; j < fr.count; j++) {
      const b = parent[j] as number;
      if ((offset[b] as number) >= 0 || (p.sectionLo[b] as number) >= secHi || (p.sectionHi[b] as number) <= secLo) continue;
      list[n++] = b;
    }
    if (n === 0) return TRUE;
    fr.savedFrom = this.savedRanks.save(list, n, this.rank);
    fr.count = n; // the ranks to restore
    this.rankPiece(list, n, secLo, secHi);
    this.preorder.sortByOffset(list, 0, n, this.minOff, this.rank);
    this.frames.at(f + 1).callDfs(depth + 2, list, n, 0, -1, secLo, secHi, this.minOffTop);
    return CALL;
  }

  /**
   * Ranks list[0, n) by the run's preordering, T being each buffer's largest total of unplaced bytes
   * over its sections (within [secLo, secHi)); leaves the list in rank order.
   */
  private rankPiece(list: Int32Array, n: number, secLo: number, secHi: number): void {
    const { p, total, rank } = this;
    const key = this.preorder.totalKey;
    for (let j = 0; j < n; j++) {
      const b = list[j] as number;
      let t = 0;
      const hi = Math.min(secHi, p.sectionHi[b] as number);
      for (let s = Math.max(secLo, p.sectionLo[b] as number); s < hi; s++) if ((total[s] as number) > t) t = total[s] as number;
      key[b] = t;
    }
    this.preorder.sortByHeuristic(list, 0, n);
    for (let j = 0; j < n; j++) rank[list[j] as number] = j;
  }

  /**
   * The unallocated floor test in the sections of the buffers whose minimum offsets rose (those
   * recorded from `minOffFrom` on); false when one of them cannot be completed.
   */
  private unallocatedFloorsFit(minOffFrom: number): boolean {
    const { p } = this;
    if (minOffFrom === this.minOffTop) return true;
    // The raised buffers all overlap the one just placed, so their sections make one interval
    // (with, at worst, some of the placed buffer's own sections in it: checking those too is sound).
    let from = Infinity;
    let to = -Infinity;
    for (let q = minOffFrom; q < this.minOffTop; q++) {
      const u = this.minOffUndo[q] as number;
      from = Math.min(from, p.sectionLo[u] as number);
      to = Math.max(to, p.sectionHi[u] as number);
    }
    return this.floors.fit(from, to, this.minOff, this.total, this.cap);
  }
}
