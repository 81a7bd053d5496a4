/**
 * Replaying a recorded PyTorch history (a memory snapshot): the allocator starts from the segments
 * and live blocks as they were when the recorded window opened, new segments take the addresses the
 * real allocator got, segments the real allocator released are released, and every allocation is
 * compared with the address the real allocator chose.
 */
import type { RecordedSegment, RecordedSegmentEvent, Trace } from '../../trace/model.js';
import { formatBytes, formatHex } from '../../util/bytes.js';
import type { CachingAllocator } from './allocator.js';
import type { SegmentPlacement } from './expandable.js';
import { F_UNMAPPED } from './blocks.js';
import { kLargeBuffer, kSmallBuffer } from './sizes.js';
import { INACTIVE_SPLIT, INACTIVE_SPLIT_BYTES, RESERVED_BYTES } from './stats.js';

/** An allocation placed elsewhere than the real allocator placed it. */
export interface AddressMismatch {
  event: number;
  id: string;
  sizeBytes: number;
  recordedAddress: string;
  simulatedAddress: string | null;
}

/** The `fidelity` section of the report. */
export interface Fidelity {
  /** Allocations in the window (initial ones excluded) whose recorded address is known. */
  allocations: number;
  /** Of those, the ones the simulation placed at the recorded address. */
  sameAddress: number;
  sameAddressRatio: number | null;
  reservedBytesSimulated: number;
  reservedBytesRecorded: number;
  /**
   * When the history states its final segments block by block: how many of those blocks the
   * simulation ends with at the same address, size and state (in use or free).
   */
  finalBlocks?: { recorded: number; identical: number };
  /** The first mismatches (up to 20), to look into. */
  mismatches: AddressMismatch[];
}

interface Range {
  start: number;
  end: number;
  /** A block of the range that stays alive while initial allocations are placed. */
  ref: number;
}

const MAX_MISMATCHES = 20;

/** The recorded history's side of a replay with the caching allocator. */
export class RecordedReplay implements SegmentPlacement {
  readonly initialEvents: number;
  private readonly trace: Trace;
  private readonly address: Float64Array;
  private readonly blockBytes: Float64Array;
  private readonly created: RecordedSegmentEvent[];
  private readonly createdUsed: Uint8Array;
  private createdCursor = 0;
  private readonly released: RecordedSegmentEvent[];
  private releasedCursor = 0;
  private event = -1;
  private readonly ranges: Range[] = [];
  private segmentsCreated = 0;
  private segmentBytes = 0;
  private segmentsSkipped = 0;
  private placed = 0;
  private notPlaced = 0;
  private releasedAsRecorded = 0;
  private allocations = 0;
  private same = 0;
  private readonly mismatches: AddressMismatch[] = [];

  constructor(
    trace: Trace,
    private readonly alloc: CachingAllocator,
  ) {
    const rec = trace.recorded!;
    this.trace = trace;
    this.initialEvents = trace.initialEvents;
    this.address = rec.address;
    this.blockBytes = rec.allocatedBytes;
    const byEvent = (x: RecordedSegmentEvent, y: RecordedSegmentEvent): number => x.beforeEvent - y.beforeEvent;
    this.created = rec.segmentEvents.filter((e) => e.action === 'alloc' || e.action === 'map').sort(byEvent);
    this.createdUsed = new Uint8Array(this.created.length);
    this.released = rec.segmentEvents.filter((e) => e.action === 'free').sort(byEvent);
    this.loadSegments(rec.initialSegments);
  }

  private loadSegments(initial: readonly RecordedSegment[]): void {
    const a = this.alloc;
    const sorted = [...initial].sort((x, y) => x.address - y.address);
    const groups = new Map<string, RecordedSegment[]>();
    for (const s of sorted) {
      const isSmall = s.pool === undefined ? s.sizeBytes <= kSmallBuffer : s.pool === 'small';
      if (s.isExpandable) {
        const key = `${s.stream}/${isSmall ? 's' : 'l'}`;
        groups.set(key, [...(groups.get(key) ?? []), s]);
        continue;
      }
      if (!a.device.mallocAt(s.address, s.sizeBytes)) {
        this.segmentsSkipped++;
        continue;
      }
      const id = a.addSegment(s.address, s.sizeBytes, a.streamIndex(s.stream), isSmall);
      a.insertIntoBlocks(id);
      this.addRange(s.address, s.sizeBytes, id);
    }
    // A reservation may not run into the next recorded segment (of another stream or pool).
    const starts = sorted.map((x) => x.address);
    for (const group of groups.values()) {
      const last = group[group.length - 1] as RecordedSegment;
      const end = last.address + last.sizeBytes;
      const next = starts.find((x) => x >= end) ?? Infinity;
      this.loadExpandable(group, next);
    }
    this.ranges.sort((x, y) => x.start - y.start);
  }

