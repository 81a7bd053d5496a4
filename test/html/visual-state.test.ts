import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AllocatorState, BlockState, SegmentState } from '../../src/allocators/types.js';
import { compactState, NameTable, PIECE_AGGREGATE, PIECE_FIELDS, PIECE_FREE, PIECE_UNKNOWN, SEGMENT_FIELDS } from '../../src/sim/visual-state.js';
import { alloc, traceFromEvents } from '../helpers.js';

// Events 0..3 allocate a, b, c, d; a and c are tagged.
const trace = traceFromEvents([alloc('a', 100, { tag: 'conv1/out' }), alloc('b', 200), alloc('c', 300, { tag: 'fc/w' }), alloc('d', 400)]);
const BASE = 0x7f0000000000;

const used = (address: number, sizeBytes: number, requestedBytes: number | undefined, allocEvent: number): BlockState => ({
  address, sizeBytes, isFree: false, allocEvent, ...(requestedBytes !== undefined ? { requestedBytes } : {}),
});
const freeBlock = (address: number, sizeBytes: number): BlockState => ({ address, sizeBytes, isFree: true });
const big = { pieces: 100, segments: 100, ids: true };

describe('compactState', () => {
  it('lays segments end to end and places each block at its offset, with tags and ids', () => {
    const state: AllocatorState = {
      segments: [
        // Out of address order on purpose: the layout sorts them.
        { address: BASE + 8192, sizeBytes: 1024, kind: 'small', stream: 3, blocks: [used(BASE + 8192 + 512, 512, 300, 2)] },
        { address: BASE, sizeBytes: 4096, kind: 'large', blocks: [used(BASE, 1024, 100, 0), freeBlock(BASE + 1024, 2048), used(BASE + 3072, 1024, undefined, 1)] },
      ],
    };
    const tags = new NameTable();
    const kinds = new NameTable();
    const c = compactState(state, trace, tags, kinds, big);
    expect(kinds.names).toEqual(['large', 'small']);
    expect(tags.names).toEqual(['conv1/out', 'fc/w']);
    // Addresses relative to the previous entry's address + size; the first is absolute.
    expect(c.segments).toEqual([BASE, 4096, 0, -1, 1, 0, 0, 1, 8192 - 4096, 1024, 1, 3, 1, 0, 0, 1]);
    expect(c.pieces).toEqual([
      0, 1024, 100, 0, 0,
      0, 2048, PIECE_FREE, 0, 0,
      0, 1024, PIECE_UNKNOWN, -1, 1,
      // The small segment starts at layout 4096; its block 512 bytes in.
      512, 512, 300, 1, 2,
    ]);
    expect(c.ids).toEqual(['a', '', 'b', 'c']);
    expect(c.totals).toEqual({ segments: 2, blocks: 4, freeBlocks: 1, reservedBytes: 5120, usedBytes: 2560, requestedBytes: 400 });
    expect(c.aggregated).toEqual({ segments: 0, segmentRuns: 0, blocks: 0, pieces: 0 });
  });

  it('keeps the largest blocks and aggregates runs of smaller neighbours within a segment', () => {
    // Sizes 10, 1, 1, 1, 9, 1, 1 (KiB); with room for 2 blocks, the 10 and the 9 stay.
    const k = 1024;
    const sizes = [10, 1, 1, 1, 9, 1, 1];
    const blocks: BlockState[] = [];
    let at = BASE;
    sizes.forEach((s, j) => {
      blocks.push(j === 2 ? freeBlock(at, s * k) : used(at, s * k, s * k, 0));
      at += s * k;
    });
    const state = { segments: [{ address: BASE, sizeBytes: 24 * k, kind: 'region', blocks }] };
    const c = compactState(state, trace, new NameTable(), new NameTable(), { pieces: 5, segments: 10, ids: false });
    expect(c.pieces).toEqual([
      0, 10 * k, 10 * k, 0, 0,
      0, 3 * k, PIECE_AGGREGATE, 3, 2 * k,
      0, 9 * k, 9 * k, 0, 0,
      0, 2 * k, PIECE_AGGREGATE, 2, 2 * k,
    ]);
    expect(c.ids).toBeNull();
    expect(c.aggregated).toEqual({ segments: 0, segmentRuns: 0, blocks: 5, pieces: 2 });
    expect(c.totals.blocks).toBe(7);
  });

  it('merges runs of small segments into one entry with their totals and no blocks', () => {
    const seg = (n: number, size: number): SegmentState => ({ address: BASE + n * 0x100000, sizeBytes: size, kind: 'block', blocks: [used(BASE + n * 0x100000, size, size, 3)] });
    // Sizes 8, 1, 1, 6, 1 (KiB) with room for 2 segment entries: keep max(1, (3-1)/2) = 1 segment, the 8.
    const state = { segments: [seg(0, 8192), seg(1, 1024), seg(2, 1024), seg(3, 6144), seg(4, 1024)] };
    const kinds = new NameTable();
    const c = compactState(state, trace, new NameTable(), kinds, { pieces: 100, segments: 3, ids: false });
    expect(kinds.names).toEqual(['block', 'merged']);
    expect(c.segments).toEqual([
      BASE, 8192, 0, -1, 1, 0, 0, 1,
      0x100000 - 8192, 1024 + 1024 + 6144 + 1024, 1, -1, 4, 9216, 4, 0,
    ]);
    expect(c.pieces).toEqual([0, 8192, 8192, -1, 3]);
    expect(c.aggregated).toEqual({ segments: 4, segmentRuns: 1, blocks: 0, pieces: 0 });
  });

  it('keeps every byte in place under any caps (property)', () => {
    const arbState = fc.array(fc.array(fc.record({ size: fc.integer({ min: 1, max: 64 }), isFree: fc.boolean() }), { minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(arbState, fc.integer({ min: 4, max: 60 }), fc.integer({ min: 3, max: 40 }), (segs, pieceCap, segCap) => {
        let address = BASE;
        const segments: SegmentState[] = segs.map((bs) => {
          const start = address;
          const blocks = bs.map((b) => {
            const blk = b.isFree ? freeBlock(address, b.size * 256) : used(address, b.size * 256, b.size * 200, 1);
            address += b.size * 256;
            return blk;
          });
          address += 4096; // a hole in the address space between segments
          return { address: start, sizeBytes: address - 4096 - start, kind: 'x', blocks };
        });
        const c = compactState({ segments }, trace, new NameTable(), new NameTable(), { pieces: pieceCap, segments: segCap, ids: false });
        const reserved = segments.reduce((n, s) => n + s.sizeBytes, 0);
        const entries = c.segments.length / SEGMENT_FIELDS;
        expect(entries).toBeLessThanOrEqual(Math.max(segCap, segments.length <= segCap ? segments.length : 0));
        // Segment entries cover the layout; merged ones carry their blocks as totals.
        let layout = 0;
        let at = 0;
        let mergedBytes = 0;
        let mergedBlocks = 0;
        let detailed = 0;
        for (let k = 0; k < entries; k++) {
          const o = k * SEGMENT_FIELDS;
          at += c.segments[o] as number;
          expect(segments.some((s) => s.address === at)).toBe(true);
          at += c.segments[o + 1] as number;
          layout += c.segments[o + 1] as number;
          if (c.segments[o + 7] === 0) {
            mergedBytes += c.segments[o + 1] as number;
            mergedBlocks += c.segments[o + 6] as number;
          } else detailed++;
        }
        expect(layout).toBe(reserved);
        // Pieces follow each other and tile the listed segments exactly (these have no holes).
        let end = 0;
        let pieceBytes = 0;
        let blocksInPieces = 0;
        const n = c.pieces.length / PIECE_FIELDS;
        for (let j = 0; j < n; j++) {
          const o = j * PIECE_FIELDS;
          expect(c.pieces[o]).toBeGreaterThanOrEqual(0);
          end += (c.pieces[o] as number) + (c.pieces[o + 1] as number);
          pieceBytes += c.pieces[o + 1] as number;
          blocksInPieces += c.pieces[o + 2] === PIECE_AGGREGATE ? (c.pieces[o + 3] as number) : 1;
        }
        expect(end).toBeLessThanOrEqual(reserved);
        expect(pieceBytes + mergedBytes).toBe(reserved);
        expect(blocksInPieces + mergedBlocks).toBe(c.totals.blocks);
        expect(n).toBeLessThanOrEqual(pieceCap + detailed);
        expect(c.totals.reservedBytes).toBe(reserved);
      }),
      { numRuns: 200 },
    );
  });
});
