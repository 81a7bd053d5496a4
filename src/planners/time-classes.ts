import type { TimeAxis } from './time-index.js';

/** The layout's sizes, as powers of two (tests make them small to reach every case with few records). */
export interface TimeClassesOptions {
  /** Time indices per step of the tables that find where a window's run starts. */
  grainBits: number;
  /** Positions per block (the unit the placement keeps sorted by offset). */
  blockBits: number;
  /** Lengths below this are one class. */
  shortBits: number;
}

export const DEFAULT_TIME_CLASSES: TimeClassesOptions = { grainBits: 3, blockBits: 7, shortBits: 8 };

/**
 * Records laid out for window scans: grouped by length class, then by first time (ties in record
 * order), so that the records of one class that may meet a window [a, b] are one run of positions.
 *
 * Lengths (last - first, in time indices) below 2^shortBits are one class, longer ones are in
 * classes of lengths within a factor of 16. Within a class, the run for a window starts at the first
 * position from which some record lasts to a (a table by steps of 2^grainBits time indices): every
 * record before it ended earlier. The records in the run that do not meet the window ended before a
 * but after an earlier record of the class that lasts to a, so at a fixed live-set width they are a
 * bounded number per class: the few long-lived records (weights, never-freed blocks) are a class of
 * their own instead of stretching every scan.
 *
 * Per-record data is stored by position, so that a scan reads memory in order, in blocks of
 * 2^blockBits positions (the unit the placement keeps sorted by offset, with its placed records'
 * time bounds, so that blocks that cannot meet a window are passed over whole).
 */
export class TimeClasses {
  /** Positions: the records, and those left empty so that each class starts a block. */
  readonly positions: number;
  /** Per position: its record (-1 for none). */
  readonly recAt: Int32Array;
  /** Per record: its position. */
  readonly posOf: Int32Array;
  /** Per position: first and last time index (2^31 - 1 and -1 where there is no record). */
  readonly first: Int32Array;
  readonly last: Int32Array;
  /** The classes that have records. */
  readonly classCount: number;
  /**
   * Per class k and step g: the first position of class k whose first time is >= g << grainBits
   * (the class's end past its last), at startTable[k * steps + g].
   */
  readonly startTable: Int32Array;
  /**
   * Per class k and step g: the first position of class k at or after which some record lasts to
   * g << grainBits or later: no record of the class before it is live then or after.
   */
  readonly reachTable: Int32Array;
  readonly steps: number;
  readonly grainBits: number;
  readonly blockBits: number;

  constructor(axis: TimeAxis, options: TimeClassesOptions = DEFAULT_TIME_CLASSES) {
    const { grainBits, blockBits, shortBits } = options;
    this.grainBits = grainBits;
    this.blockBits = blockBits;
    const { fi, li } = axis;
    const n = fi.length;
    const T = Math.max(1, axis.times.length);
    // Classes in use, in increasing length.
    const classOf = new Uint8Array(n);
    const used = new Int32Array(33);
    for (let i = 0; i < n; i++) {
      const len = (li[i] as number) - (fi[i] as number);
      const c = Math.max(0, 32 - Math.clz32(len) - shortBits + 3) >> 2;
      classOf[i] = c;
      used[c] = (used[c] as number) + 1;
    }
    const rank = new Int32Array(33).fill(-1);
    let classCount = 0;
    for (let c = 0; c < 33; c++) if ((used[c] as number) > 0) rank[c] = classCount++;
    this.classCount = classCount;
    for (let i = 0; i < n; i++) classOf[i] = rank[classOf[i] as number] as number;
    // Counting sort by first time (stable), then by class (stable): class-major, then first, then index.
    // Records listed by first time already (a trace's) are their own order by first time.
    let ascending = true;
    for (let i = 1; i < n && ascending; i++) ascending = (fi[i - 1] as number) <= (fi[i] as number);
    const startOrder = ascending ? null : byFirstTime(fi, T);
    // Each class starts a block: a block holds records of one class, so the long-lived records of a
    // class of their own, which most windows meet, are not read beside short ones that they do not.
    const classSize = new Int32Array(classCount);
    for (let i = 0; i < n; i++) classSize[classOf[i] as number] = (classSize[classOf[i] as number] as number) + 1;
    const classStart = new Int32Array(classCount);
    const classEnd = new Int32Array(classCount);
    const blockMask = (1 << blockBits) - 1;
    for (let k = 0, p = 0; k < classCount; k++) {
      p = (p + blockMask) & ~blockMask;
      classStart[k] = p;
      p += classSize[k] as number;
      classEnd[k] = p;
    }
    const positions = classCount > 0 ? (classEnd[classCount - 1] as number) : 0;
    this.positions = positions;
    const fill = classStart.slice();
    this.recAt = new Int32Array(positions);
    this.posOf = new Int32Array(n);
    this.first = new Int32Array(positions);
    this.last = new Int32Array(positions);
    if (positions > n) {
      // The positions between classes hold no record, and no window meets them.
      this.recAt.fill(-1);
      this.first.fill(0x7fffffff);
      this.last.fill(-1);
    }
    for (let j = 0; j < n; j++) {
      const i = startOrder ? (startOrder[j] as number) : j;
      const k = classOf[i] as number;
      const p = fill[k] as number;
      fill[k] = p + 1;
      this.recAt[p] = i;
      this.posOf[i] = p;
      this.first[p] = fi[i] as number;
      this.last[p] = li[i] as number;
    }
    // Start tables: one walk per class over its positions (first times ascending).
    this.steps = (T >> grainBits) + 2;
    this.startTable = new Int32Array(classCount * this.steps);
    this.reachTable = new Int32Array(classCount * this.steps);
    for (let k = 0; k < classCount; k++) {
      const base = k * this.steps;
      const end = classEnd[k] as number;
      let p = classStart[k] as number;
      for (let g = 0; g < this.steps; g++) {
        const t = g << grainBits;
        while (p < end && (this.first[p] as number) < t) p++;
        this.startTable[base + g] = p;
      }
      // The largest last so far only grows along the positions, so each step's answer follows the last one's.
      p = classStart[k] as number;
      let reach = p < end ? (this.last[p] as number) : -1;
      for (let g = 0; g < this.steps; g++) {
        const t = g << grainBits;
        while (p < end && reach < t) {
          p++;
          if (p < end) reach = Math.max(reach, this.last[p] as number);
        }
        this.reachTable[base + g] = p;
      }
    }
  }

  /** The first position of class k that may meet a window starting at time index a. */
  windowStart(k: number, a: number): number {
    return this.reachTable[k * this.steps + (a >> this.grainBits)] as number;
  }

  /** The position past the last of class k that may meet a window ending at time index b. */
  windowEnd(k: number, b: number): number {
    return this.startTable[k * this.steps + (b >> this.grainBits) + 1] as number;
  }
}

/** Record indices by first time index (a stable counting sort: ties in record order). */
function byFirstTime(fi: Int32Array, T: number): Int32Array {
  const n = fi.length;
  const byTime = new Int32Array(T + 1);
  for (let i = 0; i < n; i++) byTime[(fi[i] as number) + 1] = (byTime[(fi[i] as number) + 1] as number) + 1;
  for (let t = 0; t < T; t++) byTime[t + 1] = (byTime[t + 1] as number) + (byTime[t] as number);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const t = fi[i] as number;
    order[byTime[t] as number] = i;
    byTime[t] = (byTime[t] as number) + 1;
  }
  return order;
}
