/**
 * PyTorch's CUDA caching allocator for one device (DeviceCachingAllocator in
 * c10/cuda/CUDACachingAllocator.cpp): malloc, alloc_found_block, free and free_block, on top of the
 * segment and expandable-segment layers.
 */
import { SimDevice } from '../device.js';
import { type AllocationFailure, type AllocatorState, FAILED, NO_BLOCK, type OnlineAllocator } from '../types.js';
import type { RecordedHistory, RecordedOom, Trace } from '../../trace/model.js';
import { type InferredTotal, inferDeviceTotal } from './address-space.js';
import { F_ALLOCATED, F_SMALL, F_UNMAPPED } from './blocks.js';
import { type CachingSettings, snapshotSettings } from './config.js';
import { oomMessage, type OomFigures } from './oom.js';
import { RealOomProbe } from './real-oom-probe.js';
import { RecordedReplay } from './recorded.js';
import { SegmentStore } from './segments.js';
import { allocationSize, kMinBlockSize, kSmallSize, roundSize } from './sizes.js';
import { captureState } from './state.js';
import { RESERVED_BYTES, statsReport } from './stats.js';

/**
 * round_size without power-2 divisions: a multiple of 512, at least 512. An integer below 2^31
 * (every request of a trace) is rounded with shifts rather than a division.
 */
function roundTo512(n: number): number {
  if (n < kMinBlockSize) return kMinBlockSize;
  return (n | 0) === n ? ((n + 511) >>> 9) * 512 : Math.ceil(n / kMinBlockSize) * kMinBlockSize;
}

/** The caching allocator behind the `OnlineAllocator` interface. */
export class CachingAllocator extends SegmentStore implements OnlineAllocator {
  private readonly divisions: Float64Array;
  /** No roundup_power2_divisions: round_size is a multiple of 512. */
  private readonly plainRounding: boolean;
  private readonly maxSplit: number;
  private readonly maxNonSplitRounding: number;
  private failure: OomFigures | null = null;
  private failureRounded = 0;
  /** Reconstruction of and comparison with a recorded PyTorch history, when the trace has one. */
  readonly recorded: RecordedReplay | null;
  /** The device total the recorded reservations imply, when it is below the capacity (or the default). */
  readonly inferredTotal: InferredTotal | null = null;

  /** The real run's OOMs, for an allocator that starts fresh on a recorded history. */
  private readonly realOoms: RealOomProbe | null = null;

  /**
   * `trace`: a recorded history to start from and compare with; `history`: one to start fresh on,
   * of which only the real run's OOMs are checked.
   */
  constructor(settings: CachingSettings, capacityBytes: number, trace?: Trace, history?: Trace) {
    const rec = trace?.recorded?.allocator === 'pytorch-caching' ? trace : undefined;
    // A recorded history brings real addresses: widen the address space so that each can be taken.
    super(settings, rec ? new SimDevice(capacityBytes, 2 ** 21, 2 ** 52) : new SimDevice(capacityBytes));
    this.divisions = Float64Array.from(settings.roundupPower2Divisions);
    this.plainRounding = settings.roundupPower2Divisions.every((d) => d <= 1);
    this.maxSplit = settings.maxSplitSizeBytes;
    this.maxNonSplitRounding = settings.maxNonSplitRoundingBytes;
    // Reservations as large as the real ones: no larger than the recorded ones leave room for.
    const inferred = rec ? inferDeviceTotal(rec.recorded as RecordedHistory) : null;
    if (inferred && inferred.totalBytes < this.deviceTotalBytes) {
      this.deviceTotalBytes = inferred.totalBytes;
      this.inferredTotal = inferred;
    }
    this.recorded = rec ? new RecordedReplay(rec, this) : null;
    this.placement = this.recorded;
    if (!rec) this.realOoms = RealOomProbe.of(history, this);
  }

  get allocatedBytes(): number {
    return this.counters.bytesA;
  }
  get reservedBytes(): number {
    return this.counters.current[RESERVED_BYTES * 3] as number;
  }
  get deviceAllocCalls(): number {
    return this.counters.numDeviceAlloc;
  }
  get deviceFreeCalls(): number {
    return this.counters.numDeviceFree;
  }
  get limitBytes(): number | undefined {
    return this.setFraction ? this.allowedBytes : undefined;
  }

  /** The block size a request is served with. */
  roundSize(sizeBytes: number): number {
    return roundSize(sizeBytes, this.divisions);
  }

