import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POOL_LARGE, POOL_SMALL, SegmentLayout, TAKE_OK, TAKE_OUTSIDE_FREE, TAKE_OVERLAP } from '../../src/util/segment-layout.js';

/** One operation on a layout, at addresses that are multiples of 16 below 768 (so that they collide often). */
const opArb = fc.record({
  kind: fc.constantFrom('addSegment', 'addSegment', 'removeSegment', 'map', 'unmap', 'take', 'placeFree', 'placeFree', 'placeFree', 'release', 'release'),
  at: fc.integer({ min: 0, max: 47 }),
  units: fc.integer({ min: 0, max: 24 }),
  stream: fc.constantFrom(0, 0, 1),
});

type Op = { kind: string; at: number; units: number; stream: number };

/** Runs `op` on `l`; returns what the layout answered. */
function run(l: SegmentLayout, op: Op, id: number): unknown {
  const start = op.at * 16;
  const size = op.units * 16;
  // Segments on a coarser grid, so that they meet, and are removed and added again, often.
  const segStart = (op.at % 6) * 128;
  const segSize = op.units > 12 ? 256 : 128;
  switch (op.kind) {
    case 'addSegment':
      return l.addSegment(segStart, segSize, op.stream, op.units > 12 ? POOL_LARGE : POOL_SMALL, false);
    case 'removeSegment':
      return l.removeSegment(segStart, op.units % 2 === 0 ? segSize : size);
    case 'map':
      return l.map(segStart, segSize, op.stream, POOL_LARGE);
    case 'unmap':
      return l.unmap(start, size);
    case 'take':
      return l.take(start, size, id);
    case 'placeFree': {
      // As the importer places an alloc: in the free range at the address, when there is one.
      const free = l.freeBytesFrom(start);
      return free > 0 ? [free, l.take(start, Math.min(free, Math.max(16, size)), id)] : free;
    }
    default:
      return l.release(start);
  }
}

/** Everything a layout reports. */
function state(l: SegmentLayout): unknown {
  const segments: unknown[] = [];
  l.forEachSegment((s) => {
    const blocks: number[][] = [];
    l.forEachBlockIn(s.start, s.end, (a, b, id) => blocks.push([a, b, id]));
    segments.push({ ...s, blocks });
  });
  const live: number[][] = [];
  l.forEachLive((a, b, id) => live.push([a, b, id]));
  const free: number[] = [];
  for (let a = 0; a < 768 + 400; a += 16) free.push(l.freeBytesFrom(a));
  return { segments, live, free, liveCount: l.liveCount, used: l.usedBytes, reserved: l.reservedBytes, gaps: l.gapCount, largest: l.largestGapBytes() };
}

describe('SegmentLayout', () => {
  it('keeps live blocks by start with the same answers as the ordered set, for any history', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 10, maxLength: 80 }), (ops) => {
        const keyed = new SegmentLayout(true, true);
        const ordered = new SegmentLayout(true, false);
        ops.forEach((op, k) => {
          expect(run(keyed, op, k)).toEqual(run(ordered, op, k));
          expect(state(keyed)).toEqual(state(ordered));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('places, splits and merges blocks of a consistent history', () => {
    const l = new SegmentLayout();
    expect(l.addSegment(0x1000, 0x400, 0, POOL_SMALL, false)).toBe(true);
    expect(l.take(0x1000, 0x100, 7)).toBe(TAKE_OK);
    expect(l.take(0x1200, 0x100, 8)).toBe(TAKE_OK);
    expect(l.take(0x1080, 0x100, 9)).toBe(TAKE_OVERLAP);
    expect(l.freeBytesFrom(0x1100)).toBe(0x100);
    expect(l.gapCount).toBe(2);
    expect(l.release(0x1000)).toBe(0x100);
    expect(l.release(0x1000)).toBe(-1);
    const blocks: number[][] = [];
    l.forEachBlockIn(0x1000, 0x1400, (a, b, id) => blocks.push([a, b, id]));
    expect(blocks).toEqual([
      [0x1000, 0x1200, -1],
      [0x1200, 0x1300, 8],
      [0x1300, 0x1400, -1],
    ]);
    // A block outside every segment is still recorded (and said to be).
    expect(l.take(0x2000, 0x10, 10)).toBe(TAKE_OUTSIDE_FREE);
    expect(l.liveCount).toBe(2);
    expect(l.release(0x1200)).toBe(0x100);
    expect(l.largestGapBytes()).toBe(0x400);
    expect(l.removeSegment(0x1000, 0x400)).toBe(true);
  });
});
