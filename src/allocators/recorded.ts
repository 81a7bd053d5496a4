import type { RecordedHistory, RecordedOom, Trace } from '../trace/model.js';
import { inferDeviceTotal } from './caching/address-space.js';
import { oomMessage } from './caching/oom.js';
import { allocationSize } from './caching/sizes.js';
import { formatBytes } from '../util/bytes.js';
import { POOL_LARGE, POOL_SMALL, POOL_UNKNOWN, SegmentLayout, TAKE_OK } from '../util/segment-layout.js';
import { pytorchOomText } from './recorded-text.js';
import { type AllocatorState, defineAllocator, FAILED, NO_BLOCK, type OnlineAllocator, type RecordedFailure, type SegmentState } from './types.js';

const poolCode = (pool: string | undefined): number => (pool === 'small' ? POOL_SMALL : pool === 'large' ? POOL_LARGE : POOL_UNKNOWN);
const poolName = (code: number): string => (code === POOL_SMALL ? 'small' : code === POOL_LARGE ? 'large' : 'segment');

/**
 * Replays what a real allocator recorded, with no simulation: each allocation at its recorded
 * address with its recorded block size, and the device segments as they were created, freed, mapped
 * and unmapped (initial segments, then the segment events in order, each applied just before the
 * event it precedes). Reserved bytes are the segments' bytes (mapped bytes for expandable segments);
 * when the history records no segment at all (an importer that only knows blocks), reserved is shown
 * equal to allocated, since nothing else is known.
 *
 * With a `--capacity` below the recorded segments, the first allocation after the segments outgrow
 * it fails (the real allocator would have had to do something else, which only a simulation can say).
 */
export class RecordedAllocator implements OnlineAllocator {
  private readonly h: RecordedHistory;
  private readonly trace: Trace;
  private readonly capacityBytes: number;
  private readonly layout = new SegmentLayout();
  private readonly hasSegments: boolean;
  private readonly bytes: Float64Array;
  private nextSegmentEvent = 0;
  allocatedBytes = 0;
  deviceAllocCalls = 0;
  deviceFreeCalls = 0;
  private live = 0;
  /** Allocations whose recorded placement does not fit the recorded segments and blocks. */
  private misplaced = 0;
  private segmentMismatches = 0;
  private failRounded = 0;
  private failReservedBefore = 0;
  /** The last failure came of the segments held when the window opened, more than the capacity. */
  private failFromStart = false;
  private lastSegmentBytes = 0;
  private reservedBeforeLastSegment = 0;
  private finishedAt = -1;
  private inferred: number | null | undefined;

  constructor(trace: Trace, capacityBytes: number) {
    if (!trace.recorded) throw new Error('the recorded allocator needs a trace with a recorded history');
    this.h = trace.recorded;
    this.trace = trace;
    this.capacityBytes = capacityBytes;
    this.bytes = new Float64Array(trace.allocCount);
    for (const s of this.h.initialSegments) {
      if (!this.layout.addSegment(s.address, s.sizeBytes, s.stream, poolCode(s.pool), s.isExpandable ?? false)) this.segmentMismatches++;
    }
    this.hasSegments = this.h.initialSegments.length > 0 || this.h.segmentEvents.length > 0;
  }

  get reservedBytes(): number {
    return this.hasSegments ? this.layout.reservedBytes : this.allocatedBytes;
  }

  /**
   * Applies the segment events recorded before event `event` (with `beforeEntry`: only those of
   * that event that come before that entry of the source, e.g. before a recorded OOM).
   */
  private advance(event: number, beforeEntry = Infinity): void {
    const evs = this.h.segmentEvents;
    while (this.nextSegmentEvent < evs.length) {
      const e = evs[this.nextSegmentEvent];
      if (!e || e.beforeEvent > event || (e.beforeEvent === event && (e.entry ?? -1) >= beforeEntry)) break;
      this.nextSegmentEvent++;
      const before = this.layout.reservedBytes;
      let ok: boolean;
      if (e.action === 'alloc') ok = this.layout.addSegment(e.address, e.sizeBytes, e.stream, poolCode(e.pool), false);
      else if (e.action === 'free') ok = this.layout.removeSegment(e.address, e.sizeBytes);
      else if (e.action === 'map') ok = this.layout.map(e.address, e.sizeBytes, e.stream, poolCode(e.pool));
      else ok = this.layout.unmap(e.address, e.sizeBytes);
      if (!ok) this.segmentMismatches++;
      if (e.action === 'alloc' || e.action === 'map') {
        this.deviceAllocCalls++;
        this.lastSegmentBytes = e.sizeBytes;
        this.reservedBeforeLastSegment = before;
      } else {
        this.deviceFreeCalls++;
      }
    }
  }

