/**
 * The section floors of a search: per section, an offset below which nothing still unplaced in it
 * can go. Placing a buffer raises the floors of its sections to its top; minimalloc's unallocated
 * floor (UpdateSectionData) raises a section's floor to the lowest minimum offset of its unplaced
 * buffers. Every change goes on one undo stack, so a placement undoes its changes by returning to
 * the stack's mark from before it.
 */
export class SectionFloors {
  readonly floor: Float64Array;
  /**
   * Per section, a member last seen unplaced with its minimum offset at or below the floor (-1:
   * none): while it stays so, the floor cannot rise and the scan of the members is skipped. A cache
   * checked before use, so backtracking need not restore it.
   */
  private readonly witness: Int32Array;
  private undoIdx: Int32Array<ArrayBuffer>;
  private undoVal: Float64Array<ArrayBuffer>;
  private top = 0;

  constructor(
    sections: number,
    /** The buffers of each section (CSR: section s holds members[memberStart[s], memberStart[s + 1])). */
    private readonly memberStart: Int32Array,
    private readonly members: Int32Array,
    /** Stack slots to start with (it grows when needed). */
    initialDepth: number,
  ) {
    this.floor = new Float64Array(sections);
    this.witness = new Int32Array(sections).fill(-1);
    this.undoIdx = new Int32Array(Math.max(16, initialDepth));
    this.undoVal = new Float64Array(Math.max(16, initialDepth));
  }

  /** Every floor at 0, nothing to undo. */
  reset(): void {
    this.floor.fill(0);
    this.top = 0;
  }

  /** The undo stack's height, to return to with {@link undoTo}. */
  mark(): number {
    return this.top;
  }

  /** Sets a section's floor, recording the old one. */
  set(s: number, value: number): void {
    if (this.top === this.undoIdx.length) this.grow();
    this.undoIdx[this.top] = s;
    this.undoVal[this.top++] = this.floor[s] as number;
    this.floor[s] = value;
  }

  /** Undoes every change made since `mark`, latest first. */
  undoTo(mark: number): void {
    const { floor, undoIdx, undoVal } = this;
    while (this.top > mark) {
      this.top--;
      floor[undoIdx[this.top] as number] = undoVal[this.top] as number;
    }
  }

  /**
   * Raises the floors of sections [from, to) to the lowest minimum offset of their unplaced members
   * (`minOff` is Infinity for placed ones), and checks each raised section: with its floor lifted to
   * the current offset `o`, its unplaced bytes `total` must fit under `cap`. False when one does not.
   */
  raiseUnallocated(from: number, to: number, minOff: Float64Array, total: Float64Array, o: number, cap: number): boolean {
    const { floor, witness, memberStart, members } = this;
    for (let s = from; s < to; s++) {
      const f = floor[s] as number;
      const w = witness[s] as number;
      if (w >= 0 && (minOff[w] as number) <= f) continue;
      let low = Infinity;
      let lowest = -1;
      const end = memberStart[s + 1] as number;
      for (let q = memberStart[s] as number; q < end; q++) {
        const u = members[q] as number;
        const mo = minOff[u] as number;
        if (mo <= f) {
          witness[s] = u;
          low = -1; // no raise: stop looking
          break;
        }
        if (mo < low) {
          low = mo;
          lowest = u;
        }
      }
      if (low === Infinity || low <= f) continue;
      witness[s] = lowest; // at the new floor
      this.set(s, low);
      if (Math.max(low, o) + (total[s] as number) > cap) return false;
    }
    return true;
  }

  private grow(): void {
    const idx = new Int32Array(this.undoIdx.length * 2);
    idx.set(this.undoIdx);
    const val = new Float64Array(this.undoVal.length * 2);
    val.set(this.undoVal);
    this.undoIdx = idx;
    this.undoVal = val;
  }
}
