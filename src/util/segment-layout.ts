import { FreeRanges } from './free-ranges.js';
import { LiveBlocks } from './live-blocks.js';
import { SegmentAttributes } from './segment-attributes.js';
import { OrderedSet } from './ordered-set.js';

/** Pool of a segment, as PyTorch's caching allocator names them. */
export const POOL_SMALL = 0;
export const POOL_LARGE = 1;
export const POOL_UNKNOWN = -1;

/** Outcome of {@link SegmentLayout.take}. */
export const TAKE_OK = 0;
/** The block was recorded, but it does not lie inside one free range of a segment. */
export const TAKE_OUTSIDE_FREE = 1;
/** The block overlaps a live block and was not recorded. */
export const TAKE_OVERLAP = 2;

/** A segment as {@link SegmentLayout.forEachSegment} reports it. */
export interface LayoutSegment {
  start: number;
  end: number;
  stream: number;
  pool: number;
  isExpandable: boolean;
}

/**
 * The memory layout of a recorded allocator history: device segments (address ranges), the live
 * blocks placed in them at recorded addresses, and the free ranges between those blocks. Free space
 * merges only within one segment, as allocator blocks do (two segments that happen to be adjacent in
 * the address space never merge; mapped ranges of an expandable segment do).
 *
 * Nothing is simulated: callers say where every segment and block is. Every operation is O(log n);
 * the sets live in typed arrays ({@link OrderedSet}), the free ranges in {@link FreeRanges}. While every live block was carved from a free
 * range (as in a consistent history), the live blocks are kept by start alone ({@link LiveBlocks}):
 * a block that lies in free space overlaps no other, and one in a segment none that is added later.
 * The first block that does not (outside a segment, over another, of size 0), or a segment removed
 * with blocks in it, moves them to an ordered set, which handles any history.
 */
export class SegmentLayout {
  /** Segments keyed (start, end), payload = segment id. */
  private readonly segs = new OrderedSet();
  /** Each segment's stream, pool and expandability, by the id that is its payload in `segs`. */
  private readonly attrs = new SegmentAttributes();
  /** The segment {@link segNodeAt} found last (a cursor of `segs`, -1: none) and its range. */
  private lastSeg = -1;
  private lastSegStart = 0;
  private lastSegEnd = 0;
  /** The free ranges inside segments. */
  private readonly gaps: FreeRanges;
  /** Live blocks by start while each lies in what was a free range of a segment; null once one may not. */
  private live: LiveBlocks | null;
  /** Live blocks keyed (start, end), payload = the caller's block id, once `live` is null. */
  private used: OrderedSet | null;
  /** Sum of segment sizes. */
  reservedBytes = 0;
  /** Sum of live block sizes. */
  usedBytes = 0;

  /**
   * `bySize`: keep the free ranges ordered by size too, for {@link largestGapBytes} and
   * {@link gapCount}; a layout that never asks for them (a snapshot's import) does without.
   * `keyed`: keep the live blocks by start while the history allows it (see the class comment);
   * false: in the ordered set from the start.
   */
  constructor(bySize = true, keyed = true) {
    this.gaps = new FreeRanges(bySize);
    this.live = keyed ? new LiveBlocks() : null;
    this.used = keyed ? null : new OrderedSet();
  }

  /** Number of segments. */
  get segmentCount(): number {
    return this.segs.size;
  }

  /** Number of free ranges inside segments. */
  get gapCount(): number {
    return this.gaps.count;
  }

  /** The largest free range inside a segment (0 when none). */
  largestGapBytes(): number {
    return this.gaps.largestBytes();
  }

  /** The node of the segment containing `addr`, or -1 (the last one found answers again while it contains `addr`). */
  private segNodeAt(addr: number): number {
    if (this.lastSeg >= 0 && addr >= this.lastSegStart && addr < this.lastSegEnd) return this.lastSeg;
    const n = this.segs.predecessor(addr, Infinity);
    if (n < 0 || this.segs.b(n) <= addr) return -1;
    this.lastSeg = n;
    this.lastSegStart = this.segs.a(n);
    this.lastSegEnd = this.segs.b(n);
    return n;
  }

  /** The segments, about to change: the segment {@link segNodeAt} found last is forgotten (its cursor goes stale). */
  private segsChanged(): OrderedSet {
    this.lastSeg = -1;
    return this.segs;
  }

  /** The segment containing `addr`, or undefined. */
  segmentAt(addr: number): LayoutSegment | undefined {
    const n = this.segNodeAt(addr);
    return n < 0 ? undefined : this.describe(n);
  }

  private describe(n: number): LayoutSegment {
    const id = this.segs.payload(n);
    return {
      start: this.segs.a(n),
      end: this.segs.b(n),
      stream: this.attrs.stream(id),
      pool: this.attrs.pool(id),
      isExpandable: this.attrs.isExpandable(id),
    };
  }

  /** True when some segment overlaps [start, end). */
  private overlapsSegment(start: number, end: number): boolean {
    const n = this.segs.predecessor(end, -Infinity);
    return n >= 0 && this.segs.b(n) > start;
  }