  /**
   * DeviceCachingAllocator::malloc, with a recorded history's bookkeeping around it. One function:
   * V8 compiles it once, where a wrapper would be compiled on its own and again inlined in the loop.
   */
  allocate(sizeBytes: number, stream: number, _step: number, event: number): number {
    if (sizeBytes === 0) return NO_BLOCK;
    const streamIndex = stream === this.lastStream ? this.lastStreamIndex : this.streamIndex(stream);
    const rec = this.recorded;
    if (this.realOoms !== null) this.realOoms.beforeEvent(event);
    if (rec !== null) {
      rec.beforeEvent(event);
      if (event < rec.initialEvents) {
        const placed = rec.placeInitial(event, sizeBytes, streamIndex);
        if (placed >= 0) return placed;
      }
    }
    const size = this.plainRounding ? roundTo512(sizeBytes) : roundSize(sizeBytes, this.divisions);
    const isSmall = size <= kSmallSize;
    // get_free_block: the pool's count of searches (for block ages), then one probe.
    if (this.gcActive) this.gcCalls[isSmall ? 0 : 1] = (this.gcCalls[isSmall ? 0 : 1] as number) + 1;
    let block = this.probeFreeBlock(streamIndex, isSmall, size);
    // A block found in the pool is still listed: alloc_found_block re-keys or removes it.
    const listed = block >= 0;
    const allocSize = listed ? 0 : allocationSize(size);
    if (!listed) {
      if (this.gcActive) this.garbageCollect();
      block = this.allocBlock(streamIndex, isSmall, size, allocSize, false);
      if (block < 0 && this.releaseAvailableCachedBlocks(streamIndex, isSmall, size)) {
        block = this.allocBlock(streamIndex, isSmall, size, allocSize, false);
      }
      if (block < 0 && this.releaseCachedBlocks()) block = this.allocBlock(streamIndex, isSmall, size, allocSize, true);
    }
    let h = FAILED;
    if (block < 0) this.noteFailure(size, allocSize);
    else {
      // should_split: 512 B remainders in the small pool (or with expandable segments), > 1 MiB else.
      const remaining = (this.size[block] as number) - size;
      const split = ((this.flags[block] as number) & F_SMALL) !== 0 || this.expandableMode ? remaining >= kMinBlockSize : size < this.maxSplit && remaining > kSmallSize;
      h = this.allocFoundBlock(block, size, sizeBytes, split, event, listed);
    }
    if (rec !== null && event >= rec.initialEvents) {
      rec.check(event, h === FAILED ? NaN : (this.ptr[h] as number), h === FAILED ? NaN : (this.size[h] as number));
    }
    return h;
  }

  /** A request that cannot be served: the OOM's figures, for its message. */
  private noteFailure(size: number, allocSize: number): void {
    this.counters.numOoms++;
    this.failureRounded = size;
    const { capacityBytes, usedBytes } = this.device;
    const allowedBytes = this.setFraction ? this.allowedBytes : null;
    this.failure = { allocSizeBytes: allocSize, device: 0, totalBytes: capacityBytes, freeBytes: capacityBytes - usedBytes, allowedBytes, allocatedBytes: this.allocatedBytes, reservedBytes: this.reservedBytes };
  }

  /**
   * The block get_free_block would choose for a request, without its side effects; -1 when none:
   * one lower_bound probe at (stream, size, 0) in the pool; the max_split_size rules refuse the
   * candidate rather than look further. The block found stays in its set for alloc_found_block
   * (which would erase it and insert its remainder: one move instead).
   */
  probeFreeBlock(streamIndex: number, isSmall: boolean, size: number): number {
    const set = streamIndex * 2 + (isSmall ? 0 : 1);
    let id = this.setFirstAtLeast(set, size);
    if (id < 0) return -1;
    if ((this.seg[id] as number) >= 0) {
      id = this.expandableCandidate(set, id);
      if (id < 0) return -1;
    }
    const found = this.size[id] as number;
    if (size < this.maxSplit && found >= this.maxSplit) return -1;
    if (size >= this.maxSplit && found >= size + this.maxNonSplitRounding) return -1;
    return id;
  }

  /**
   * In an expandable segment a block counts as big as it can grow (its size plus the unmapped range
   * after it), so the probe walks on while the next block can grow less; with expandable segments
   * off, blocks of expandable segments are passed over.
   */
  private expandableCandidate(set: number, start: number): number {
    let id = start;
    if (this.expandableMode) {
      let next = this.setNext(set, id);
      while (next >= 0 && (this.seg[id] as number) >= 0 && this.expandableSize(next) < this.expandableSize(id)) {
        id = next;
        next = this.setNext(set, id);
      }
      return id;
    }
    do id = this.setNext(set, id);
    while (id >= 0 && (this.seg[id] as number) >= 0);
    return id;
  }

