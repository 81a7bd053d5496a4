import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getAllocator, resolveOptions } from '../../src/allocators/index.js';
import { chooseStart } from '../../src/sim/start.js';
import { readTrace } from '../../src/trace/read.js';
import { ROOT, runCli, SHARED_TRACES, tempDir } from '../helpers.js';
import { entry, MiB, segment, settings, writeSnapshot } from '../pytorch/snapshot-helpers.js';

const SEG = 0x7f0000000000;

// When the window opens, one 20 MiB segment holds a 6 MiB block at +4 MiB (free before and after
// it); in the window an 8 MiB block is allocated at +10 MiB and freed, then a 2 MiB one at +0.
const snap = {
  segments: [segment({ address: SEG, blocks: [{ size: 4 * MiB, state: 'inactive' }, { size: 6 * MiB }, { size: 10 * MiB, state: 'inactive' }] })],
  device_traces: [[entry('alloc', SEG + 10 * MiB, 8 * MiB), entry('free_requested', SEG + 10 * MiB, 8 * MiB), entry('free_completed', SEG + 10 * MiB, 8 * MiB), entry('alloc', SEG, 2 * MiB)]],
  allocator_settings: settings(),
};

/** Replays with `--placements` and returns the JSON report and the placement rows. */
function replay(file: string, ...args: string[]): { code: number; stderr: string; json: Record<string, any>; placements: string[][] } {
  const out = join(tempDir(), 'placements.csv');
  const r = runCli(['replay', file, '--format', 'json', '--placements', out, ...args]);
  if (r.code !== 0) return { code: r.code, stderr: r.stderr, json: {}, placements: [] };
  const rows = readFileSync(out, 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  return { code: r.code, stderr: r.stderr, json: JSON.parse(r.stdout), placements: rows };
}

describe('--start recorded|fresh on a snapshot', () => {
  const file = writeSnapshot(snap);

  it('defaults to the recorded layout when the options equal the recording: the live block at its recorded address', () => {
    const r = replay(file, '--allocator', 'caching');
    expect(r.code).toBe(0);
    expect(r.json.start).toEqual({ mode: 'recorded', isAsked: false, reason: "the options equal the recording's settings", differingOptions: [] });
    // event 0 is the block live at the start; the window's allocs follow at the recorded addresses.
    expect(r.placements.map((p) => [p[0], p[2]])).toEqual([
      ['0', '0x7f0000400000'],
      ['1', '0x7f0000a00000'],
      ['3', '0x7f0000000000'],
    ]);
    expect(r.json.summary.peakReservedBytes).toBe(20 * MiB);
    expect(r.json.notes.some((n: string) => n.startsWith('start: recorded'))).toBe(true);
  });

  it('--start fresh allocates the live block through the allocator first: another layout from the first byte', () => {
    const r = replay(file, '--allocator', 'caching', '--start', 'fresh');
    expect(r.code).toBe(0);
    expect(r.json.start.mode).toBe('fresh');
    expect(r.json.start.isAsked).toBe(true);
    // A fresh caching allocator gets a 20 MiB segment (kLargeBuffer) for the 6 MiB block at the
    // start of its device, splits the 8 MiB block off its remainder, and, once that is freed and
    // merged back, serves the 2 MiB request there too: every block elsewhere than recorded.
    expect(r.placements.map((p) => [p[0], p[2]])).toEqual([
      ['0', '0x7f0000000000'],
      ['1', '0x7f0000600000'],
      ['3', '0x7f0000600000'],
    ]);
    expect(r.json.allocator.stats.num_device_alloc).toBe(1);
    expect(r.json.fidelity.sameAddress).toBe(0);
    expect(r.json.notes).toContain(
      "start: fresh (--start fresh; the options equal the recording's settings): the 1 allocation live when the window opened were allocated through caching first, in address order (a snapshot does not record their order), without the recorded segments.",
    );
    // The comparison with the recording is the generic one (offsets), since the layout is not the recorded one.
    expect(r.json.fidelity.recordedAllocator).toBe('pytorch-caching');
  });

  it('defaults to fresh when an option differs from the recording, and says which', () => {
    const r = replay(file, '--allocator', 'caching', '--option', 'expandable_segments=true');
    expect(r.json.start).toEqual({
      mode: 'fresh',
      isAsked: false,
      reason: "the options differ from the recording's settings (expandable_segments=true)",
      differingOptions: ['expandable_segments=true'],
    });
    const asked = replay(file, '--allocator', 'caching', '--option', 'expandable_segments=true', '--start', 'recorded');
    expect(asked.json.start.mode).toBe('recorded');
    expect(Number(asked.placements[0]?.[2])).toBe(SEG + 4 * MiB);
  });

  it('an allocator that does not simulate the recorded one starts fresh; asking it for the recorded layout is a usage error', () => {
    const r = replay(file, '--allocator', 'naive');
    expect(r.json.start).toMatchObject({ mode: 'fresh', isAsked: false, reason: 'naive does not simulate the recorded pytorch-caching allocator' });
    const bad = replay(file, '--allocator', 'naive', '--start', 'recorded');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--start recorded: "naive" does not simulate the recorded pytorch-caching allocator');
    const rec = replay(file, '--allocator', 'recorded', '--start', 'fresh');
    expect(rec.code).toBe(2);
    expect(rec.stderr).toContain('--start fresh: the "recorded" allocator replays the recorded history itself');
  });

  it('compare passes --start to every row and reports each row\'s start', () => {
    const r = runCli(['compare', file, '--allocators', 'caching,caching[expandable_segments=true],naive', '--format', 'json']);
    expect(r.code).toBe(0);
    const rows = Object.fromEntries(JSON.parse(r.stdout).allocators.map((e: { name: string; start: { mode: string } }) => [e.name, e.start.mode]));
    expect(rows).toEqual({ caching: 'recorded', 'caching[expandable_segments=true]': 'fresh', naive: 'fresh' });
    const fresh = runCli(['compare', file, '--allocators', 'caching', '--start', 'fresh', '--format', 'json']);
    expect(JSON.parse(fresh.stdout).allocators[0].start.mode).toBe('fresh');
  });

  it('a trace without a recorded history has no start to choose', () => {
    const t = readTrace(join(ROOT, 'test', 'fixtures', 'three-steps.json'));
    const def = getAllocator('caching');
    expect(chooseStart(def, resolveOptions(def, {}, t).values, t)).toBeNull();
    const r = runCli(['replay', join(ROOT, 'test', 'fixtures', 'three-steps.json'), '--format', 'json']);
    expect(JSON.parse(r.stdout).start).toBeUndefined();
  });
});

const BCRAFTON = join(SHARED_TRACES, 'pytorch', 'bcrafton_memory_snapshot.pickle');
const present = existsSync(BCRAFTON);
if (!present) console.warn(`real PyTorch snapshot not found at ${BCRAFTON}: the --start test on it is skipped`);

describe.skipIf(!present)('--start fresh on a real snapshot', () => {
  it('changes the layout: the 447 blocks live at the start are placed by the simulation, not at their recorded addresses', () => {
    const t = readTrace(BCRAFTON);
    const recordedAddress = (event: number) => t.recorded!.address[t.alloc[event]!]!;
    const recorded = replay(BCRAFTON, '--allocator', 'caching');
    const fresh = replay(BCRAFTON, '--allocator', 'caching', '--start', 'fresh');
    const initial = (rows: string[][]) => rows.filter((p) => Number(p[0]) < t.initialEvents);
    expect(t.initialEvents).toBe(447);
    expect(initial(recorded.placements).every((p) => Number(p[2]) === recordedAddress(Number(p[0])))).toBe(true);
    const moved = initial(fresh.placements).filter((p) => Number(p[2]) !== recordedAddress(Number(p[0]))).length;
    expect(moved).toBe(447);
    expect(recorded.json.fidelity.sameAddress).toBe(2162);
    expect(fresh.json.summary.peakReservedBytes).not.toBe(recorded.json.summary.peakReservedBytes);
  });
});
