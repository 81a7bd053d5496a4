import { describe, expect, it } from 'vitest';
import { TraceError, UsageError } from '../../src/errors.js';
import { replay } from '../../src/sim/run.js';
import { OP_ALLOC, OP_FREE, lineColumn } from '../../src/trace/model.js';
import { readTrace } from '../../src/trace/read.js';
import { entry, frame, MiB, segment, settings, writeSnapshot } from './snapshot-helpers.js';
import '../../src/allocators/index.js';

const A = 0x7f0000000000;
const B = 0x7f0002000000;

/** Segments created and freed in the window, an OOM, the small and the large pool. */
function segmentHistory() {
  const user = [frame('/usr/lib/python3/site-packages/torch/nn/modules/module.py', 1500, '_call_impl'), frame('/home/u/train.py', 12, 'forward')];
  return {
    segments: [segment({ address: B, blocks: [{ size: 1024, requested: 1000 }, { size: 2 * MiB - 1024, state: 'inactive' }] })],
    device_traces: [
      [
        entry('segment_alloc', A, 20 * MiB),
        entry('alloc', A, 3 * MiB, { frames: user }),
        entry('alloc', A + 3 * MiB, MiB + 1),
        entry('free_requested', A, 3 * MiB),
        entry('free_completed', A, 3 * MiB),
        entry('free_requested', A + 3 * MiB, MiB + 1),
        entry('free_completed', A + 3 * MiB, MiB + 1),
        entry('segment_free', A, 20 * MiB),
        entry('segment_alloc', B, 2 * MiB),
        entry('alloc', B, 1000),
        entry('oom', 5 * MiB, 20 * MiB),
      ],
    ],
    allocator_settings: settings(),
    external_annotations: [],
  };
}

