/**
 * Recorded histories with expandable segments, written with the project's own pickle writer in the
 * pattern of real multi-device snapshots: each device's large-pool and small-pool reservations follow
 * one another in the process's address space, each `total + total / 8` of the device long; pages
 * unmapped by an empty_cache; an OOM of the real run.
 */
import { describe, expect, it } from 'vitest';
import { expandableSpaceBytes, inferDeviceTotal } from '../../src/allocators/caching/address-space.js';
import { replay } from '../../src/sim/run.js';
import { readTrace } from '../../src/trace/read.js';
import { runCli } from '../helpers.js';
import { entry, MiB, segment, settings, writeSnapshot } from '../pytorch/snapshot-helpers.js';
import '../../src/allocators/index.js';

const GiB = 1024 * MiB;
/** What an "8 GB" card might report (totalGlobalMem): less than the nominal 8 GiB. */
const TOTAL = 8_375_238_656;
const L0 = 0x7f0000000000;
const S0 = L0 + expandableSpaceBytes(TOTAL, 20 * MiB);
const L1 = S0 + expandableSpaceBytes(TOTAL, 2 * MiB);
const S1 = L1 + expandableSpaceBytes(TOTAL, 20 * MiB);
const ES = settings('expandable_segments:True', { expandable_segments: true });

/**
 * Two devices. Device 0 maps a large page and then its first small page at the start of its small
 * reservation; more small and large blocks follow. Device 1 only has its segments (its trace is empty).
 */
function twoDevices() {
  return {
    segments: [
      segment({ address: L0, expandable: true, type: 'large', blocks: [{ size: 12 * MiB }, { size: 20 * MiB }, { size: 8 * MiB, state: 'inactive' }] }),
      segment({ address: S0, expandable: true, type: 'small', blocks: [{ size: 4096 }, { size: 512 }, { size: 2 * MiB - 4608, state: 'inactive' }] }),
      segment({ address: L1, device: 1, expandable: true, type: 'large', blocks: [{ size: 20 * MiB }] }),
      segment({ address: S1, device: 1, expandable: true, type: 'small', blocks: [{ size: 2 * MiB }] }),
    ],
    device_traces: [
      [
        entry('segment_map', L0, 20 * MiB),
        entry('alloc', L0, 12 * MiB),
        entry('segment_map', S0, 2 * MiB),
        entry('alloc', S0, 4096),
        entry('alloc', S0 + 4096, 300),
        // The free 8 MiB after the first block and one more page hold the next one.
        entry('segment_map', L0 + 20 * MiB, 20 * MiB),
        entry('alloc', L0 + 12 * MiB, 20 * MiB),
      ],
      [],
    ],
    allocator_settings: ES,
  };
}

describe('expandable segments reserve address space for the device a history implies', () => {
  const file = writeSnapshot(twoDevices());
  const t = readTrace(file, { device: 0 });

  it('infers the device total from the recorded reservations', () => {
    const inferred = inferDeviceTotal(t.recorded!);
    // The small reservation of device 0 reaches at most to device 1's large one: that bounds the total.
    expect(inferred).toMatchObject({ base: S0, pageBytes: 2 * MiB, nextAddress: L1 });
    expect(expandableSpaceBytes(inferred!.totalBytes, 2 * MiB)).toBe(L1 - S0);
    expect(expandableSpaceBytes(inferred!.totalBytes + 1, 2 * MiB)).toBeGreaterThan(L1 - S0);
    expect(expandableSpaceBytes(inferred!.totalBytes, 20 * MiB)).toBe(S0 - L0);
    expect(inferred!.totalBytes).toBeGreaterThanOrEqual(TOTAL);
  });

  it.each([
    ['no capacity', undefined],
    ['a nominal capacity above the real total', 8 * GiB],
  ])('places every allocation at its recorded address with %s', (_what, capacityBytes) => {
    const r = replay(t, { allocator: 'caching', ...(capacityBytes !== undefined ? { capacityBytes } : {}) }).report;
    expect(r['fidelity']).toMatchObject({
      allocations: 4,
      sameAddress: 4,
      sameAddressRatio: 1,
      reservedBytesSimulated: 42 * MiB,
      reservedBytesRecorded: 42 * MiB,
      finalBlocks: { recorded: 6, identical: 6 },
      deviceTotal: { source: 'inferred' },
    });
    expect(r.notes.some((n) => n.startsWith('expandable segments reserve address space for a device of'))).toBe(true);
  });

  it('puts the small pool elsewhere when the reservation is made for a larger device (what a total from --capacity did)', () => {
    // Without the recorded reservations to bound it, 16 GiB reserves past the small pool's real place.
    const bare = readTrace(file, { device: 0 });
    bare.recorded = { ...bare.recorded!, finalSegments: [], otherSegments: [], initialSegments: [] };
    bare.recorded.segmentEvents = bare.recorded.segmentEvents.filter((e) => e.address !== S0);
    const r = replay(bare, { allocator: 'caching', capacityBytes: 16 * GiB }).report;
    expect(r['fidelity']).toMatchObject({ allocations: 4, sameAddress: 2 });
  });
});