  /**
   * Marks `size` bytes from `start` free, merging with free neighbours in the same segment; `seg` is
   * the node of the segment containing `start` when the caller has it. (A range is passed on as its
   * start and size, here and in {@link FreeRanges}: a size is a small integer, where an end would be a
   * new double for each call that V8 does not inline to box on the heap.)
   */
  private freeRange(start: number, size: number, seg = this.segNodeAt(start)): void {
    const end = start + size;
    if (seg < 0 || this.segs.b(seg) < end) return;
    this.gaps.free(start, size, start === this.segs.a(seg), end === this.segs.b(seg));
  }

  /** Adds a wholly free segment; false (and nothing added) when it overlaps an existing one. */
  addSegment(start: number, size: number, stream: number, pool: number, isExpandable: boolean): boolean {
    if (size <= 0 || this.overlapsSegment(start, start + size)) return false;
    this.segsChanged().insert(start, start + size, this.attrs.add(stream, pool, isExpandable));
    this.addFreeAround(start, start + size);
    this.reservedBytes += size;
    return true;
  }

  /** The live blocks in an ordered set from now on (see the class comment). */
  private ordered(): OrderedSet {
    if (this.used) return this.used;
    const used = new OrderedSet();
    const live = this.live as LiveBlocks;
    const o = live.sorted();
    for (let k = 0; k < live.size; k++) used.insert(o.start[k] as number, o.end[k] as number, o.id[k] as number);
    this.used = used;
    this.live = null;
    return used;
  }

  /**
   * Adds [start, end) minus the live blocks in it as free ranges (a new or newly mapped range, which
   * overlaps no segment: while `live` holds the blocks, all of them lie in segments).
   */
  private addFreeAround(start: number, end: number): void {
    const used = this.used;
    if (!used) {
      this.freeRange(start, end - start);
      return;
    }
    let at = start;
    const before = used.predecessor(start, Infinity);
    if (before >= 0 && used.b(before) > at) at = used.b(before);
    for (let u = used.lowerBound(start, Infinity); u >= 0 && used.a(u) < end; u = used.next(u)) {
      if (used.a(u) > at) this.freeRange(at, used.a(u) - at);
      at = Math.max(at, used.b(u));
    }
    if (at < end) this.freeRange(at, end - at);
  }

  /**
   * Removes the segment that starts at `start`. Returns false when no segment of that size starts
   * there or when it was not wholly free (it is removed all the same, with the free ranges in it).
   */
  removeSegment(start: number, size: number): boolean {
    const n = this.segs.lowerBound(start, -Infinity);
    if (n < 0 || this.segs.a(n) !== start) return false;
    const end = this.segs.b(n);
    const id = this.segs.payload(n);
    const wasFree = this.gaps.isRange(start, end);
    // Blocks left outside every segment: the ordered set keeps them.
    if (!wasFree) this.ordered();
    this.gaps.removeFrom(start, end);
    this.segsChanged().remove(start, end);
    this.attrs.remove(id);
    this.reservedBytes -= end - start;
    return wasFree && end - start === size;
  }

  /**
   * Maps [start, start+size) of an expandable segment: the range joins the mapped range it touches
   * (same stream), as the snapshot reports one segment per contiguous mapped range. False when the
   * range overlaps a segment.
   */
  map(start: number, size: number, stream: number, pool: number): boolean {
    const end = start + size;
    if (size <= 0 || this.overlapsSegment(start, end)) return false;
    let s = start;
    let e = end;
    let p = pool;
    const left = this.segs.predecessor(start, -Infinity);
    if (left >= 0 && this.segs.b(left) === start && this.joinable(left, stream)) {
      s = this.segs.a(left);
      p = p === POOL_UNKNOWN ? this.attrs.pool(this.segs.payload(left)) : p;
      this.dropSegNode(left);
    }
    const right = this.segs.lowerBound(end, -Infinity);
    if (right >= 0 && this.segs.a(right) === end && this.joinable(right, stream)) {
      e = this.segs.b(right);
      p = p === POOL_UNKNOWN ? this.attrs.pool(this.segs.payload(right)) : p;
      this.dropSegNode(right);
    }
    this.segsChanged().insert(s, e, this.attrs.add(stream, p, true));
    this.reservedBytes += size;
    this.addFreeAround(start, end);
    return true;
  }

  private joinable(node: number, stream: number): boolean {
    const id = this.segs.payload(node);
    return this.attrs.isExpandable(id) && this.attrs.stream(id) === stream;
  }

  private dropSegNode(node: number): void {
    this.attrs.remove(this.segs.payload(node));
    this.segsChanged().remove(this.segs.a(node), this.segs.b(node));
  }

