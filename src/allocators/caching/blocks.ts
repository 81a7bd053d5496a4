/**
 * The blocks and pools of the caching allocator, in typed arrays (a block is an integer id).
 *
 * As the real Block, a block has an address, a size, a stream, a pool, prev/next neighbours inside
 * its segment, and flags. A BlockPool's `blocks` set (std::set ordered by stream, size, address) is
 * kept as one ordered set per (stream, pool) keyed by (size, address): a lower_bound at
 * (stream, size, 0) that checks the stream is exactly a lower_bound in that stream's set. The
 * `unmapped` set of expandable segments (ordered by stream, address) is likewise per (stream, pool).
 */
import { OrderedSet } from '../../util/ordered-set.js';
import { grown } from '../../util/typed-arrays.js';
import type { SimDevice } from '../device.js';
import { FreeSets } from './free-sets.js';
import type { CachingSettings } from './config.js';
import { DeviceStats } from './stats.js';

/** The block is handed out (Block::allocated). */
export const F_ALLOCATED = 1;
/** The block belongs to the small pool. */
export const F_SMALL = 2;
/** The block is address space of an expandable segment without physical pages (!Block::mapped). */
export const F_UNMAPPED = 4;
/** The id is in use. */
export const F_LIVE = 8;

/** An expandable segment: a reserved address range whose pages are mapped on demand. */
export interface ExpandableSegment {
  base: number;
  sizeBytes: number;
  /** 2 MiB for the small pool, 20 MiB for the large pool. */
  pageBytes: number;
  streamIndex: number;
  isSmall: boolean;
}


/** Block storage, the free sets, the device and the counters every layer above shares. */
export class BlockStore extends FreeSets {
  requested = new Float64Array(256);
  /** get_free_blocks_call_count of the pool when the block entered the free set. */
  gcBase = new Float64Array(256);
  streamOf = new Int32Array(256);
  prev = new Int32Array(256);
  next = new Int32Array(256);
  /** Expandable segment index, or -1 for a cudaMalloc segment. */
  seg = new Int32Array(256);
  /** Trace event of the allocation a block serves. */
  event = new Int32Array(256);
  flags = new Uint8Array(256);
  private idTop = 0;
  private freeIds = new Int32Array(256);
  private freeIdTop = 0;

  /**
   * Unmapped ranges of expandable segments per (stream index * 2 + pool), keyed (address, 0); made
   * when a stream first has one (streams without expandable segments cost nothing here).
   */
  readonly unmappedSets: (OrderedSet | undefined)[] = [];
  /** Stream value of each stream index. */
  readonly streamValues: number[] = [];
  private readonly streamIndexOf = new Map<number, number>();
  /** {@link BlockStore.streamsInOrder}, sorted again only when a stream is added. */
  private streamOrder: number[] = [];
  /** The stream value of the last request and its index (most traces have one stream). */
  protected lastStream = NaN;
  protected lastStreamIndex = -1;
  /** get_free_blocks_call_count of the small (0) and large (1) pool. */
  readonly gcCalls = new Float64Array(2);
  readonly expandable: (ExpandableSegment | null)[] = [];

  readonly counters = new DeviceStats();
  /** Block ages are counted (garbage collection is on); else every age stays 0. */
  trackAges = false;
  /** settings.expandableSegments, read on every allocation. */
  readonly expandableMode: boolean;
  /** Bytes held from the device: segments plus mapped pages (total_allocated_memory). */
  totalAllocatedMemory = 0;

  constructor(
    readonly settings: CachingSettings,
    readonly device: SimDevice,
  ) {
    super();
    this.expandableMode = settings.expandableSegments;
  }

  /** The dense index of a stream value (streams are compared by value, as cudaStream_t pointers). */
  streamIndex(stream: number): number {
    if (stream === this.lastStream) return this.lastStreamIndex;
    let k = this.streamIndexOf.get(stream);
    if (k === undefined) {
      k = this.streamValues.length;
      this.streamValues.push(stream);
      this.streamIndexOf.set(stream, k);
      // Free sets 2k (small pool) and 2k+1 (large pool).
      this.addSet();
      this.addSet();
      this.unmappedSets.push(undefined, undefined);
    }
    this.lastStream = stream;
    this.lastStreamIndex = k;
    return k;
  }

  /** The dense index of a stream value already seen, or -1 (creates nothing). */
  knownStreamIndex(stream: number): number {
    return this.streamIndexOf.get(stream) ?? -1;
  }

  /** Stream indices in the order of their values (the order of BlockComparatorSize's first key). */
  streamsInOrder(): number[] {
    if (this.streamOrder.length !== this.streamValues.length) {
      this.streamOrder = this.streamValues.map((_, k) => k).sort((x, y) => (this.streamValues[x] as number) - (this.streamValues[y] as number));
    }
    return this.streamOrder;
  }

  /** A new block (`new Block(...)`), not in any set. */
  newBlock(streamIndex: number, sizeBytes: number, address: number, isSmall: boolean, segment: number): number {
    const id = this.takeId();
    this.ptr[id] = address;
    this.size[id] = sizeBytes;
    // requested and event are set when the block is handed out; free blocks do not use them.
    this.streamOf[id] = streamIndex;
    this.prev[id] = -1;
    this.next[id] = -1;
    this.seg[id] = segment;
    this.flags[id] = F_LIVE | (isSmall ? F_SMALL : 0);
    return id;
  }

