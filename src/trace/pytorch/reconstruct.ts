import { POOL_LARGE, POOL_SMALL, POOL_UNKNOWN, SegmentLayout, type LayoutSegment } from '../../util/segment-layout.js';
import { LiveAddresses } from './live-addresses.js';
import type { PickleValue } from './pickle-value.js';
import { type BlockRules, isSmallPool, roundSize, SMALL_SIZE_BYTES } from './round-size.js';
import {
  A_ALLOC,
  A_FREE_COMPLETED,
  A_SEGMENT_ALLOC,
  A_SEGMENT_FREE,
  A_SEGMENT_MAP,
  A_SEGMENT_UNMAP,
  type DeviceTrace,
  type SnapshotSegment,
} from './snapshot.js';

/** kSmallBuffer and kLargeBuffer: segment (or expandable page) sizes of the two pools. */
const SMALL_BUFFER_BYTES = 2 * 1024 * 1024;
const LARGE_BUFFER_BYTES = 20 * 1024 * 1024;

/** An allocation that was live when the window opened. */
export interface InitialAllocation {
  address: number;
  requestedBytes: number;
  /** The block size (final block size, or by the rule of spec/pytorch-snapshot.md). */
  blockBytes: number;
  stream: number;
  /** Frames of the final block (allocations still live at the dump); none for those freed in the window. */
  frames: PickleValue | undefined;
  /** True when it was still live at the dump. */
  liveAtEnd: boolean;
}

/** The state when the window opened. */
export interface InitialState {
  segments: LayoutSegment[];
  allocations: InitialAllocation[];
  /** Things in the file that do not fit together, for the notes. */
  problems: string[];
  /**
   * The distinct addresses the window's allocs and frees name (what is live at them, of no further
   * use): the importer's table of them is this one, cleared (LiveAddresses.clear).
   */
  addresses: LiveAddresses;
}

/**
 * The segments that existed when the window opened: begin from the final segments and walk the trace
 * backwards, undoing segment_alloc/segment_map and redoing segment_free/segment_unmap (as the
 * official viewer's MemoryView does to show an earlier moment).
 */
function initialSegments(finals: SnapshotSegment[], t: DeviceTrace, problems: string[]): SegmentLayout {
  const layout = new SegmentLayout(false);
  for (const s of finals) {
    if (!layout.addSegment(s.address, s.totalBytes, s.stream, s.pool === 'small' ? POOL_SMALL : POOL_LARGE, s.isExpandable)) {
      problems.push(`final segment at 0x${s.address.toString(16)} overlaps another one`);
    }
  }
  let bad = 0;
  const events = segmentEvents(t);
  for (let j = events.length - 1; j >= 0; j--) {
    const k = events[j] as number;
    const a = t.action[k];
    const addr = t.addr[k] as number;
    const size = t.size[k] as number;
    if (a === A_SEGMENT_ALLOC) bad += layout.removeSegment(addr, size) ? 0 : 1;
    else if (a === A_SEGMENT_FREE) bad += layout.addSegment(addr, size, streamOf(t, k), POOL_UNKNOWN, false) ? 0 : 1;
    else if (a === A_SEGMENT_MAP) bad += layout.unmap(addr, size) ? 0 : 1;
    else if (a === A_SEGMENT_UNMAP) bad += layout.map(addr, size, streamOf(t, k), POOL_UNKNOWN) ? 0 : 1;
  }
  if (bad > 0) problems.push(`${bad} segment events do not match the segments (walking back from the final segments)`);
  return layout;
}

/**
 * The entries of `t` that are segment events (segment_alloc, _free, _map, _unmap), in order: a few
 * among hundreds of thousands, found by the runtime's byte search rather than a loop over every entry.
 */
function segmentEvents(t: DeviceTrace): Int32Array {
  const found: number[] = [];
  for (let a = A_SEGMENT_ALLOC; a <= A_SEGMENT_UNMAP; a++) {
    for (let k = t.action.indexOf(a); k >= 0; k = t.action.indexOf(a, k + 1)) found.push(k);
  }
  return Int32Array.from(found).sort();
}

/** The stream of entry `k` (the column is not read where every stream is 0: see DeviceTrace.hasStreams). */
function streamOf(t: DeviceTrace, k: number): number {
  return t.hasStreams ? (t.stream[k] as number) : 0;
}

/** States of an address in {@link initialAllocations}: -1 absent, else touched or live. */
const TOUCHED = 0;
const LIVE = 1;

/** The state of slot `i` of `seen` (-1: absent). */
function stateAt(seen: LiveAddresses, i: number): number {
  return i < 0 ? -1 : seen.liveIn(i) >= 0 ? LIVE : TOUCHED;
}

/** Allocs after which {@link expectDistinct} looks at how many addresses they named. */
const DISTINCT_SAMPLE = 4096;

/**
 * After the first {@link DISTINCT_SAMPLE} allocs: where nearly every one
 * named an address of its own (a trace of many distinct addresses, not a caching allocator's few
 * reused ones), room in `seen` for an address per alloc still to come, made at once: each doubling
 * of a table of hundreds of thousands of addresses is a new one in fresh memory, and rehashing it.
 */
function expectDistinct(seen: LiveAddresses, t: DeviceTrace): void {
  if (seen.size * 10 < DISTINCT_SAMPLE * 9) return;
  seen.expect(seen.size + t.allocs - DISTINCT_SAMPLE);
}