/**
 * One device, large pool only: three 20 MiB blocks on three pages, the first and the last freed,
 * empty_cache unmaps their pages, then a 40 MiB block maps two pages after the middle one; then
 * the real run fails to allocate 100 MiB with 10 MiB free on the device.
 */
function unmapThenOom(oomSize = 100 * MiB) {
  return {
    segments: [segment({ address: L0 + 20 * MiB, expandable: true, type: 'large', blocks: [{ size: 20 * MiB }, { size: 40 * MiB }] })],
    device_traces: [
      [
        entry('segment_map', L0, 20 * MiB),
        entry('alloc', L0, 20 * MiB),
        entry('segment_map', L0 + 20 * MiB, 20 * MiB),
        entry('alloc', L0 + 20 * MiB, 20 * MiB),
        entry('segment_map', L0 + 40 * MiB, 20 * MiB),
        entry('alloc', L0 + 40 * MiB, 20 * MiB),
        entry('free_requested', L0, 20 * MiB),
        entry('free_completed', L0, 20 * MiB),
        entry('free_requested', L0 + 40 * MiB, 20 * MiB),
        entry('free_completed', L0 + 40 * MiB, 20 * MiB),
        entry('segment_unmap', L0, 20 * MiB),
        entry('segment_unmap', L0 + 40 * MiB, 20 * MiB),
        entry('segment_map', L0 + 40 * MiB, 40 * MiB),
        entry('alloc', L0 + 40 * MiB, 40 * MiB),
        entry('oom', 10 * MiB, oomSize),
      ],
    ],
    allocator_settings: ES,
  };
}

