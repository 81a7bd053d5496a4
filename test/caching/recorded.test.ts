import { describe, expect, it } from 'vitest';
import type { RecordedHistory, RecordedSegment, RecordedSegmentEvent, Trace } from '../../src/trace/model.js';
import { alloc, free, MiB, traceFromEvents, type EventObject } from '../helpers.js';
import { runCaching } from './run.js';

const SEG = 0x7a0000000000;
const SEG2 = 0x7a0040000000;

/** A trace with a hand-built PyTorch history: `addr`/`blocks` by allocation id (NaN: unknown). */
function snapshot(
  events: EventObject[],
  opts: {
    initialEvents: number;
    addr: Record<string, number>;
    blocks?: Record<string, number>;
    segments: RecordedSegment[];
    segmentEvents?: RecordedSegmentEvent[];
    settings?: Record<string, unknown>;
  },
): Trace {
  const t = traceFromEvents(events);
  const address = new Float64Array(t.allocCount).fill(NaN);
  const allocatedBytes = new Float64Array(t.allocCount).fill(NaN);
  t.ids.toArray().forEach((id, a) => {
    if (id in opts.addr) address[a] = opts.addr[id] as number;
    if (opts.blocks && id in opts.blocks) allocatedBytes[a] = opts.blocks[id] as number;
  });
  const recorded: RecordedHistory = {
    allocator: 'pytorch-caching',
    address,
    allocatedBytes,
    segmentEvents: opts.segmentEvents ?? [],
    initialSegments: opts.segments,
    ...(opts.settings ? { settings: opts.settings } : {}),
  };
  t.initialEvents = opts.initialEvents;
  t.recorded = recorded;
  return t;
}

const DEFAULT_SETTINGS = {
  PYTORCH_CUDA_ALLOC_CONF: '',
  max_split_size: -1,
  garbage_collection_threshold: 0,
  expandable_segments: false,
  roundup_power2_divisions: Object.fromEntries(Array.from({ length: 16 }, (_, k) => [String(2 ** k), 0])),
};