  private expandableSize(id: number): number {
    const n = this.next[id] as number;
    return (this.size[id] as number) + (n >= 0 && !this.isMapped(n) ? (this.size[n] as number) : 0);
  }

  /**
   * alloc_found_block: the low part of the block serves the request; the remainder (the same block
   * with its start moved up) stays cached. `listed`: the block is still in its free set.
   */
  allocFoundBlock(id: number, size: number, origSize: number, split: boolean, event: number, listed: boolean): number {
    // Block tests and moves (pool, is_split, splice; in free, the merge test and the unlinking) are
    // written out on this path and on free's: V8 compiles small functions on their own as well as
    // inlined into each caller.
    const isSmall = ((this.flags[id] as number) & F_SMALL) !== 0;
    const alreadySplit = (this.prev[id] as number) >= 0 || (this.next[id] as number) >= 0;
    const inExpandable = (this.seg[id] as number) >= 0;
    const stream = this.streamOf[id] as number;
    let block = id;
    // The change of inactive_split (blocks, bytes), made by one call below (one copy where inlined).
    let splitBlocks = 0;
    let splitBytes = 0;
    if (split) {
      const remaining = id;
      block = this.newFrontBlock(id, size);
      // Block::splice of the new block between the remainder's previous block and the remainder.
      const before = this.prev[remaining] as number;
      if (before >= 0) this.next[before] = block;
      this.prev[block] = before;
      this.prev[remaining] = block;
      this.next[block] = remaining;
      this.ptr[remaining] = (this.ptr[remaining] as number) + size;
      this.size[remaining] = (this.size[remaining] as number) - size;
      if (listed) {
        this.setRekeyed(stream * 2 + (isSmall ? 0 : 1), remaining);
        if (this.trackAges) this.gcBase[remaining] = this.gcCalls[isSmall ? 0 : 1] as number;
      } else {
        this.insertIntoBlocks(remaining);
      }
      // An already split block shrinks by `size`; an unsplit one leaves a new split remainder.
      if (alreadySplit) splitBytes = -size;
      else {
        splitBlocks = 1;
        splitBytes = this.size[remaining] as number;
      }
    } else {
      if (listed) this.setRemove(stream * 2 + (isSmall ? 0 : 1), id);
      if (alreadySplit) {
        splitBlocks = -1;
        splitBytes = -(this.size[block] as number);
      }
    }
    const st = this.counters;
    if (splitBytes !== 0 && !inExpandable) st.inactiveSplit(isSmall, splitBlocks, splitBytes);
    // handOut, written out (the block arrays are read afresh: a new block may have grown them).
    const bytes = this.size[block] as number;
    this.flags[block] = (this.flags[block] as number) | F_ALLOCATED;
    this.requested[block] = origSize;
    this.event[block] = event;
    st.allocated(isSmall, bytes, origSize);
    if (bytes >= this.maxSplit) {
      st.oversizeAllocations++;
      if (st.oversizeAllocations > st.oversizeAllocationsPeak) st.oversizeAllocationsPeak = st.oversizeAllocations;
    }
    return block;
  }

  /** The accounting of a block becoming allocated (the end of alloc_found_block, as written out there). */
  markAllocated(block: number, origSize: number, event: number): number {
    const isSmall = this.isSmall(block);
    const bytes = this.size[block] as number;
    this.flags[block] = (this.flags[block] as number) | F_ALLOCATED;
    this.requested[block] = origSize;
    this.event[block] = event;
    const st = this.counters;
    st.allocated(isSmall, bytes, origSize);
    if (bytes >= this.maxSplit) {
      st.oversizeAllocations++;
      if (st.oversizeAllocations > st.oversizeAllocationsPeak) st.oversizeAllocationsPeak = st.oversizeAllocations;
    }
    return block;
  }

