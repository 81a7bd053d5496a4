import type { AllocatorState, BlockState, SegmentState } from '../allocators/types.js';
import type { Trace } from '../trace/model.js';

/** Fields of one segment in {@link CompactState.segments}. */
export const SEGMENT_FIELDS = 8;
/** Fields of one piece in {@link CompactState.pieces}. */
export const PIECE_FIELDS = 5;
/** `requested` of a free block. */
export const PIECE_FREE = -1;
/** `requested` of an aggregate of small blocks. */
export const PIECE_AGGREGATE = -2;
/** `requested` of a used block whose requested size the allocator does not know. */
export const PIECE_UNKNOWN = -3;

/**
 * An allocator's state in the compact form the HTML report carries: segments laid end to end in
 * address order (the "layout"), and the pieces (blocks, or aggregates of small blocks) placed in
 * that layout. Flat number arrays keep the page small; the field order is:
 *
 * - `segments`, {@link SEGMENT_FIELDS} per segment: address (minus the previous entry's address plus
 *   its sizeBytes; the first one's is absolute), sizeBytes, kind (index into the report's `kinds`), stream
 *   (-1: none), count (segments merged into this entry; 1 for a real one), then for a merged entry
 *   its usedBytes and blocks (0, 0 for a real one, whose blocks are all in `pieces`), and detailed
 *   (1 when its blocks are listed in `pieces`, 0 when only the totals are known).
 * - `pieces`, {@link PIECE_FIELDS} per piece: gap (layout bytes between the end of the previous piece
 *   and this one's start; 0 for adjacent blocks), sizeBytes, requested (bytes requested, or
 *   {@link PIECE_FREE}, {@link PIECE_AGGREGATE}, {@link PIECE_UNKNOWN}), then for a used block: tag
 *   (index into the report's `tags`, -1: none) and allocEvent (-1: unknown); for an aggregate: the
 *   number of blocks in it and their used bytes; for a free block: 0, 0.
 */
export interface CompactState {
  segments: number[];
  pieces: number[];
  /** Allocation ids of the pieces ('' for free blocks and aggregates), for detailed moments only. */
  ids: string[] | null;
  /** What the state held, before any aggregation. */
  totals: {
    segments: number;
    blocks: number;
    freeBlocks: number;
    reservedBytes: number;
    usedBytes: number;
    requestedBytes: number;
  };
  /** What was aggregated to keep the page small (all zero when nothing was). */
  aggregated: { segments: number; segmentRuns: number; blocks: number; pieces: number };
}

/** Bounds on one compact state. */
export interface StateCaps {
  /** Pieces (blocks and aggregates) at most, roughly: each segment may add one aggregate. */
  pieces: number;
  /** Segment entries at most. */
  segments: number;
  /** Whether to list allocation ids. */
  ids: boolean;
}

/** Interned names (tags, segment kinds) of a report, in order of first use. */
export class NameTable {
  readonly names: string[] = [];
  private readonly index = new Map<string, number>();

  /** The index of `name`, added when new. */
  of(name: string): number {
    let k = this.index.get(name);
    if (k === undefined) {
      k = this.names.length;
      this.names.push(name);
      this.index.set(name, k);
    }
    return k;
  }
}

/** The indices of the `keep` largest items (ties: the earlier one), as a mask. */
function largest(sizes: readonly number[], keep: number): Uint8Array {
  const mask = new Uint8Array(sizes.length);
  if (keep >= sizes.length) return mask.fill(1);
  const order = sizes.map((_, k) => k).sort((a, b) => (sizes[b] as number) - (sizes[a] as number) || a - b);
  for (let k = 0; k < keep; k++) mask[order[k] as number] = 1;
  return mask;
}

const byAddress = <T extends { address: number }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => a.address - b.address);

/**
 * Shrinks an allocator's state to at most about `caps.pieces` pieces and `caps.segments` segment
 * entries. The largest segments and blocks stay as they are; runs of smaller neighbours (segments
 * next to each other in address order, blocks next to each other inside a segment) become one
 * aggregate each, with their count and used bytes, so that the drawing stays to scale.
 */