  allocate(sizeBytes: number, _stream: number, _step: number, event: number): number {
    this.advance(event);
    const a = this.trace.alloc[event] as number;
    const recorded = this.h.allocatedBytes[a] as number;
    const bytes = Number.isNaN(recorded) ? sizeBytes : recorded;
    if (this.layout.reservedBytes > this.capacityBytes) {
      // The segment last made outgrew the capacity; or the window opened with more held than it.
      const fromStart = this.lastSegmentBytes === 0;
      this.failRounded = fromStart ? bytes : this.lastSegmentBytes;
      this.failReservedBefore = fromStart ? this.layout.reservedBytes : this.reservedBeforeLastSegment;
      this.failFromStart = fromStart;
      return FAILED;
    }
    if (bytes === 0) return NO_BLOCK;
    if (!this.hasSegments && this.allocatedBytes + bytes > this.capacityBytes) {
      this.failRounded = bytes;
      this.failReservedBefore = this.allocatedBytes;
      return FAILED;
    }
    const address = this.h.address[a] as number;
    if (!Number.isNaN(address) && this.layout.take(address, bytes, a) !== TAKE_OK && this.hasSegments) this.misplaced++;
    this.bytes[a] = bytes;
    this.allocatedBytes += bytes;
    this.live++;
    return a;
  }

  free(handle: number, _step: number, event: number): void {
    this.advance(event);
    const address = this.h.address[handle] as number;
    if (!Number.isNaN(address)) this.layout.release(address);
    this.allocatedBytes -= this.bytes[handle] as number;
    this.bytes[handle] = 0;
    this.live--;
  }

  finish(lastEvent: number): void {
    this.advance(lastEvent + 1);
    this.finishedAt = lastEvent + 1;
  }

  recordedFailureEvents(): readonly number[] {
    return (this.h.ooms ?? []).map((o) => o.beforeEvent);
  }

  /**
   * The real run's OOM `k` with the real allocator's figures: what it had reserved and allocated
   * then (the segment changes recorded before the failure applied), the free device memory it saw,
   * and PyTorch's message. The device's total is `--capacity`, else what the recorded reservations
   * imply, else reserved plus free (what PyTorch could have held; the snapshot records no total).
   */
  recordedFailure(k: number): RecordedFailure {
    const o = (this.h.ooms ?? [])[k] as RecordedOom;
    this.advance(o.beforeEvent, o.entry ?? Infinity);
    const reserved = this.reservedBytes;
    const free = o.deviceFreeBytes ?? null;
    const held = reserved + (free ?? 0);
    const total = Number.isFinite(this.capacityBytes) ? this.capacityBytes : (this.inferredTotal() ?? held);
    const device = typeof this.h.extra?.['device'] === 'number' ? (this.h.extra['device'] as number) : 0;
    const pytorch = this.h.allocator === 'pytorch-caching';
    const tried = pytorch ? allocationSize(o.sizeBytes) : o.sizeBytes;
    // The device could have given what the allocator asked for: a cap of the run's own stopped it.
    const capped = free !== null && free >= tried;
    const capacity = this.capacityBytes;
    const capLimit = capacity >= reserved && capacity < reserved + tried ? capacity : reserved;
    const native = pytorch
      ? oomMessage({ allocSizeBytes: tried, device, totalBytes: total, freeBytes: free ?? Math.max(0, total - reserved), allowedBytes: null, allocatedBytes: this.allocatedBytes, reservedBytes: reserved })
      : `the recorded allocator ran out of memory asking for ${o.sizeBytes} bytes`;
    return {
      beforeEvent: o.beforeEvent,
      sizeBytes: o.sizeBytes,
      roundedBytes: tried,
      allocatedBytes: this.allocatedBytes,
      reservedBytes: reserved,
      deviceFreeBytes: free,
      limitBytes: free === null ? Math.min(this.capacityBytes, reserved) : capped ? capLimit : held,
      capBelowBytes: capped ? reserved + tried : null,
      largestFreeBlockBytes: this.layout.largestGapBytes(),
      freeBlocks: this.layout.gapCount,
      entry: o.source ?? null,
      native,
    };
  }

  /** The device total the recorded expandable-segment reservations imply (null when they bound none). */
  private inferredTotal(): number | null {
    if (this.inferred === undefined) this.inferred = this.h.allocator === 'pytorch-caching' ? (inferDeviceTotal(this.h)?.totalBytes ?? null) : null;
    return this.inferred;
  }

  address(handle: number): number {
    return this.h.address[handle] as number;
  }

  blockBytes(handle: number): number {
    return this.bytes[handle] as number;
  }

  largestFreeBlockBytes(): number {
    return this.layout.largestGapBytes();
  }

  freeBlockCount(): number {
    return this.layout.gapCount;
  }