  free(handle: number, _step: number, event: number): void {
    if (this.recorded !== null) this.recorded.beforeEvent(event);
    else if (this.realOoms !== null) this.realOoms.beforeEvent(event);
    const flags = this.flags;
    const prev = this.prev;
    const next = this.next;
    const f = flags[handle] as number;
    const isSmall = (f & F_SMALL) !== 0;
    const bytes = this.size[handle] as number;
    flags[handle] = f & ~F_ALLOCATED;
    // allocation and allocated_bytes go down in free(), requested_bytes in free_block(): together here.
    this.counters.released(isSmall, bytes, this.requested[handle] as number);
    if (bytes >= this.maxSplit) this.counters.oversizeAllocations--;
    // free_block, here (in a function of its own, V8 would compile it twice: on its own and inlined):
    // the block merges with its free neighbours and returns to its pool. The merged block is the same
    // whichever block object carries it, so a listed neighbour absorbs the others and is re-keyed in
    // place of an erase and an insert.
    const id = handle;
    const before = prev[id] as number;
    const after = next[id] as number;
    // try_merge_blocks' test: a free neighbour, both mapped or both unmapped.
    const mergeBefore = before >= 0 && ((flags[before] as number) & F_ALLOCATED) === 0 && (((flags[before] as number) ^ f) & F_UNMAPPED) === 0;
    const mergeAfter = after >= 0 && ((flags[after] as number) & F_ALLOCATED) === 0 && (((flags[after] as number) ^ f) & F_UNMAPPED) === 0;
    // Neighbours in a segment share its stream and pool, hence its free set.
    const set = (this.streamOf[id] as number) * 2 + (isSmall ? 0 : 1);
    let netBlocks = 0;
    let netBytes = 0;
    let merged = id;
    if (mergeBefore) {
      // [before][id][after?]: before grows over id (and after).
      let grownBy = bytes;
      netBlocks--;
      netBytes -= this.size[before] as number;
      if (mergeAfter) {
        netBlocks--;
        netBytes -= this.size[after] as number;
        grownBy += this.size[after] as number;
        this.setRemove(set, after);
        // [before][id][after][n]: before's next becomes n.
        const n = next[after] as number;
        if (n >= 0) prev[n] = before;
        next[before] = n;
        this.deleteBlock(after);
      } else {
        next[before] = after;
        if (after >= 0) prev[after] = before;
      }
      this.deleteBlock(id);
      merged = before;
      this.size[before] = (this.size[before] as number) + grownBy;
      this.setRekeyed(set, before);
    } else if (mergeAfter) {
      // [id][after]: after grows down over id.
      netBlocks--;
      netBytes -= this.size[after] as number;
      prev[after] = before;
      if (before >= 0) next[before] = after;
      this.deleteBlock(id);
      merged = after;
      this.size[after] = (this.size[after] as number) + bytes;
      this.ptr[after] = this.ptr[id] as number;
      this.setRekeyed(set, after);
    } else {
      if (this.trackAges) this.gcBase[id] = this.gcCalls[isSmall ? 0 : 1] as number;
      this.setInsert(set, id);
    }
    if (this.trackAges) this.gcBase[merged] = this.gcCalls[isSmall ? 0 : 1] as number;
    if ((prev[merged] as number) >= 0 || (next[merged] as number) >= 0) {
      netBlocks++;
      netBytes += this.size[merged] as number;
    }
    const st = this.counters;
    if ((this.seg[merged] as number) < 0) {
      if (netBlocks !== 0 || netBytes !== 0) st.inactiveSplit(isSmall, netBlocks, netBytes);
    }
  }

  address(handle: number): number {
    return this.ptr[handle] as number;
  }

  blockBytes(handle: number): number {
    return this.size[handle] as number;
  }

  /** O(1) however many streams: the free sets keep their largest blocks in a tournament tree. */
  largestFreeBlockBytes(): number {
    return this.largestInSets();
  }

  freeBlockCount(): number {
    return this.totalCount;
  }

  lastFailure(): AllocationFailure {
    if (this.failure === null) return { roundedBytes: 0, native: '' };
    return { roundedBytes: this.failureRounded, native: oomMessage(this.failure) };
  }

  state(): AllocatorState {
    return captureState(this);
  }

  stats(): Record<string, unknown> {
    return statsReport(this.counters, this.maxSplit, snapshotSettings(this.settings));
  }

  /** Segments the recorded allocator released after the last event are released too. */
  finish(lastEvent: number): void {
    this.recorded?.beforeEvent(lastEvent + 1);
    this.realOoms?.beforeEvent(lastEvent + 1);
  }

  realOomVerdict(o: RecordedOom): boolean | null | undefined {
    return this.realOoms?.verdict(o);
  }

  realOomsReproduced(): number {
    return this.recorded?.reproduced() ?? this.realOoms?.reproduced() ?? 0;
  }

  notes(): string[] {
    const out: string[] = [];
    if (this.settings.garbageCollectionThreshold > 0 && !this.setFraction) {
      out.push('garbage_collection_threshold has no effect without per_process_memory_fraction (PyTorch collects only under a memory fraction)');
    }
    if (this.recorded) out.push(...this.recorded.notes());
    return out;
  }

  reportSections(): Record<string, unknown> {
    return this.recorded ? { fidelity: this.recorded.fidelity() } : {};
  }
}