  private addRange(start: number, sizeBytes: number, ref: number): void {
    this.ranges.push({ start, end: start + sizeBytes, ref });
    this.segmentsCreated++;
    this.segmentBytes += sizeBytes;
  }

  /**
   * The mapped ranges of one stream's and pool's expandable segment: the reservation starts at the
   * lowest of them, ends before `limit` (the next recorded segment) when it must, and the gaps
   * between the ranges are unmapped.
   */
  private loadExpandable(group: RecordedSegment[], limit: number): void {
    const a = this.alloc;
    const first = group[0] as RecordedSegment;
    const last = group[group.length - 1] as RecordedSegment;
    const isSmall = first.pool === undefined ? first.sizeBytes <= kSmallBuffer : first.pool === 'small';
    const page = isSmall ? kSmallBuffer : kLargeBuffer;
    const span = Math.ceil((last.address + last.sizeBytes - first.address) / page) * page;
    const room = Math.floor((limit - first.address) / page) * page;
    const space = Math.max(span, Math.min(a.expandableSpaceBytes(page), room));
    if (!a.device.reserveAddressSpaceAt(first.address, space)) {
      this.segmentsSkipped += group.length;
      return;
    }
    let rest = a.addExpandableSegment(first.address, space, a.streamIndex(first.stream), isSmall);
    for (const s of group) {
      if ((s.address - first.address) % page !== 0 || s.sizeBytes % page !== 0 || !a.device.mapPhysical(s.sizeBytes)) {
        this.segmentsSkipped++;
        continue;
      }
      rest = this.mapRange(rest, s.address, s.sizeBytes, isSmall);
    }
  }

  /** Maps [start, start+size) inside the unmapped block `u`; returns the unmapped block after it. */
  private mapRange(u: number, start: number, sizeBytes: number, isSmall: boolean): number {
    const a = this.alloc;
    a.eraseUnmapped(u);
    const stream = a.streamOf[u] as number;
    const seg = a.seg[u] as number;
    const gap = start - (a.ptr[u] as number);
    if (gap > 0) {
      const g = a.newBlock(stream, gap, a.ptr[u] as number, isSmall, seg);
      a.flags[g] = (a.flags[g] as number) | F_UNMAPPED;
      a.splice(g, a.prev[u] as number, u);
      a.insertUnmapped(g);
      a.ptr[u] = start;
      a.size[u] = (a.size[u] as number) - gap;
    }
    let after = -1;
    const tail = (a.size[u] as number) - sizeBytes;
    if (tail > 0) {
      after = a.newBlock(stream, tail, start + sizeBytes, isSmall, seg);
      a.flags[after] = (a.flags[after] as number) | F_UNMAPPED;
      a.splice(after, u, a.next[u] as number);
      a.insertUnmapped(after);
      a.size[u] = sizeBytes;
    }
    a.flags[u] = (a.flags[u] as number) & ~F_UNMAPPED;
    a.insertIntoBlocks(u);
    a.totalAllocatedMemory += sizeBytes;
    a.counters.inc(RESERVED_BYTES, isSmall, sizeBytes);
    this.addRange(start, sizeBytes, u);
    return after;
  }

  /** Called before each event: segments the recorded allocator released before it are released. */
  beforeEvent(event: number): void {
    this.event = event;
    const rel = this.released;
    while (this.releasedCursor < rel.length && (rel[this.releasedCursor] as RecordedSegmentEvent).beforeEvent <= event) {
      this.release(rel[this.releasedCursor++] as RecordedSegmentEvent);
    }
  }