/**
 * Which allocations were live when the window opened: frees whose alloc is not in the window, and
 * active blocks of the final segments that the window never touched.
 */
function initialAllocations(finals: SnapshotSegment[], t: DeviceTrace, problems: string[]): { allocations: InitialAllocation[]; addresses: LiveAddresses } {
  // Address -> LIVE while an allocation of the window lives there, TOUCHED once the window freed
  // one there (absent: never touched). Grown as addresses come, not made for one per allocation: a
  // caching allocator uses the same few thousand addresses again and again, and a table of that
  // many stays in the caches, where one of millions of slots costs a miss per lookup. (LIVE: some
  // allocation, 0, lives there in the table; TOUCHED: none does.)
  const seen = new LiveAddresses();
  const out: InitialAllocation[] = [];
  let allocs = 0;
  for (let k = 0; k < t.length; k++) {
    const a = t.action[k];
    if (a === A_ALLOC) {
      seen.setLive(seen.slot(t.addr[k] as number), 0);
      if (++allocs === DISTINCT_SAMPLE) expectDistinct(seen, t);
    } else if (a === A_FREE_COMPLETED) {
      const addr = t.addr[k] as number;
      // Freed after its alloc in the window, or a second free: either way, touched.
      const found = seen.find(addr);
      const was = stateAt(seen, found);
      seen.setLive(found >= 0 ? found : seen.slot(addr), -1);
      // A free_completed's size is the block's requested size (free_block records requested_size).
      if (was < 0) out.push({ address: addr, requestedBytes: t.size[k] as number, blockBytes: 0, stream: streamOf(t, k), frames: undefined, liveAtEnd: false });
    }
  }
  let unexplained = 0;
  for (const s of finals) {
    for (const b of s.blocks) {
      if (b.state === 'free') continue;
      const was = stateAt(seen, seen.find(b.address));
      if (was === LIVE) continue;
      if (was === TOUCHED) {
        unexplained++;
        continue;
      }
      out.push({ address: b.address, requestedBytes: b.requestedBytes, blockBytes: b.sizeBytes, stream: s.stream, frames: b.frames, liveAtEnd: true });
    }
  }
  if (unexplained > 0) problems.push(`${unexplained} active blocks of the final segments are not explained by the trace (their address was freed in the window and never allocated again)`);
  return { allocations: out.sort((x, y) => x.address - y.address), addresses: seen };
}

/**
 * The state when the window opened (spec/pytorch-snapshot.md): segments by walking back from the
 * final ones; live blocks from the final segments and the frees of the window. The size of a block
 * freed in the window is round_size(requested), except that a large-pool block followed by a gap of
 * at most 1 MiB before the next live block (or the segment end) owns the gap: the caching allocator
 * never splits off a large-pool remainder of 1 MiB or less (should_split).
 */
export function reconstructInitialState(finals: SnapshotSegment[], t: DeviceTrace, rules: BlockRules): InitialState {
  const problems: string[] = [];
  const layout = initialSegments(finals, t, problems);
  const { allocations, addresses } = initialAllocations(finals, t, problems);
  for (let i = 0; i < allocations.length; i++) {
    const x = allocations[i] as InitialAllocation;
    if (x.liveAtEnd) continue;
    const rounded = roundSize(x.requestedBytes, rules);
    x.blockBytes = rounded;
    const seg = layout.segmentAt(x.address);
    if (!seg) continue;
    const next = allocations[i + 1];
    const boundary = Math.min(seg.end, next && next.address < seg.end ? next.address : Infinity);
    const gap = boundary - (x.address + rounded);
    if (!isSmallPool(rounded) && !rules.expandableSegments && !seg.isExpandable && gap > 0 && gap <= SMALL_SIZE_BYTES) {
      x.blockBytes = rounded + gap;
    }
  }
  const outside = allocations.filter((x) => !layout.segmentAt(x.address)).length;
  if (outside > 0) problems.push(`${outside} allocations live at the start lie outside every segment of the start`);
  const segments: LayoutSegment[] = [];
  layout.forEachSegment((s) => segments.push(s.pool === POOL_UNKNOWN ? { ...s, pool: inferPool(s, allocations) } : s));
  return { segments, allocations, problems, addresses };
}

/**
 * The pool of a segment known only from a segment_free/segment_unmap event: the pool of a block in it,
 * else by size (a small-pool segment is one 2 MiB buffer; expandable large pools map 20 MiB pages).
 */
function inferPool(s: LayoutSegment, allocations: InitialAllocation[]): number {
  const inside = allocations.find((x) => x.address >= s.start && x.address < s.end);
  if (inside) return isSmallPool(inside.blockBytes) ? POOL_SMALL : POOL_LARGE;
  return segmentPoolBySize(s.end - s.start, s.isExpandable);
}

/** A segment's pool from its size alone (get_allocation_size, or the expandable page size). */
export function segmentPoolBySize(sizeBytes: number, isExpandable: boolean): number {
  if (isExpandable) return sizeBytes % LARGE_BUFFER_BYTES === 0 ? POOL_LARGE : POOL_SMALL;
  return sizeBytes <= SMALL_BUFFER_BYTES ? POOL_SMALL : POOL_LARGE;
}