describe('PyTorch snapshot import: segments born and freed in the window, OOM entries', () => {
  const t = readTrace(writeSnapshot(segmentHistory()));
  const r = t.recorded!;

  it('converts alloc/free_completed to events with ids from the address and an occurrence counter', () => {
    expect(t.format).toBe('pytorch-snapshot');
    expect([...t.op]).toEqual([OP_ALLOC, OP_ALLOC, OP_FREE, OP_FREE, OP_ALLOC]);
    expect(t.ids.toArray()).toEqual(['b7f0000000000_0', 'b7f0000300000_0', 'b7f0002000000_0']);
    expect([...t.size]).toEqual([3 * MiB, MiB + 1, 3 * MiB, MiB + 1, 1000]);
    expect(t.initialEvents).toBe(0);
    // The line of an event is its 1-based entry number in device_traces[d].
    expect([...lineColumn(t)]).toEqual([2, 3, 5, 7, 10]);
    // The innermost useful frame skips torch's own Python files.
    expect(t.tag && t.tags[t.tag[0]!]).toBe('/home/u/train.py:12:forward');
    expect(t.time![1]! - t.time![0]!).toBe(10);
  });

  it('keeps the segment history, each event placed before the event it precedes', () => {
    expect(r.allocator).toBe('pytorch-caching');
    expect(r.initialSegments).toEqual([]);
    expect(r.segmentEvents).toEqual([
      { beforeEvent: 0, action: 'alloc', address: A, sizeBytes: 20 * MiB, stream: 0, pool: 'large', entry: 0 },
      { beforeEvent: 4, action: 'free', address: A, sizeBytes: 20 * MiB, stream: 0, entry: 7 },
      { beforeEvent: 4, action: 'alloc', address: B, sizeBytes: 2 * MiB, stream: 0, pool: 'small', entry: 8 },
    ]);
    expect([...r.address]).toEqual([A, A + 3 * MiB, B]);
    // 1 MiB + 1 rounds to 1 MiB + 512: a large-pool block, split from the 17 MiB free block.
    expect([...r.allocatedBytes]).toEqual([3 * MiB, MiB + 512, 1024]);
    expect(r.settings).toMatchObject({ PYTORCH_CUDA_ALLOC_CONF: '', max_split_size: -1 });
  });

  it('keeps the OOM and says that the real run hit it', () => {
    expect(r.ooms).toEqual([{ beforeEvent: 5, sizeBytes: 20 * MiB, deviceFreeBytes: 5 * MiB, stream: 0, source: 'device_traces[0][10]', entry: 10 }]);
    expect(r.notes!.some((n) => n.startsWith('the real run hit an OOM before event 5') && n.includes('20.00 MiB'))).toBe(true);
  });

  it('replays with the recorded allocator: real reserved memory over time, ending as the file says', () => {
    const res = replay(t, { allocator: 'recorded' });
    const s = res.report.summary;
    expect(s.peakReservedBytes).toBe(20 * MiB);
    expect(s.peakReservedEvent).toBe(0);
    expect(s.finalReservedBytes).toBe(2 * MiB);
    expect(s.finalAllocatedBytes).toBe(1024);
    expect(s.peakAllocatedBytes).toBe(4 * MiB + 512);
    expect(s.deviceAllocCalls).toBe(2);
    expect(s.deviceFreeCalls).toBe(1);
    expect(res.report['recorded']).toMatchObject({ finalCheck: { matches: true }, recordedOoms: r.ooms });
    expect(res.allocator.state().segments).toEqual([
      {
        address: B,
        sizeBytes: 2 * MiB,
        kind: 'small',
        stream: 0,
        blocks: [
          { address: B, sizeBytes: 1024, requestedBytes: 1000, allocEvent: 4, isFree: false },
          { address: B + 1024, sizeBytes: 2 * MiB - 1024, isFree: true },
        ],
      },
    ]);
  });

  it('fails the recorded replay where the recorded segments outgrow a smaller capacity, with PyTorch\'s text', () => {
    const res = replay(t, { allocator: 'recorded', capacityBytes: 16 * MiB });
    expect(res.report.completed).toBe(false);
    expect(res.report.ooms[0]).toMatchObject({ event: 0, roundedBytes: 20 * MiB });
    expect(res.report.ooms[0]!.native).toBe(
      'CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 16.00 MiB of which 16.00 MiB is free. ' +
        'Of the allocated memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated. ' +
        'If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  ' +
        'See documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)',
    );
  });
});

const L = 0x7f1000000000;
const S = 0x7f1100000000;

/**
 * The window opens with live blocks: P (freed in the window, followed by a 512 KiB gap that it owns),
 * Q and V live throughout, U (freed, followed by a 1.5 MiB gap it does not own), and in the small
 * pool R (freed, exact) before T (live throughout).
 */
function windowWithLiveBlocks(withSettings = true): Record<string, unknown> {
  const snap: Record<string, unknown> = {
    segments: [
      segment({
        address: L,
        blocks: [
          { size: 5.5 * MiB, requested: 5.25 * MiB },
          { size: 2 * MiB },
          { size: 4.5 * MiB, state: 'inactive' },
          { size: 2 * MiB, frames: [frame('/home/u/model.py', 7, 'init')] },
          { size: 6 * MiB, state: 'inactive' },
        ],
      }),
      segment({ address: S, blocks: [{ size: 1536, state: 'inactive' }, { size: 1024, requested: 1000 }, { size: 2 * MiB - 2560, state: 'inactive' }] }),
    ],
    device_traces: [
      [
        entry('free_requested', L, 5 * MiB - 100),
        entry('free_completed', L, 5 * MiB - 100),
        entry('free_completed', L + 7.5 * MiB, 3 * MiB),
        entry('alloc', L, 5.25 * MiB),
        entry('free_completed', S, 700),
      ],
    ],
  };
  if (withSettings) snap['allocator_settings'] = settings();
  return snap;
}