describe('replaying a recorded PyTorch history', () => {
  // One 20 MiB segment holds i0 (3 MiB at +3 MiB) when the window opens: free 3 MiB before it, 14 after.
  const events = [
    alloc('i0', 3 * MiB - 100_000),
    alloc('w1', 2.5 * MiB),
    alloc('w2', 5 * MiB),
    alloc('w3', 30 * MiB),
    alloc('w4', 1 * MiB),
    free('w1'),
    free('w3'),
    alloc('w5', 40 * MiB),
  ];
  const base = {
    initialEvents: 1,
    blocks: { i0: 3 * MiB },
    segments: [{ address: SEG, sizeBytes: 20 * MiB, stream: 0, pool: 'large' }],
    segmentEvents: [
      { beforeEvent: 3, action: 'alloc', address: SEG2, sizeBytes: 30 * MiB, stream: 0 },
      { beforeEvent: 4, action: 'alloc', address: SEG2 + 30 * MiB, sizeBytes: 2 * MiB, stream: 0 },
      { beforeEvent: 7, action: 'free', address: SEG2, sizeBytes: 30 * MiB, stream: 0 },
      { beforeEvent: 7, action: 'alloc', address: SEG2 + 64 * MiB, sizeBytes: 40 * MiB, stream: 0 },
    ] as RecordedSegmentEvent[],
  };

  it('starts from the recorded segments and live blocks, takes recorded segment addresses and compares every placement', () => {
    const t = snapshot(events, {
      ...base,
      // The block sizes of w1 (3 MiB: its 0.5 MiB remainder stays) and, wrongly, of w2.
      blocks: { ...base.blocks, w1: 3 * MiB, w2: 6 * MiB },
      // w4 (1 MiB, small pool) is recorded 4 KiB into its new segment: one mismatch.
      addr: { i0: SEG + 3 * MiB, w1: SEG, w2: SEG + 6 * MiB, w3: SEG2, w4: SEG2 + 30 * MiB + 4096, w5: SEG2 + 64 * MiB },
      settings: DEFAULT_SETTINGS,
    });
    const r = runCaching(t);
    expect(r.at.i0).toBe(SEG + 3 * MiB);
    expect(r.bytes.i0).toBe(3 * MiB);
    // Best fit among the gaps: the 3 MiB before i0 (its 0.5 MiB remainder stays in the block).
    expect(r.at.w1).toBe(SEG);
    expect(r.bytes.w1).toBe(3 * MiB);
    expect(r.at.w2).toBe(SEG + 6 * MiB);
    expect(r.at.w3).toBe(SEG2);
    expect(r.at.w5).toBe(SEG2 + 64 * MiB);
    const fidelity = r.report['fidelity'] as Record<string, unknown>;
    expect(fidelity).toMatchObject({
      allocations: 5,
      sameAddress: 4,
      sameAddressRatio: 0.8,
      // The recorded release of w3's segment before event 7 happened in the simulation too.
      reservedBytesSimulated: 20 * MiB + 2 * MiB + 40 * MiB,
      reservedBytesRecorded: 20 * MiB + 2 * MiB + 40 * MiB,
      withAllocatedBytes: 2,
      sameAllocatedBytes: 1,
    });
    expect(fidelity['mismatches']).toEqual([
      { event: 4, id: 'w4', sizeBytes: MiB, recordedAddress: '0x7a0041e01000', simulatedAddress: '0x7a0041e00000' },
    ]);
    expect(r.stats.num_device_free).toBe(1);
    expect(r.report.notes).toContain('started from the recorded state when the window opened: 1 segments (20.00 MiB) with 1 live blocks at their recorded addresses');
    expect(r.report.notes.some((n) => n.startsWith("allocator options default to the snapshot's own allocator_settings (all at PyTorch's defaults)"))).toBe(true);
  });

  it('keeps the stats of the reconstructed state exact', () => {
    const t = snapshot([alloc('i0', 3 * MiB - 100_000), alloc('i1', 1 * MiB)], {
      initialEvents: 2,
      addr: { i0: SEG + 3 * MiB, i1: SEG + 10 * MiB },
      blocks: { i0: 3 * MiB, i1: MiB },
      segments: [{ address: SEG, sizeBytes: 20 * MiB, stream: 0, pool: 'large' }],
    });
    const r = runCaching(t);
    expect(r.stats.allocated_bytes).toBe(4 * MiB);
    expect(r.stats.reserved_bytes).toBe(20 * MiB);
    expect(r.stats.inactive_split_bytes).toBe(16 * MiB);
    expect(r.stats.num_device_alloc).toBe(0);
    expect(r.alloc.state().segments[0]!.blocks.map((b) => [(b.address - SEG) / MiB, b.sizeBytes / MiB, b.isFree])).toEqual([
      [0, 3, true],
      [3, 3, false],
      [6, 4, true],
      [10, 1, false],
      [11, 9, true],
    ]);
    // Without a window there is nothing to compare.
    expect(r.report['fidelity']).toMatchObject({ allocations: 0, sameAddressRatio: null });
  });

  it('compares its final blocks with the recorded final segments, and releases what was released after the last event', () => {
    const t = snapshot([alloc('i0', 3 * MiB - 100_000), alloc('w1', 30 * MiB), free('w1')], {
      initialEvents: 1,
      addr: { i0: SEG + 3 * MiB, w1: SEG2 },
      blocks: { i0: 3 * MiB },
      segments: [{ address: SEG, sizeBytes: 20 * MiB, stream: 0, pool: 'large' }],
      segmentEvents: [
        { beforeEvent: 1, action: 'alloc', address: SEG2, sizeBytes: 30 * MiB, stream: 0 },
        { beforeEvent: 3, action: 'free', address: SEG2, sizeBytes: 30 * MiB, stream: 0 },
      ],
    });
    const final: RecordedSegment[] = [
      {
        address: SEG,
        sizeBytes: 20 * MiB,
        stream: 0,
        pool: 'large',
        blocks: [
          { address: SEG, sizeBytes: 3 * MiB, state: 'free' },
          { address: SEG + 3 * MiB, sizeBytes: 3 * MiB, state: 'pending' },
          // Not what the simulation ends with: it has one free block of 14 MiB there.
          { address: SEG + 6 * MiB, sizeBytes: 4 * MiB, state: 'free' },
        ],
      },
    ];
    t.recorded!.finalSegments = final;
    const r = runCaching(t);
    expect(r.report['fidelity']).toMatchObject({
      allocations: 1,
      sameAddress: 1,
      reservedBytesSimulated: 20 * MiB,
      reservedBytesRecorded: 20 * MiB,
      finalBlocks: { recorded: 3, identical: 2 },
    });
  });

  it("takes the snapshot's allocator_settings as defaults, and the user's options over them", () => {
    const settings = { ...DEFAULT_SETTINGS, PYTORCH_CUDA_ALLOC_CONF: 'max_split_size_mb:40,per_process_memory_fraction:0.5', max_split_size: 40 * MiB };
    const t = snapshot(events, { ...base, addr: {}, settings });
    const r = runCaching(t, {}, 1000 * MiB);
    expect(r.report.allocator.options).toMatchObject({ max_split_size_mb: 40, per_process_memory_fraction: 0.5 });
    expect(r.alloc.settings.maxSplitSizeBytes).toBe(40 * MiB);
    expect(r.alloc.limitBytes).toBe(500 * MiB);
    expect(r.report.notes).toContain(
      "allocator options default to the snapshot's own allocator_settings (max_split_size_mb=40, per_process_memory_fraction=0.5); options given on the command line override them",
    );
    const mine = runCaching(t, { max_split_size_mb: 'none', conf: 'expandable_segments:True' }, 1000 * MiB);
    expect(mine.alloc.settings.maxSplitSizeBytes).toBe(Infinity);
    expect(mine.alloc.settings.expandableSegments).toBe(true);
    expect(mine.alloc.settings.perProcessMemoryFraction).toBe(0.5);
  });

  it('assumes the defaults for snapshots without allocator_settings, and says so', () => {
    const t = snapshot(events, { ...base, addr: {} });
    const r = runCaching(t);
    expect(r.report.notes).toContain("the snapshot has no allocator_settings (recorded by an older PyTorch): PyTorch's default settings assumed");
  });

  it('rebuilds expandable segments from their mapped ranges', () => {
    const t = snapshot([alloc('i0', 8 * MiB), alloc('w1', 10 * MiB)], {
      initialEvents: 1,
      addr: { i0: SEG + 40 * MiB + 16 * MiB, w1: SEG },
      blocks: { i0: 8 * MiB },
      segments: [
        { address: SEG, sizeBytes: 20 * MiB, stream: 0, pool: 'large', isExpandable: true },
        { address: SEG + 40 * MiB, sizeBytes: 40 * MiB, stream: 0, pool: 'large', isExpandable: true },
      ],
      settings: { ...DEFAULT_SETTINGS, expandable_segments: true },
    });
    const r = runCaching(t, {}, 1000 * MiB);
    expect(r.stats.reserved_bytes).toBe(60 * MiB);
    expect(r.at.i0).toBe(SEG + 56 * MiB);
    // Best fit counts what a block can grow into: the 16 MiB before i0 cannot grow, the 16 MiB after
    // i0 can (unmapped space follows), so the one before i0 wins over it and over the 20 MiB range.
    expect(r.at.w1).toBe(SEG + 40 * MiB);
    expect(r.alloc.state().segments.map((s) => [(s.address - SEG) / MiB, s.sizeBytes / MiB])).toEqual([
      [0, 20],
      [40, 40],
    ]);
    // With expandable segments turned off (on the recorded layout: other options start fresh by
    // default), their free blocks are passed over: a segment of its own.
    const off = runCaching(t, { expandable_segments: false }, 1000 * MiB, 'recorded');
    expect(off.at.i0).toBe(SEG + 56 * MiB);
    expect(off.stats.num_device_alloc).toBe(1);
    expect(off.stats.segments).toBe(1);
    expect(off.at.w1).not.toBe(SEG + 40 * MiB);
    expect(off.alloc.state().segments.find((s) => s.address === off.at.w1)).toMatchObject({ kind: 'large', sizeBytes: 10 * MiB });
  });
});