  /** A recorded segment_free (empty_cache, or the real OOM retry): the same cached segment goes back. */
  private release(e: RecordedSegmentEvent): void {
    const a = this.alloc;
    for (let k = 0; k < a.setCount; k++) {
      const id = a.setLowerBound(k, e.sizeBytes, e.address);
      if (id < 0 || a.size[id] !== e.sizeBytes || a.ptr[id] !== e.address) continue;
      if (!a.isSplit(id) && (a.seg[id] as number) < 0) {
        a.releaseBlock(id);
        this.releasedAsRecorded++;
      }
      return;
    }
  }

  take(kind: 'alloc' | 'map', sizeBytes: number): number {
    const c = this.created;
    while (this.createdCursor < c.length && (c[this.createdCursor] as RecordedSegmentEvent).beforeEvent < this.event) this.createdCursor++;
    for (let k = this.createdCursor; k < c.length && (c[k] as RecordedSegmentEvent).beforeEvent === this.event; k++) {
      const e = c[k] as RecordedSegmentEvent;
      if (this.createdUsed[k] || e.action !== kind || (kind === 'alloc' && e.sizeBytes !== sizeBytes)) continue;
      this.createdUsed[k] = 1;
      return e.address;
    }
    return NaN;
  }

  /**
   * An allocation live when the window opened: its block goes where the recorded one was, with the
   * recorded block size, carved out of the free space of its segment. Returns -1 when it cannot be.
   */
  placeInitial(event: number, sizeBytes: number, streamIndex: number): number {
    const a = this.alloc;
    const n = this.trace.alloc[event] as number;
    const addr = this.address[n] as number;
    const bytes = this.blockBytes[n] as number;
    const range = Number.isFinite(addr) && Number.isFinite(bytes) ? this.rangeAt(addr) : undefined;
    if (!range) {
      this.notPlaced++;
      return -1;
    }
    let b = range.ref;
    if (addr >= (a.ptr[b] as number)) {
      while (b >= 0 && (a.ptr[b] as number) + (a.size[b] as number) <= addr) b = a.next[b] as number;
    } else {
      while (b >= 0 && (a.ptr[b] as number) > addr) b = a.prev[b] as number;
    }
    if (b < 0 || a.isAllocated(b) || !a.isMapped(b) || addr + bytes > (a.ptr[b] as number) + (a.size[b] as number) || a.streamOf[b] !== streamIndex) {
      this.notPlaced++;
      return -1;
    }
    const x = this.carve(b, addr, bytes);
    range.ref = x;
    this.placed++;
    return a.markAllocated(x, sizeBytes, event);
  }