describe('recorded unmaps and the real run\'s OOM', () => {
  const file = writeSnapshot(unmapThenOom());
  const t = readTrace(file);

  it('replays the recorded segment_unmap events, so reserved bytes end as recorded', () => {
    const r = replay(t, { allocator: 'caching' }).report;
    expect(r['fidelity']).toMatchObject({
      sameAddressRatio: 1,
      reservedBytesSimulated: 60 * MiB,
      reservedBytesRecorded: 60 * MiB,
      unmaps: { recorded: 2, replayed: 2, alreadyUnmapped: 0 },
      finalBlocks: { recorded: 2, identical: 2 },
    });
    expect(r.summary.finalReservedBytes).toBe(60 * MiB);
    expect(r.summary.deviceFreeCalls).toBe(2);
    expect(r.notes).toContain('2 of 2 recorded segment_unmap events replayed where the recorded allocator unmapped pages');
  });

  it('with --allocator recorded, counts the real run\'s OOM with PyTorch\'s figures and message', () => {
    const r = replay(t, { allocator: 'recorded', capacityBytes: 70 * MiB }).report;
    expect(r.summary.oomCount).toBe(1);
    expect(r.completed).toBe(true);
    expect(r.ooms).toEqual([
      expect.objectContaining({
        event: 6,
        line: null,
        entry: 'device_traces[0][14]',
        recorded: true,
        id: '',
        sizeBytes: 100 * MiB,
        roundedBytes: 100 * MiB,
        liveBytes: 60 * MiB,
        allocatedBytes: 60 * MiB,
        reservedBytes: 60 * MiB,
        deviceFreeBytes: 10 * MiB,
        kind: 'capacity',
        native:
          'CUDA out of memory. Tried to allocate 100.00 MiB. GPU 0 has a total capacity of 70.00 MiB of which 10.00 MiB is free. ' +
          'Of the allocated memory 60.00 MiB is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated. ' +
          'If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  ' +
          'See documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)',
      }),
    ]);
  });

  it('a simulating allocator says in its fidelity whether it fails there too', () => {
    const f = replay(t, { allocator: 'caching' }).report['fidelity'] as { recordedOoms: unknown[] };
    expect(f.recordedOoms).toEqual([
      {
        beforeEvent: 6,
        entry: 'device_traces[0][14]',
        sizeBytes: 100 * MiB,
        stream: 0,
        deviceFreeBytes: 10 * MiB,
        deviceHadRoom: false,
        limitBytes: 70 * MiB,
        simulatedReservedBytes: 60 * MiB,
        servedFromCache: false,
        neededBytes: 100 * MiB,
        releasableBytes: 0,
        reproduced: true,
      },
    ]);
    // A request that the simulation's cache serves is not reproduced: here 20 MiB after freeing the middle block.
    const served = unmapThenOom(20 * MiB);
    served.device_traces[0]!.splice(14, 0, entry('free_requested', L0 + 20 * MiB, 20 * MiB), entry('free_completed', L0 + 20 * MiB, 20 * MiB));
    served.segments = [segment({ address: L0 + 20 * MiB, expandable: true, type: 'large', blocks: [{ size: 20 * MiB, state: 'inactive' }, { size: 40 * MiB }] })];
    const g = replay(readTrace(writeSnapshot(served)), { allocator: 'caching' }).report['fidelity'] as { recordedOoms: { reproduced: boolean; servedFromCache: boolean }[] };
    expect(g.recordedOoms[0]).toMatchObject({ servedFromCache: true, reproduced: false });
  });

  it('another allocator\'s fidelity estimates it from its largest free block and reserved bytes', () => {
    // naive holds the 60 MiB live and no free block: 100 MiB more exceeds the 70 MiB the real allocator could hold.
    const r = replay(t, { allocator: 'naive' }).report;
    expect((r['fidelity'] as { recordedOoms: unknown[] }).recordedOoms).toEqual([
      {
        beforeEvent: 6,
        entry: 'device_traces[0][14]',
        sizeBytes: 100 * MiB,
        deviceFreeBytes: 10 * MiB,
        limitBytes: 70 * MiB,
        liveBytes: 60 * MiB,
        simulatedReservedBytes: 60 * MiB,
        simulatedLargestFreeBlockBytes: 0,
        reproduced: true,
      },
    ]);
    expect(r.notes.some((n) => n.endsWith("the real run's OOM before event 6 (device_traces[0][14]) is reproduced."))).toBe(true);
    expect(r.summary.oomCount).toBe(0);
  });

  it('the CLI: replay exits 1 on the recorded OOM, --allow-oom accepts it, compare --fail-on oom sees it', () => {
    const r = runCli(['replay', file, '--allocator', 'recorded', '--capacity', '70MiB']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("OOM before event 6, device_traces[0][14], step 0: the real run's request of 100.00 MiB");
    expect(r.stdout).toContain('GPU 0 has a total capacity of 70.00 MiB of which 10.00 MiB is free.');
    expect(r.stderr).toContain("the first before event 6 (device_traces[0][14]), the real run's own");
    expect(runCli(['replay', file, '--allocator', 'recorded', '--allow-oom']).code).toBe(0);
    const c = runCli(['compare', file, '--allocators', 'recorded,caching', '--fail-on', 'oom']);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain('recorded hit 1 OOM(s)');
  });
});
