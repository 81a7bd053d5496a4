/**
 * minimalloc's unallocated floor (UpdateSectionData, then Check): nothing unplaced in a section can
 * go below the lowest minimum offset of its unplaced buffers, so when that floor plus the bytes still
 * to place there exceeds the capacity, the partial packing cannot be completed.
 *
 * minimalloc stores the raised floor of each section and undoes it on backtracking. Here the test is
 * asked directly: a section passes while one of its unplaced buffers has a minimum offset at or
 * below `capacity - total`. It prunes exactly where minimalloc does (down the search, totals only
 * fall and minimum offsets only rise, so a stored floor never decides anything the direct test does
 * not), needs no undo, and a scan stops at the first buffer low enough instead of finding the lowest.
 */
export class UnallocatedFloors {
  /**
   * Per section, the buffer that passed its last test (-1: none yet). While it is unplaced and still
   * low enough the section passes without a scan. A cache, checked before use, so backtracking need
   * not restore it.
   */
  private readonly witness: Int32Array;

  constructor(
    sections: number,
    /** The buffers of each section (CSR: section s holds members[memberStart[s], memberStart[s + 1])). */
    private readonly memberStart: Int32Array,
    private readonly members: Int32Array,
  ) {
    this.witness = new Int32Array(sections).fill(-1);
  }

  /**
   * Whether every section in [from, to) has room: an unplaced buffer whose minimum offset plus the
   * section's unplaced bytes `total[s]` fits under `cap` (`minOff` is Infinity for placed buffers).
   */
  fit(from: number, to: number, minOff: Float64Array, total: Float64Array, cap: number): boolean {
    const { witness, memberStart, members } = this;
    for (let s = from; s < to; s++) {
      const room = cap - (total[s] as number);
      const w = witness[s] as number;
      if (w >= 0 && (minOff[w] as number) <= room) continue;
      const end = memberStart[s + 1] as number;
      let q = memberStart[s] as number;
      while (q < end && (minOff[members[q] as number] as number) > room) q++;
      if (q < end) witness[s] = members[q] as number;
      else if (room < cap) return false; // nothing unplaced is low enough (and something is unplaced)
    }
    return true;
  }
}