  /**
   * A new block of the first `sizeBytes` of block `id` (same stream, pool and segment), not in any
   * set nor in the segment's list: {@link newBlock} with the address read here, not passed (a double
   * argument of a call that is not inlined is a new heap number).
   */
  newFrontBlock(id: number, sizeBytes: number): number {
    const b = this.takeId();
    this.ptr[b] = this.ptr[id] as number;
    this.size[b] = sizeBytes;
    this.streamOf[b] = this.streamOf[id] as number;
    this.prev[b] = -1;
    this.next[b] = -1;
    this.seg[b] = this.seg[id] as number;
    this.flags[b] = F_LIVE | ((this.flags[id] as number) & F_SMALL);
    return b;
  }

  private takeId(): number {
    if (this.freeIdTop > 0) return this.freeIds[--this.freeIdTop] as number;
    const id = this.idTop++;
    if (id === this.ptr.length) this.grow();
    return id;
  }

  /** `delete block`. */
  deleteBlock(id: number): void {
    this.flags[id] = 0;
    this.freeIds[this.freeIdTop++] = id;
  }

  private grow(): void {
    const n = this.ptr.length * 2;
    this.growBlocks(n);
    this.requested = grown(this.requested, n);
    this.gcBase = grown(this.gcBase, n);
    this.streamOf = grown(this.streamOf, n);
    this.prev = grown(this.prev, n);
    this.next = grown(this.next, n);
    this.seg = grown(this.seg, n);
    this.event = grown(this.event, n);
    this.flags = grown(this.flags, n);
    this.freeIds = grown(this.freeIds, n);
  }

  /** Highest block id ever used plus one (for walks over every block). */
  get idLimit(): number {
    return this.idTop;
  }

  isSmall(id: number): boolean {
    return ((this.flags[id] as number) & F_SMALL) !== 0;
  }

  isAllocated(id: number): boolean {
    return ((this.flags[id] as number) & F_ALLOCATED) !== 0;
  }

  isMapped(id: number): boolean {
    return ((this.flags[id] as number) & F_UNMAPPED) === 0;
  }

  /** Block::is_split: it has a neighbour in its segment. */
  isSplit(id: number): boolean {
    return (this.prev[id] as number) >= 0 || (this.next[id] as number) >= 0;
  }

  /** The free set of a block's stream and pool: 2 · stream index + (0 small, 1 large). */
  setOf(id: number): number {
    return (this.streamOf[id] as number) * 2 + (this.isSmall(id) ? 0 : 1);
  }

  unmappedSetOf(id: number): OrderedSet {
    const k = (this.streamOf[id] as number) * 2 + (this.isSmall(id) ? 0 : 1);
    let set = this.unmappedSets[k];
    if (set === undefined) {
      set = new OrderedSet(8);
      this.unmappedSets[k] = set;
    }
    return set;
  }

  /** BlockPool::insert_into_blocks: the block enters the free set and its GC age restarts. */
  insertIntoBlocks(id: number): void {
    if (this.trackAges) this.gcBase[id] = this.gcCalls[this.isSmall(id) ? 0 : 1] as number;
    this.setInsert(this.setOf(id), id);
  }

  eraseFromBlocks(id: number): void {
    this.setRemove(this.setOf(id), id);
  }

  insertUnmapped(id: number): void {
    this.unmappedSetOf(id).insert(this.ptr[id] as number, 0, id);
  }

  eraseUnmapped(id: number): void {
    this.unmappedSetOf(id).remove(this.ptr[id] as number, 0);
  }

  /** Makes `id` the block between `before` and `after` (Block::splice). */
  splice(id: number, before: number, after: number): void {
    if (before >= 0) this.next[before] = id;
    this.prev[id] = before;
    if (after >= 0) this.prev[after] = id;
    this.next[id] = after;
  }

  /**
   * try_merge_blocks: `dst` absorbs its free neighbour `src` when both are mapped or both unmapped;
   * `src` leaves its set and is deleted. Returns the bytes absorbed (0 when no merge).
   */
  tryMerge(dst: number, src: number): number {
    if (src < 0) return 0;
    const fs = this.flags[src] as number;
    if ((fs & F_ALLOCATED) !== 0 || ((fs ^ (this.flags[dst] as number)) & F_UNMAPPED) !== 0) return 0;
    if (this.prev[dst] === src) {
      this.ptr[dst] = this.ptr[src] as number;
      const p = this.prev[src] as number;
      this.prev[dst] = p;
      if (p >= 0) this.next[p] = dst;
    } else {
      const n = this.next[src] as number;
      this.next[dst] = n;
      if (n >= 0) this.prev[n] = dst;
    }
    const absorbed = this.size[src] as number;
    this.size[dst] = (this.size[dst] as number) + absorbed;
    if ((fs & F_UNMAPPED) !== 0) this.eraseUnmapped(src);
    else this.eraseFromBlocks(src);
    this.deleteBlock(src);
    return absorbed;
  }
}