describe('PyTorch snapshot import: the state when the window opened', () => {
  const t = readTrace(writeSnapshot(windowWithLiveBlocks() as never));
  const r = t.recorded!;

  it('a capacity below the segments held when the window opened: the recorded replay fails at once, and says why', () => {
    // 22 MiB of segments (20 MiB large, 2 MiB small) against 16 MiB.
    const res = replay(t, { allocator: 'recorded', capacityBytes: 16 * MiB });
    const oom = res.report.ooms[0]!;
    expect(res.report.completed).toBe(false);
    expect(oom).toMatchObject({ event: 0, sizeBytes: 5 * MiB - 100, roundedBytes: 5.5 * MiB, reservedBytes: 22 * MiB, deviceFreeBytes: 0 });
    expect(oom.native).toMatch(/^CUDA out of memory\. Tried to allocate 5\.50 MiB\. GPU 0 has a total capacity of 16\.00 MiB of which 0 bytes is free\. Of the allocated memory 0 bytes is allocated by PyTorch, and 22\.00 MiB is reserved by PyTorch but unallocated\./);
    expect(oom.explanation).toContain(
      'The recorded run held 22.00 MiB in segments when the window opened, more than the capacity of 16.00 MiB: its history does not fit this device',
    );
    // Stopped at its first event, the replay reports what was held before it.
    expect(res.report.summary).toMatchObject({ peakReservedBytes: 22 * MiB, finalReservedBytes: 22 * MiB, peakReservedEvent: -1 });
  });

  it('makes the blocks live at the start the first events, in address order', () => {
    expect(t.initialEvents).toBe(6);
    expect(t.ids.toArray()).toEqual([
      `b${L.toString(16)}_0`,
      `b${(L + 5.5 * MiB).toString(16)}_0`,
      `b${(L + 7.5 * MiB).toString(16)}_0`,
      `b${(L + 12 * MiB).toString(16)}_0`,
      `b${S.toString(16)}_0`,
      `b${(S + 1536).toString(16)}_0`,
      `b${L.toString(16)}_1`,
    ]);
    expect([...t.size.subarray(0, 6)]).toEqual([5 * MiB - 100, 2 * MiB, 3 * MiB, 2 * MiB, 700, 1000]);
    expect([...t.op.subarray(6)]).toEqual([OP_FREE, OP_FREE, OP_ALLOC, OP_FREE]);
    expect([...lineColumn(t).subarray(0, 6)]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(t.tag && t.tags[t.tag[3]!]).toBe('/home/u/model.py:7:init');
    expect(t.summary.peakLiveBytes).toBe(5 * MiB - 100 + 2 * MiB + 3 * MiB + 2 * MiB + 700 + 1000);
    expect(r.notes!.some((n) => n.startsWith('the window opened with 6 allocations live') && n.includes('3 still live at the dump, 3 freed'))).toBe(true);
  });

  it('sizes the blocks by the rule: a large-pool gap of at most 1 MiB belongs to the block, a larger one does not, small blocks are exact', () => {
    // P: round_size(5 MiB - 100) = 5 MiB, plus the 512 KiB gap before Q. U: 3 MiB (the gap is 1.5 MiB).
    // R: 1024 (small pool: remainders of 512 B and more are always split off). The new block at L keeps
    // the whole 5.5 MiB free block: its 256 KiB remainder is under 1 MiB.
    expect([...r.allocatedBytes]).toEqual([5.5 * MiB, 2 * MiB, 3 * MiB, 2 * MiB, 1024, 1024, 5.5 * MiB]);
    expect(r.initialSegments).toEqual([
      {
        address: L,
        sizeBytes: 20 * MiB,
        stream: 0,
        pool: 'large',
        isExpandable: false,
        blocks: [
          { address: L, sizeBytes: 5.5 * MiB, state: 'allocated', allocation: 0 },
          { address: L + 5.5 * MiB, sizeBytes: 2 * MiB, state: 'allocated', allocation: 1 },
          { address: L + 7.5 * MiB, sizeBytes: 3 * MiB, state: 'allocated', allocation: 2 },
          { address: L + 10.5 * MiB, sizeBytes: 1.5 * MiB, state: 'free' },
          { address: L + 12 * MiB, sizeBytes: 2 * MiB, state: 'allocated', allocation: 3 },
          { address: L + 14 * MiB, sizeBytes: 6 * MiB, state: 'free' },
        ],
      },
      {
        address: S,
        sizeBytes: 2 * MiB,
        stream: 0,
        pool: 'small',
        isExpandable: false,
        blocks: [
          { address: S, sizeBytes: 1024, state: 'allocated', allocation: 4 },
          { address: S + 1024, sizeBytes: 512, state: 'free' },
          { address: S + 1536, sizeBytes: 1024, state: 'allocated', allocation: 5 },
          { address: S + 2560, sizeBytes: 2 * MiB - 2560, state: 'free' },
        ],
      },
    ]);
    expect(r.notes).toContain('the trace replayed over the reconstructed start reproduces the final segments and their 4 active blocks exactly.');
  });

  it('gives the recorded allocator the right live, allocated and reserved bytes over the window', () => {
    const res = replay(t, { allocator: 'recorded' });
    const s = res.report.summary;
    expect(s.peakAllocatedBytes).toBe(5.5 * MiB + 2 * MiB + 3 * MiB + 2 * MiB + 2048);
    expect(s.finalAllocatedBytes).toBe(5.5 * MiB + 2 * MiB + 2 * MiB + 1024);
    expect(s.finalReservedBytes).toBe(22 * MiB);
    expect(res.report['recorded']).toMatchObject({ finalCheck: { matches: true } });
    // The other allocators replay the converted trace.
    expect(replay(t, { allocator: 'naive' }).report.summary.finalLiveBytes).toBe(t.summary.finalLiveBytes);
  });

  it('reads the same structure from JSON, and a file without allocator_settings as recorded with the defaults', () => {
    const j = readTrace(writeSnapshot(windowWithLiveBlocks() as never, 'json'));
    expect(j.format).toBe('pytorch-snapshot');
    expect(j.ids.toArray()).toEqual(t.ids.toArray());
    expect([...j.size]).toEqual([...t.size]);
    expect([...j.recorded!.allocatedBytes]).toEqual([...r.allocatedBytes]);
    const old = readTrace(writeSnapshot(windowWithLiveBlocks(false) as never));
    expect(old.recorded!.settings).toBeUndefined();
    expect(old.recorded!.notes).toContain('the file has no allocator_settings: it was recorded with the default settings.');
    expect([...old.recorded!.allocatedBytes]).toEqual([...r.allocatedBytes]);
  });
});

describe('PyTorch snapshot import: devices and streams', () => {
  const STREAM = 0x55d5aa001230;
  const D1 = 0x7f5000000000;
  const D1b = 0x7f5100000000;
  const snap = {
    segments: [
      segment({ address: 0x7f4000000000, blocks: [{ size: 2 * MiB, state: 'inactive' }] }),
      segment({ address: D1, device: 1, stream: STREAM, blocks: [{ size: 30 * MiB }, { size: 10 * MiB, state: 'inactive' }] }),
      segment({ address: D1b, device: 1, blocks: [{ size: 4096 }, { size: 2 * MiB - 4096, state: 'inactive' }] }),
    ],
    device_traces: [
      [entry('segment_alloc', 0x7f4000000000, 2 * MiB)],
      [
        entry('segment_alloc', D1, 40 * MiB, { stream: STREAM }),
        entry('alloc', D1, 30 * MiB, { stream: STREAM }),
        entry('segment_alloc', D1b, 2 * MiB),
        entry('alloc', D1b, 4096),
      ],
    ],
    allocator_settings: settings(),
  };
  const file = writeSnapshot(snap);

  it('imports by default the device holding the most reserved memory, with the streams as recorded', () => {
    const t = readTrace(file);
    expect(t.recorded!.extra).toMatchObject({ device: 1, devices: [0, 1] });
    expect([...t.stream!]).toEqual([STREAM, 0]);
    expect([...t.recorded!.allocatedBytes]).toEqual([30 * MiB, 4096]);
    expect(t.recorded!.notes![0]).toContain('also in the file: device 0; pick one with --device');
    const res = replay(t, { allocator: 'recorded' });
    expect(res.report['recorded']).toMatchObject({ finalCheck: { matches: true, segments: { replayed: 2, file: 2 } } });
    expect(res.allocator.state().segments.map((s) => s.stream)).toEqual([STREAM, 0]);
  });

  it('imports the device asked for with --device, and refuses one that is not in the file', () => {
    const t0 = readTrace(file, { device: 0 });
    expect(t0.length).toBe(0);
    expect(t0.recorded!.segmentEvents).toEqual([{ beforeEvent: 0, action: 'alloc', address: 0x7f4000000000, sizeBytes: 2 * MiB, stream: 0, pool: 'small', entry: 0 }]);
    expect(replay(t0, { allocator: 'recorded' }).report.summary.finalReservedBytes).toBe(2 * MiB);
    expect(() => readTrace(file, { device: 3 })).toThrow(UsageError);
    expect(() => readTrace(file, { device: 3 })).toThrow('--device 3: this snapshot has devices 0, 1');
  });
});

describe('PyTorch snapshot import: expandable segments', () => {
  const E = 0x7f2000000000;
  const F = 0x7f3000000000;
  const snap = {
    segments: [
      segment({ address: E, expandable: true, type: 'large', blocks: [{ size: 8 * MiB }, { size: 30 * MiB }, { size: 2 * MiB, state: 'inactive' }] }),
      segment({ address: F, expandable: true, type: 'small', blocks: [{ size: 1024, requested: 1000 }, { size: 2 * MiB - 1024, state: 'inactive' }] }),
    ],
    device_traces: [[entry('segment_map', E + 20 * MiB, 20 * MiB), entry('alloc', E + 8 * MiB, 30 * MiB), entry('segment_unmap', F + 2 * MiB, 2 * MiB)]],
    allocator_settings: settings('expandable_segments:True', { expandable_segments: true }),
  };
  const t = readTrace(writeSnapshot(snap));
  const r = t.recorded!;

  it('walks map/unmap back to the mapped ranges at the start, and splits with the 512-byte rule', () => {
    expect(r.initialSegments.map((s) => [s.address, s.sizeBytes, s.pool, s.isExpandable])).toEqual([
      [E, 20 * MiB, 'large', true],
      [F, 4 * MiB, 'small', true],
    ]);
    expect(r.segmentEvents.map((e) => [e.beforeEvent, e.action, e.sizeBytes])).toEqual([
      [2, 'map', 20 * MiB],
      [3, 'unmap', 2 * MiB],
    ]);
    // 30 MiB from a 32 MiB free range (12 MiB mapped + 20 MiB just mapped): 2 MiB >= 512 is split off.
    expect([...r.allocatedBytes]).toEqual([8 * MiB, 1024, 30 * MiB]);
  });

  it('counts mapped bytes as reserved and merges contiguous mapped ranges into one segment', () => {
    const res = replay(t, { allocator: 'recorded' });
    expect(res.report.summary.peakReservedBytes).toBe(44 * MiB);
    expect(res.report.summary.finalReservedBytes).toBe(42 * MiB);
    expect(res.report['recorded']).toMatchObject({ finalCheck: { matches: true, segments: { replayed: 2, file: 2 } } });
    expect(res.allocator.state().segments.map((s) => [s.address, s.sizeBytes, s.blocks.length])).toEqual([
      [E, 40 * MiB, 3],
      [F, 2 * MiB, 2],
    ]);
  });
});

describe('PyTorch snapshot import: blocks freed but pending (active_pending_free)', () => {
  const P0 = 0x7f6000000000;
  const snap = {
    segments: [
      segment({ address: P0, blocks: [{ size: 1024, requested: 1000, state: 'active_pending_free' }, { size: 1024, requested: 900, state: 'active_pending_free' }, { size: 2 * MiB - 2048, state: 'inactive' }] }),
    ],
    device_traces: [[entry('alloc', P0, 1000), entry('free_requested', P0, 1000)]],
    allocator_settings: settings(),
  };
  const t = readTrace(writeSnapshot(snap));

  it('keeps a block live until free_completed: the allocated bytes at the end equal the active bytes', () => {
    expect(t.initialEvents).toBe(1);
    expect(t.summary.finalLiveAllocs).toBe(2);
    const res = replay(t, { allocator: 'recorded' });
    expect(res.report['recorded']).toMatchObject({
      finalCheck: { matches: true, allocatedBytes: { replayed: 2048, fileAllocated: 0, fileActive: 2048 } },
    });
    expect(t.recorded!.notes!.some((n) => n.startsWith('2 blocks were freed but still in use by another stream'))).toBe(true);
  });
});

describe('PyTorch snapshot import: the oldest form and odd input', () => {
  it('reads a bare list of segments as the state at the dump, from a pickle or JSON', () => {
    const list = [
      segment({ address: 0x7f7000000000, blocks: [{ size: 2048, requested: 2000 }, { size: 2 * MiB - 2048, state: 'inactive' }] }),
      segment({ address: 0x7f7100000000, blocks: [{ size: 20 * MiB, requested: 19 * MiB }] }),
    ];
    for (const form of ['pickle', 'json'] as const) {
      const t = readTrace(writeSnapshot(list, form));
      expect(t.format).toBe('pytorch-snapshot');
      expect([...t.size]).toEqual([2000, 19 * MiB]);
      expect(t.initialEvents).toBe(2);
      expect(t.recorded!.notes!.some((n) => n.startsWith('the file is the oldest form (a bare list of segments, no trace)'))).toBe(true);
      const s = replay(t, { allocator: 'recorded' }).report.summary;
      expect([s.finalAllocatedBytes, s.finalReservedBytes]).toEqual([2048 + 20 * MiB, 22 * MiB]);
    }
  });

  it('raises times that go backwards and says so', () => {
    const snap = { segments: [], device_traces: [[entry('segment_alloc', A, 2 * MiB, { time: 100 }), entry('alloc', A, 512, { time: 200 }), entry('free_completed', A, 512, { time: 150 })]] };
    const t = readTrace(writeSnapshot(snap));
    expect([...t.time!]).toEqual([200, 200]);
    expect(t.recorded!.notes).toContain('1 trace entries had a time_us earlier than the entry before; their time was raised to keep times non-decreasing.');
  });

  it('reports a free of a block that is not live, or counts it under --lenient', () => {
    const snap = { segments: [], device_traces: [[entry('segment_alloc', A, 2 * MiB), entry('alloc', A, 512), entry('free_completed', A, 512), entry('free_completed', A, 512)]] };
    const file = writeSnapshot(snap);
    // A pickle has no lines: the entry is named by its path, the earlier free too.
    expect(() => readTrace(file)).toThrow('snapshot.pickle: device_traces[0][3].addr: free of id "b7f0000000000_0" which is not live (already freed at device_traces[0][2])');
    expect(readTrace(file, { lenient: true }).skipped.unknownFree).toBe(1);
  });

  it('refuses values it cannot hold exactly (a 9-byte long as an address)', () => {
    const snap = { segments: [], device_traces: [[entry('alloc', 0, 512)]] };
    snap.device_traces[0]![0]!['addr'] = 2n ** 64n;
    expect(() => readTrace(writeSnapshot(snap))).toThrow(TraceError);
    expect(() => readTrace(writeSnapshot(snap))).toThrow('device_traces[0][0].addr: 18446744073709551616 is beyond 2^53');
  });

  it('says what is wrong with a pickle that is not a snapshot', () => {
    expect(() => readTrace(writeSnapshot({ hello: 1 }))).toThrow('top level: not a PyTorch memory snapshot');
    expect(() => readTrace(writeSnapshot({ segments: [{ address: 1 }] }))).toThrow('segments[0].total_size: missing');
  });
});
