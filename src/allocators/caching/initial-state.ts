/**
 * The allocator's state when a recorded window opened: the recorded segments at their addresses
 * (expandable ones as mapped ranges of one reservation per stream and pool), and the allocations
 * then live carved out of them at their recorded addresses with their recorded block sizes.
 */
import type { RecordedSegment } from '../../trace/model.js';
import { formatBytes } from '../../util/bytes.js';
import type { CachingAllocator } from './allocator.js';
import { F_LIVE, F_UNMAPPED } from './blocks.js';
import { kLargeBuffer, kSmallBuffer } from './sizes.js';
import { RESERVED_BYTES } from './stats.js';

interface Range {
  start: number;
  end: number;
  /** A block of the range that stays alive while initial allocations are placed. */
  ref: number;
}

/** Rebuilds the recorded segments and places the allocations live at the start. */
export class InitialState {
  private readonly ranges: Range[] = [];
  private segmentsCreated = 0;
  private segmentBytes = 0;
  private segmentsSkipped = 0;
  private placed = 0;
  private notPlaced = 0;

  constructor(
    private readonly alloc: CachingAllocator,
    segments: readonly RecordedSegment[],
  ) {
    this.load(segments);
  }

  private load(initial: readonly RecordedSegment[]): void {
    const a = this.alloc;
    const sorted = [...initial].sort((x, y) => x.address - y.address);
    const groups = new Map<string, RecordedSegment[]>();
    for (const s of sorted) {
      const isSmall = s.pool === undefined ? s.sizeBytes <= kSmallBuffer : s.pool === 'small';
      if (s.isExpandable) {
        const key = `${s.stream}/${isSmall ? 's' : 'l'}`;
        const group = groups.get(key);
        if (group) group.push(s);
        else groups.set(key, [s]);
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

  /**
   * An allocation live when the window opened: its block goes at `addr` with `bytes` (the recorded
   * block size), carved out of the free space of its segment. Returns -1 when it cannot be.
   */
  place(addr: number, bytes: number, sizeBytes: number, streamIndex: number, event: number): number {
    const a = this.alloc;
    const range = Number.isFinite(addr) && Number.isFinite(bytes) ? this.rangeAt(addr) : undefined;
    if (!range) {
      this.notPlaced++;
      return -1;
    }
    let b = range.ref;
    // A segment released since (an OOM among the initial allocations frees cached segments) holds
    // nothing to place into: its blocks' ids may serve other blocks now.
    if (((a.flags[b] as number) & F_LIVE) === 0 || (a.ptr[b] as number) < range.start || (a.ptr[b] as number) >= range.end) {
      this.notPlaced++;
      return -1;
    }
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
        a.counters.inactiveSplit(isSmall, -1, -fSize);
      }
      for (const p of freeParts) {
        a.counters.inactiveSplit(isSmall, 1, a.size[p] as number);
      }
    }
    return x;
  }

  notes(): string[] {
    const out = [
      `started from the recorded state when the window opened: ${this.segmentsCreated} segments (${formatBytes(this.segmentBytes)}) ` +
        `with ${this.placed} live blocks at their recorded addresses`,
    ];
    if (this.segmentsSkipped > 0) out.push(`${this.segmentsSkipped} recorded segments could not be recreated (over the capacity, or inconsistent)`);
    if (this.notPlaced > 0) out.push(`${this.notPlaced} allocations live at the start could not be placed where recorded and were allocated anew`);
    return out;
  }
}