  lastFailure() {
    const device = typeof this.h.extra?.['device'] === 'number' ? (this.h.extra['device'] as number) : 0;
    const native =
      this.h.allocator === 'pytorch-caching'
        ? pytorchOomText(this.failRounded, device, this.capacityBytes, this.failReservedBefore, this.allocatedBytes)
        : `recorded history: ${this.failRounded} more bytes from the device would exceed the capacity of ${this.capacityBytes} bytes`;
    if (!this.failFromStart) return { roundedBytes: this.failRounded, native };
    const reason =
      `The recorded run held ${formatBytes(this.failReservedBefore)} in segments when the window opened, more than the capacity of ${formatBytes(this.capacityBytes)}: ` +
      'its history does not fit this device, and no request of it can be served as it was (a simulation, such as --allocator caching, says what a smaller device would do).';
    return { roundedBytes: this.failRounded, native, reason };
  }

  state(): AllocatorState {
    const segments: SegmentState[] = [];
    const { trace } = this;
    const block = (start: number, end: number, a: number) =>
      a < 0
        ? { address: start, sizeBytes: end - start, isFree: true }
        : {
            address: start,
            sizeBytes: end - start,
            requestedBytes: trace.size[trace.allocEvent[a] as number] as number,
            allocEvent: trace.allocEvent[a] as number,
            isFree: false,
          };
    this.layout.forEachSegment((s) => {
      const seg: SegmentState = { address: s.start, sizeBytes: s.end - s.start, kind: poolName(s.pool), stream: s.stream, blocks: [] };
      this.layout.forEachBlockIn(s.start, s.end, (start, end, a) => seg.blocks.push(block(start, end, a)));
      segments.push(seg);
    });
    if (!this.hasSegments) {
      this.layout.forEachLive((start, end, a) => segments.push({ address: start, sizeBytes: end - start, kind: 'block', blocks: [block(start, end, a)] }));
    }
    return { segments };
  }

  stats(): Record<string, unknown> {
    return {
      allocated_bytes: this.allocatedBytes,
      reserved_bytes: this.reservedBytes,
      segments: this.layout.segmentCount,
      live_blocks: this.live,
      num_device_alloc: this.deviceAllocCalls,
      num_device_free: this.deviceFreeCalls,
      misplaced_allocations: this.misplaced,
      segment_event_mismatches: this.segmentMismatches,
    };
  }

  notes(): string[] {
    const out: string[] = [];
    if (!this.hasSegments) out.push('the recorded history has no segments: reserved bytes are shown equal to allocated bytes (nothing else is known).');
    if (this.misplaced > 0) out.push(`${this.misplaced} recorded allocations do not fit the recorded segments and blocks (the history is not self-consistent).`);
    if (this.segmentMismatches > 0) out.push(`${this.segmentMismatches} recorded segment events do not fit the segments before them.`);
    const check = this.finalCheck();
    if (check) {
      out.push(
        check.matches
          ? `the replayed history ends as the file's own segments: ${check.segments.replayed} segments, ${formatBytes(check.reservedBytes.replayed)} reserved, ` +
              `${formatBytes(check.allocatedBytes.replayed)} in active blocks.`
          : `the replayed history does NOT end as the file's own segments: ${check.segments.replayed} vs ${check.segments.file} segments, ` +
              `reserved ${check.reservedBytes.replayed} vs ${check.reservedBytes.file} bytes, active ${check.allocatedBytes.replayed} vs ${check.allocatedBytes.fileActive} bytes.`,
      );
    }
    return out;
  }

  /** The end of the replay against the source's own final segments (after a complete replay). */
  private finalCheck() {
    const finals = this.h.finalSegments;
    if (!finals || this.finishedAt !== this.trace.length) return undefined;
    const reserved = finals.reduce((s, x) => s + x.sizeBytes, 0);
    const allocated = finals.reduce((s, x) => s + (x.allocatedBytes ?? 0), 0);
    const active = finals.reduce((s, x) => s + (x.activeBytes ?? x.allocatedBytes ?? 0), 0);
    return {
      matches: reserved === this.reservedBytes && active === this.allocatedBytes && finals.length === this.layout.segmentCount,
      segments: { replayed: this.layout.segmentCount, file: finals.length },
      reservedBytes: { replayed: this.reservedBytes, file: reserved },
      allocatedBytes: { replayed: this.allocatedBytes, fileAllocated: allocated, fileActive: active },
    };
  }

  reportSections(): Record<string, unknown> {
    const section: Record<string, unknown> = { allocator: this.h.allocator };
    const check = this.finalCheck();
    if (check) section['finalCheck'] = check;
    if (this.h.ooms && this.h.ooms.length > 0) section['recordedOoms'] = this.h.ooms;
    return { recorded: section };
  }
}

export const recorded = defineAllocator({
  name: 'recorded',
  summary: "the real allocator's own recorded history (addresses, block sizes, segments), replayed with no simulation",
  options: {},
  needsRecordedHistory: true,
  create(_options, ctx) {
    return new RecordedAllocator(ctx.trace, ctx.capacityBytes);
  },
});