export function compactState(state: AllocatorState, trace: Trace, tags: NameTable, kinds: NameTable, caps: StateCaps): CompactState {
  const segs = byAddress(state.segments);
  const totals = { segments: segs.length, blocks: 0, freeBlocks: 0, reservedBytes: 0, usedBytes: 0, requestedBytes: 0 };
  for (const s of segs) {
    totals.reservedBytes += s.sizeBytes;
    for (const b of s.blocks) {
      totals.blocks++;
      if (b.isFree) totals.freeBlocks++;
      else {
        totals.usedBytes += b.sizeBytes;
        totals.requestedBytes += b.requestedBytes ?? 0;
      }
    }
  }
  const aggregated = { segments: 0, segmentRuns: 0, blocks: 0, pieces: 0 };
  const keptSegs = segs.length <= caps.segments ? new Uint8Array(segs.length).fill(1) : largest(segs.map((s) => s.sizeBytes), Math.max(1, Math.floor((caps.segments - 1) / 2)));

  const blocksOf = segs.map((s, k) => (keptSegs[k] ? byAddress(s.blocks) : []));
  const flat = blocksOf.flat();
  const keptCount = keptSegs.reduce((n, x) => n + x, 0);
  const room = Math.max(Math.floor(caps.pieces / 4), Math.floor((caps.pieces - keptCount) / 2));
  const keptBlocks = flat.length <= caps.pieces ? new Uint8Array(flat.length).fill(1) : largest(flat.map((b) => b.sizeBytes), room);

  const segments: number[] = [];
  const pieces: number[] = [];
  const ids: string[] | null = caps.ids ? [] : null;
  let layout = 0;
  let prevEnd = 0;
  let prevSegEnd = 0;
  let flatIndex = 0;
  const push = (start: number, size: number, requested: number, a: number, b: number, id: string): void => {
    pieces.push(start - prevEnd, size, requested, a, b);
    ids?.push(id);
    prevEnd = start + size;
  };
  const pushBlock = (seg: SegmentState, segStart: number, b: BlockState): void => {
    const start = segStart + (b.address - seg.address);
    if (b.isFree) return push(start, b.sizeBytes, PIECE_FREE, 0, 0, '');
    const ev = b.allocEvent ?? -1;
    const tag = ev >= 0 && ev < trace.length && trace.tag && (trace.tag[ev] as number) > 0 ? tags.of(trace.tags[trace.tag[ev] as number] as string) : -1;
    const id = caps.ids && ev >= 0 && ev < trace.length ? trace.ids.get(trace.alloc[ev] as number) : '';
    push(start, b.sizeBytes, b.requestedBytes ?? PIECE_UNKNOWN, tag, ev, id);
  };

  for (let k = 0; k < segs.length; ) {
    const seg = segs[k] as SegmentState;
    if (!keptSegs[k]) {
      // A run of segments too small to list: one entry with the totals.
      let size = 0;
      let used = 0;
      let blocks = 0;
      let count = 0;
      const first = seg;
      for (; k < segs.length && !keptSegs[k]; k++) {
        const s = segs[k] as SegmentState;
        size += s.sizeBytes;
        count++;
        for (const b of s.blocks) {
          blocks++;
          if (!b.isFree) used += b.sizeBytes;
        }
      }
      segments.push(first.address - prevSegEnd, size, kinds.of(count === 1 ? first.kind : 'merged'), count === 1 ? (first.stream ?? -1) : -1, count, used, blocks, 0);
      // The reader knows an entry's address and size only: the next address is relative to their sum.
      prevSegEnd = first.address + size;
      aggregated.segments += count;
      aggregated.segmentRuns++;
      layout += size;
      continue;
    }
    const blocks = blocksOf[k] as BlockState[];
    segments.push(seg.address - prevSegEnd, seg.sizeBytes, kinds.of(seg.kind), seg.stream ?? -1, 1, 0, 0, 1);
    prevSegEnd = seg.address + seg.sizeBytes;
    for (let j = 0; j < blocks.length; ) {
      if (keptBlocks[flatIndex + j]) {
        pushBlock(seg, layout, blocks[j] as BlockState);
        j++;
        continue;
      }
      let end = j;
      while (end < blocks.length && !keptBlocks[flatIndex + end]) end++;
      if (end - j === 1) {
        pushBlock(seg, layout, blocks[j] as BlockState);
      } else {
        const a = blocks[j] as BlockState;
        const z = blocks[end - 1] as BlockState;
        let runUsed = 0;
        for (let q = j; q < end; q++) if (!(blocks[q] as BlockState).isFree) runUsed += (blocks[q] as BlockState).sizeBytes;
        push(layout + (a.address - seg.address), z.address + z.sizeBytes - a.address, PIECE_AGGREGATE, end - j, runUsed, '');
        aggregated.blocks += end - j;
        aggregated.pieces++;
      }
      j = end;
    }
    flatIndex += blocks.length;
    layout += seg.sizeBytes;
    k++;
  }
  return { segments, pieces, ids, totals, aggregated };
}