  /**
   * Unmaps [start, start+size), which must be free and inside one segment; the segment shrinks or
   * splits in two. False when the range is not wholly free (nothing changes then).
   */
  unmap(start: number, size: number): boolean {
    const end = start + size;
    const n = this.segNodeAt(start);
    if (n < 0 || this.segs.b(n) < end || !this.gaps.carve(start, size)) return false;
    const s = this.segs.a(n);
    const e = this.segs.b(n);
    const id = this.segs.payload(n);
    const stream = this.attrs.stream(id);
    const pool = this.attrs.pool(id);
    const exp = this.attrs.isExpandable(id);
    this.dropSegNode(n);
    if (s < start) this.segsChanged().insert(s, start, this.attrs.add(stream, pool, exp));
    if (end < e) this.segsChanged().insert(end, e, this.attrs.add(stream, pool, exp));
    this.reservedBytes -= size;
    return true;
  }

  /**
   * Records a live block at [start, start+size) with the caller's id. It is recorded even outside a
   * segment (histories without segments), but never over another live block.
   */
  take(start: number, size: number, id: number): number {
    const live = this.live;
    if (live && size > 0 && LiveBlocks.holds(start) && this.gaps.carve(start, size)) {
      live.add(start, size, id);
      this.usedBytes += size;
      return TAKE_OK;
    }
    const end = start + size;
    const used = this.ordered();
    const before = used.predecessor(start, Infinity);
    if (before >= 0 && used.b(before) > start) return TAKE_OVERLAP;
    // The first block starting after `start`: the one after `before`.
    const after = before >= 0 ? used.next(before) : used.first();
    if (after >= 0 && used.a(after) < end) return TAKE_OVERLAP;
    used.insert(start, end, id);
    this.usedBytes += size;
    if (size === 0 || this.gaps.carve(start, size)) return TAKE_OK;
    this.gaps.carveAll(start, end);
    return TAKE_OUTSIDE_FREE;
  }

  /** Releases the live block starting at `start`; returns its size, or -1 when there is none. */
  release(start: number): number {
    let size: number;
    const live = this.live;
    if (live) {
      const i = live.find(start);
      if (i < 0) return -1;
      size = live.endAt(i) - start;
      live.removeAt(i);
    } else {
      const used = this.used as OrderedSet;
      const n = used.lowerBound(start, -Infinity);
      if (n < 0 || used.a(n) !== start) return -1;
      const end = used.b(n);
      size = end - start;
      used.remove(start, end);
    }
    this.usedBytes -= size;
    // Free again the parts that lie in segments: all of it in the one segment at `start`, unless the
    // history was inconsistent.
    const at = this.segNodeAt(start);
    if (at >= 0 && start + size <= this.segs.b(at)) {
      if (size > 0) this.freeRange(start, size, at);
    } else {
      this.freeInSegments(start, start + size, at);
    }
    return size;
  }

  /** Marks free the parts of [start, end) that lie in segments (`at`: the segment at `start`, or -1). */
  private freeInSegments(start: number, end: number, at: number): void {
    for (let sg = at >= 0 ? at : this.segs.lowerBound(start, -Infinity); sg >= 0 && this.segs.a(sg) < end; sg = this.segs.next(sg)) {
      const a = Math.max(start, this.segs.a(sg));
      const b = Math.min(end, this.segs.b(sg));
      if (a < b) this.freeRange(a, b - a, sg);
    }
  }

  /** Size of the free range from `addr` to the end of the free range that contains it, or -1. */
  freeBytesFrom(addr: number): number {
    return this.gaps.bytesFrom(addr);
  }

  /** Every segment in address order (not on hot paths). */
  forEachSegment(fn: (seg: LayoutSegment) => void): void {
    for (let n = this.segs.first(); n >= 0; n = this.segs.next(n)) fn(this.describe(n));
  }

  /** Live blocks and free ranges of [start, end) in address order: `id` is -1 for a free range. */
  forEachBlockIn(start: number, end: number, fn: (blockStart: number, blockEnd: number, id: number) => void): void {
    const gaps = this.gaps;
    let g = gaps.firstFrom(start);
    const used = this.used;
    const live = this.live as LiveBlocks;
    let u = used ? used.lowerBound(start, -Infinity) : live.firstFrom(start);
    for (;;) {
      const ua = used ? (u >= 0 && used.a(u) < end ? used.a(u) : Infinity) : live.startOf(u, end);
      const ga = g >= 0 && gaps.start(g) < end ? gaps.start(g) : Infinity;
      if (ua === Infinity && ga === Infinity) return;
      if (ua > ga) {
        fn(ga, gaps.end(g), -1);
        g = gaps.next(g);
      } else if (used) {
        fn(ua, used.b(u), used.payload(u));
        u = used.next(u);
      } else {
        const o = live.sorted();
        fn(ua, o.end[u] as number, o.id[u] as number);
        u++;
      }
    }
  }

  /** Every live block in address order: (start, end, id). */
  forEachLive(fn: (start: number, end: number, id: number) => void): void {
    if (this.used) {
      this.used.forEach(fn);
      return;
    }
    const live = this.live as LiveBlocks;
    const o = live.sorted();
    for (let k = 0; k < live.size; k++) fn(o.start[k] as number, o.end[k] as number, o.id[k] as number);
  }

  /** Number of live blocks. */
  get liveCount(): number {
    return this.used ? this.used.size : (this.live as LiveBlocks).size;
  }
}