  private rangeAt(addr: number): Range | undefined {
    let lo = 0;
    let hi = this.ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = this.ranges[mid] as Range;
      if (addr < r.start) hi = mid - 1;
      else if (addr >= r.end) lo = mid + 1;
      else return r;
    }
    return undefined;
  }

  /** Cuts [addr, addr+bytes) out of free block f; the free parts around it keep their place. */
  private carve(f: number, addr: number, bytes: number): number {
    const a = this.alloc;
    const isSmall = a.isSmall(f);
    const stream = a.streamOf[f] as number;
    const seg = a.seg[f] as number;
    const fStart = a.ptr[f] as number;
    const fSize = a.size[f] as number;
    const wasSplit = a.isSplit(f);
    a.eraseFromBlocks(f);
    const left = addr - fStart;
    const right = fStart + fSize - (addr + bytes);
    const freeParts: number[] = [];
    let x = f;
    if (left > 0) {
      x = a.newBlock(stream, bytes, addr, isSmall, seg);
      a.splice(x, f, a.next[f] as number);
      a.size[f] = left;
      freeParts.push(f);
      if (right > 0) {
        const r = a.newBlock(stream, right, addr + bytes, isSmall, seg);
        a.splice(r, x, a.next[x] as number);
        freeParts.push(r);
      }
    } else if (right > 0) {
      x = a.newBlock(stream, bytes, addr, isSmall, seg);
      a.splice(x, a.prev[f] as number, f);
      a.ptr[f] = addr + bytes;
      a.size[f] = right;
      freeParts.push(f);
    }
    for (const p of freeParts) a.insertIntoBlocks(p);
    if (seg < 0) {
      if (wasSplit) {
        a.counters.dec(INACTIVE_SPLIT, isSmall, 1);
        a.counters.dec(INACTIVE_SPLIT_BYTES, isSmall, fSize);
      }
      for (const p of freeParts) {
        a.counters.inc(INACTIVE_SPLIT, isSmall, 1);
        a.counters.inc(INACTIVE_SPLIT_BYTES, isSmall, a.size[p] as number);
      }
    }
    return x;
  }

  /** Compares an allocation in the window with the recorded one (NaN: it failed). */
  check(event: number, simulated: number): void {
    const n = this.trace.alloc[event] as number;
    const recorded = this.address[n] as number;
    if (!Number.isFinite(recorded)) return;
    this.allocations++;
    if (simulated === recorded) {
      this.same++;
    } else if (this.mismatches.length < MAX_MISMATCHES) {
      this.mismatches.push({
        event,
        id: this.trace.ids.get(n),
        sizeBytes: this.trace.size[event] as number,
        recordedAddress: formatHex(recorded),
        simulatedAddress: Number.isFinite(simulated) ? formatHex(simulated) : null,
      });
    }
  }

  /** Reserved bytes at the end of the recorded history. */
  recordedFinalReservedBytes(): number {
    const rec = this.trace.recorded!;
    if (rec.finalSegments) return rec.finalSegments.reduce((s, x) => s + x.sizeBytes, 0);
    let bytes = rec.initialSegments.reduce((s, x) => s + x.sizeBytes, 0);
    for (const e of rec.segmentEvents) bytes += e.action === 'alloc' || e.action === 'map' ? e.sizeBytes : -e.sizeBytes;
    return bytes;
  }

  fidelity(): Fidelity {
    const finalBlocks = this.compareFinalBlocks();
    return {
      allocations: this.allocations,
      sameAddress: this.same,
      sameAddressRatio: this.allocations > 0 ? Math.round((this.same / this.allocations) * 1e6) / 1e6 : null,
      reservedBytesSimulated: this.alloc.reservedBytes,
      reservedBytesRecorded: this.recordedFinalReservedBytes(),
      ...(finalBlocks ? { finalBlocks } : {}),
      mismatches: this.mismatches,
    };
  }

  /** The simulation's blocks now against the recorded final blocks (a pending free is in use). */
  private compareFinalBlocks(): { recorded: number; identical: number } | undefined {
    type WithBlocks = RecordedSegment & { blocks?: { address: number; sizeBytes: number; state: string }[] };
    const final = this.trace.recorded!.finalSegments as WithBlocks[] | undefined;
    if (!final || !final.some((s) => s.blocks && s.blocks.length > 0)) return undefined;
    const simulated = new Set<string>();
    for (const seg of this.alloc.state().segments) for (const b of seg.blocks) simulated.add(`${b.address}+${b.sizeBytes}${b.isFree ? 'f' : 'u'}`);
    let recorded = 0;
    let identical = 0;
    for (const seg of final) {
      for (const b of seg.blocks ?? []) {
        recorded++;
        if (simulated.has(`${b.address}+${b.sizeBytes}${b.state === 'free' ? 'f' : 'u'}`)) identical++;
      }
    }
    return { recorded, identical };
  }

  notes(): string[] {
    const out = [
      `started from the recorded state when the window opened: ${this.segmentsCreated} segments (${formatBytes(this.segmentBytes)}) ` +
        `with ${this.placed} live blocks at their recorded addresses`,
    ];
    if (this.segmentsSkipped > 0) out.push(`${this.segmentsSkipped} recorded segments could not be recreated (over the capacity, or inconsistent)`);
    if (this.notPlaced > 0) out.push(`${this.notPlaced} allocations live at the start could not be placed where recorded and were allocated anew`);
    if (this.releasedAsRecorded > 0) out.push(`${this.releasedAsRecorded} cached segments released where the recorded allocator released them`);
    const pct = this.allocations > 0 ? ` (${((100 * this.same) / this.allocations).toFixed(2)}%)` : '';
    out.push(`${this.same} of ${this.allocations} allocations in the window placed at the address the real allocator chose${pct}`);
    return out;
  }
}
