import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listAllocators } from '../../src/allocators/index.js';
import { replay } from '../../src/sim/run.js';
import { readTrace } from '../../src/trace/read.js';
import { writeTrace } from '../../src/trace/write.js';
import { runCli, SHARED_TRACES, tempDir } from '../helpers.js';
import { expectSameEvents } from './snapshot-helpers.js';

const DIR = join(SHARED_TRACES, 'pytorch');
const BCRAFTON = join(DIR, 'bcrafton_memory_snapshot.pickle');
const MUDUARD = join(DIR, 'muduard_memory_snapshot_33ade60.pkl');
const ALBI2 = join(DIR, 'albi2_dump_snapshot_dbc4621.pickle');
const present = existsSync(BCRAFTON) && existsSync(MUDUARD) && existsSync(ALBI2);
if (!present) console.warn(`real PyTorch snapshots not found under ${DIR}: their tests are skipped`);

const MiB = 1024 * 1024;

describe.skipIf(!present)('real PyTorch snapshots (../shared/traces/pytorch)', () => {
  it('bcrafton (newest dict, 6,486 entries): the window and the state when it opened', () => {
    const t = readTrace(BCRAFTON);
    const r = t.recorded!;
    expect(t.format).toBe('pytorch-snapshot');
    // 2,162 alloc / free_requested / free_completed entries (README); 447 blocks live at the start.
    expect(t.summary.allocs).toBe(2162 + t.initialEvents);
    expect(t.summary.frees).toBe(2162);
    expect(t.initialEvents).toBe(447);
    expect(r.initialSegments.length).toBe(96);
    expect(r.segmentEvents).toEqual([]);
    expect(r.settings).toMatchObject({ PYTORCH_CUDA_ALLOC_CONF: '', max_split_size: -1, expandable_segments: false });
    // Every allocation live at the dump got the final segments' block size from the reconstruction.
    expect(r.notes).toContain('the trace replayed over the reconstructed start reproduces the final segments and their 447 active blocks exactly.');
    // Tags come from the innermost user frame, past the allocator's C++ frames and torch's Python.
    const counts = new Map<string, number>();
    for (let i = 0; i < t.length; i++) if (t.op[i] === 0 && t.tag && t.tag[i]! > 0) counts.set(t.tags[t.tag[i]!]!, (counts.get(t.tags[t.tag[i]!]!) ?? 0) + 1);
    // (Counts made independently with Python: the first .py frame outside torch's package and generated code.)
    expect(counts.get('/home/brian/Desktop/assignment2-systems/cs336_basics/optimizer.py:75:step')).toBe(444);
    expect(counts.get('/home/brian/Desktop/assignment2-systems/cs336_basics/model.py:41:forward')).toBe(279);
    expect([...counts.values()].reduce((x, y) => x + y, 0)).toBe(2162);
  });

  it('bcrafton: --allocator recorded ends with the file\'s own 96 segments, 4,238,344,192 B reserved and 3,072,871,424 B allocated', () => {
    const t = readTrace(BCRAFTON);
    const res = replay(t, { allocator: 'recorded' });
    const s = res.report.summary;
    // The sums of total_size and allocated_size over the file's segments (read with Python's pickle).
    expect(s.finalReservedBytes).toBe(4_238_344_192);
    expect(s.finalAllocatedBytes).toBe(3_072_871_424);
    expect(res.report['recorded']).toMatchObject({
      finalCheck: { matches: true, segments: { replayed: 96, file: 96 }, reservedBytes: { file: 4_238_344_192 }, allocatedBytes: { fileAllocated: 3_072_871_424 } },
    });
    expect(res.allocator.stats()).toMatchObject({ misplaced_allocations: 0, segment_event_mismatches: 0 });
    // The segments at the end, block by block, are those of the file.
    const finals = t.recorded!.finalSegments!;
    const state = res.allocator.state().segments;
    expect(state.map((x) => [x.address, x.sizeBytes])).toEqual(finals.map((x) => [x.address, x.sizeBytes]));
    expect(state.flatMap((x) => x.blocks.map((b) => [b.address, b.sizeBytes, b.isFree]))).toEqual(
      finals.flatMap((x) => x.blocks!.map((b) => [b.address, b.sizeBytes, b.state === 'free'])),
    );
  });

  it('bcrafton: caching from the recorded state under capacities below it, past its OOMs, ends (it looped on a released segment until out of heap)', () => {
    const t = readTrace(BCRAFTON);
    for (const mib of [100, 120, 147]) {
      const { report } = replay(t, { allocator: 'caching', capacityBytes: mib * MiB, onOom: 'continue', attribution: false });
      expect(report.completed).toBe(true);
      expect(report.summary.oomCount).toBeGreaterThan(0);
      expect(report.summary.peakReservedBytes).toBeLessThanOrEqual(mib * MiB);
    }
  });

  it('bcrafton: naive (and every simulating allocator) replays the converted trace', () => {
    const t = readTrace(BCRAFTON);
    for (const def of listAllocators().filter((d) => !d.needsRecordedHistory)) {
      const res = replay(t, { allocator: def.name, onOom: 'continue' });
      expect(res.report.summary.eventsReplayed).toBe(t.length);
      expect(res.report.summary.peakLiveBytes).toBe(t.summary.peakLiveBytes);
      // each is measured against what the GPU did: 2,162 allocations with their addresses, 4,238,344,192 B reserved at the dump
      expect(res.report['fidelity']).toMatchObject({ allocations: 2162, withAllocatedBytes: 2162, reservedBytesRecorded: 4_238_344_192 });
    }
  });

  it('muduard (a bare list of 255 segments) and albi2 (expandable segments, no trace): the state at the dump', () => {
    const m = readTrace(MUDUARD);
    expect(m.recorded!.extra).toMatchObject({ device: 1, shape: 'segments' });
    const mr = replay(m, { allocator: 'recorded' });
    expect(mr.report['recorded']).toMatchObject({ finalCheck: { matches: true, segments: { replayed: 255, file: 255 } } });
    expect(m.length).toBe(m.initialEvents);

    const a = readTrace(ALBI2);
    expect(a.recorded!.extra).toMatchObject({ device: 0, devices: [0, 1] });
    expect(a.recorded!.initialSegments.every((s) => s.isExpandable)).toBe(true);
    const ar = replay(a, { allocator: 'recorded' });
    expect(ar.report.summary.finalReservedBytes).toBe(42 * MiB);
    expect(ar.report['recorded']).toMatchObject({ finalCheck: { matches: true } });
    const a1 = readTrace(ALBI2, { device: 1 });
    expect(replay(a1, { allocator: 'recorded' }).report.summary.finalReservedBytes).toBe(40 * MiB);
  });

  it('convert writes the snapshot in memsim formats, and reading those gives the same events', () => {
    const t = readTrace(BCRAFTON);
    const dir = tempDir();
    for (const ext of ['json', 'jsonl', 'csv'] as const) {
      const out = join(dir, `bcrafton.${ext}`);
      const r = runCli(['convert', BCRAFTON, out]);
      expect(r.code).toBe(0);
      expectSameEvents(t, readTrace(out));
      // The library writer gives the same file.
      const lib = join(dir, `lib.${ext}`);
      writeTrace(t, lib, ext);
      expectSameEvents(t, readTrace(lib));
    }
  });

  it('the CLI replays a real snapshot with --allocator recorded and names the device with --device', () => {
    const r = runCli(['replay', ALBI2, '--allocator', 'recorded', '--device', '1', '--format', 'json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { trace: { format: string }; summary: { finalReservedBytes: number } };
    expect(report.trace.format).toBe('pytorch-snapshot');
    expect(report.summary.finalReservedBytes).toBe(40 * MiB);
    const bad = runCli(['replay', ALBI2, '--device', '7']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--device 7: this snapshot has devices 0, 1');
  });
});
