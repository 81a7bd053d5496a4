/**
 * Snapshots that contradict themselves are refused as strictly as a bad CSV: exit 2, the entry
 * named by its path in the file (a pickle has no lines), nothing reported as if it were fine.
 */
import { describe, expect, it } from 'vitest';
import { readTrace } from '../../src/trace/read.js';
import { runCli } from '../helpers.js';
import { entry, MiB, segment, settings, writeSnapshot } from './snapshot-helpers.js';
import '../../src/allocators/index.js';

const A = 0x7f0000000000;
const B = 0x7f0000200000;

/** A consistent snapshot: one small segment, two allocations, one freed. */
function base() {
  return {
    segments: [segment({ address: A, blocks: [{ size: 512 }, { size: 2 * MiB - 512, state: 'inactive' }] })],
    device_traces: [
      [
        entry('segment_alloc', A, 2 * MiB),
        entry('alloc', A, 500),
        entry('alloc', A + 512, 1000),
        entry('free_requested', A + 512, 1000),
        entry('free_completed', A + 512, 1000),
      ],
    ],
    allocator_settings: settings(),
  };
}

/** The one-line error of `memsim validate` on a snapshot, with its exit code. */
function refused(snap: unknown, ...args: string[]): { code: number; message: string } {
  const file = writeSnapshot(snap as never);
  const r = runCli(['validate', file, ...args]);
  return { code: r.code, message: r.stderr.split('\n').find((l) => l.includes('snapshot.pickle:')) ?? r.stderr };
}

describe('inconsistent snapshots are refused, naming the entry by its path', () => {
  it('accepts the consistent one', () => {
    expect(readTrace(writeSnapshot(base())).length).toBe(3);
  });

  it('a negative size in a trace entry', () => {
    const s = base();
    s.device_traces[0]![4]!['size'] = -7;
    const r = refused(s);
    expect(r.code).toBe(2);
    expect(r.message).toMatch(/snapshot\.pickle: device_traces\[0\]\[4\]\.size: must not be negative, got -7$/);
    expect(r.message).not.toContain('line');
  });

  it('a negative address, and a segment event of no bytes', () => {
    const s = base();
    s.device_traces[0]![2]!['addr'] = -512;
    expect(refused(s).message).toMatch(/device_traces\[0\]\[2\]\.addr: must not be negative, got -512$/);
    const t = base();
    t.device_traces[0]![0]!['size'] = 0;
    expect(refused(t).message).toMatch(/device_traces\[0\]\[0\]\.size: must be at least 1, got 0$/);
  });

  it('overlapping segments of one device', () => {
    const s = base();
    s.segments.push(segment({ address: A + MiB, blocks: [{ size: 2 * MiB, state: 'inactive' }] }));
    const r = refused(s);
    expect(r.code).toBe(2);
    expect(r.message).toContain('snapshot.pickle: segments[1]: [0x7f0000100000, 0x7f0000300000) overlaps segments[0] [0x7f0000000000, 0x7f0000200000) on device 0');
  });

  it('blocks that do not tile their segment, sizes that do not add up', () => {
    const gap = base();
    (gap.segments[0]!['blocks'] as Record<string, unknown>[])[1]!['address'] = A + 1024;
    expect(refused(gap).message).toContain(
      'segments[0].blocks[1].address: 0x7f0000000400 is not where the block before it ends (0x7f0000000200): blocks must tile their segment in address order',
    );
    const short = base();
    short.segments[0]!['total_size'] = 4 * MiB;
    expect(refused(short).message).toContain('segments[0].blocks: the blocks cover 2097152 bytes, the segment\'s total_size is 4194304');
    const counted = base();
    counted.segments[0]!['allocated_size'] = 5 * MiB;
    expect(refused(counted).message).toContain('segments[0].allocated_size: 5242880 is not the 512 bytes of the segment\'s active_allocated blocks');
    const negative = base();
    (negative.segments[0]!['blocks'] as Record<string, unknown>[])[0]!['size'] = -512;
    expect(refused(negative).message).toContain('segments[0].blocks[0].size: must be at least 1, got -512');
  });

  it('an allocation outside the free ranges of the segments, or a segment event that does not fit: refused, or counted under --lenient', () => {
    const s = base();
    s.device_traces[0]![2]!['addr'] = B;
    s.device_traces[0]![3]!['addr'] = B;
    s.device_traces[0]![4]!['addr'] = B;
    const r = refused(s);
    expect(r.code).toBe(2);
    expect(r.message).toContain('snapshot.pickle: device_traces[0][2]: alloc of 1024 bytes at 0x7f0000200000 does not lie in a free range of a segment');
    const lenient = runCli(['validate', writeSnapshot(s), '--lenient']);
    expect(lenient.code).toBe(0);
    // A segment created over one that exists (a segment freed in the window existed before it: that is no contradiction).
    const t = base();
    t.device_traces[0]!.push(entry('segment_alloc', A + MiB, 2 * MiB));
    expect(refused(t).message).toContain('device_traces[0][5]: segment_alloc of 2097152 bytes at 0x7f0000100000 does not fit the segments before it');
  });

  it('semantic errors of the events name entries too', () => {
    const s = base();
    s.device_traces[0]!.push(entry('free_completed', A + 512, 1000));
    expect(refused(s).message).toContain(
      'snapshot.pickle: device_traces[0][5].addr: free of id "b7f0000000200_0" which is not live (already freed at device_traces[0][4])',
    );
  });

  it('convert refuses a negative size instead of writing it', () => {
    const s = base();
    s.device_traces[0]![2]!['size'] = -7;
    const r = runCli(['convert', writeSnapshot(s), '-', '--format', 'jsonl']);
    expect(r.code).toBe(2);
    expect(r.stdout).not.toContain('"size":-7');
  });
});

describe('OOM locations in a snapshot are trace entries, not lines', () => {
  it('a simulated OOM names the entry of its request', () => {
    const s = base();
    s.device_traces[0]!.push(entry('segment_alloc', B, 20 * MiB), entry('alloc', B, 3 * MiB));
    s.segments.push(segment({ address: B, blocks: [{ size: 3 * MiB }, { size: 17 * MiB, state: 'inactive' }] }));
    const file = writeSnapshot(s);
    const json = runCli(['replay', file, '--allocator', 'caching', '--capacity', '10MiB', '--format', 'json']);
    expect(json.code).toBe(1);
    const r = JSON.parse(json.stdout) as { ooms: { event: number; line: number | null; entry?: string }[] };
    expect(r.ooms[0]).toMatchObject({ event: 3, line: null, entry: 'device_traces[0][6]' });
    const text = runCli(['replay', file, '--allocator', 'caching', '--capacity', '10MiB']);
    expect(text.stdout).toContain('OOM at event 3, device_traces[0][6], step 0');
    expect(text.stdout).not.toMatch(/line \d/);
    expect(text.stderr).toContain('the first at event 3 (device_traces[0][6])');
    // Placements another allocator made otherwise than recorded are named by entry too.
    const naive = JSON.parse(runCli(['replay', file, '--allocator', 'naive', '--format', 'json']).stdout) as { fidelity: { mismatches: { line: null; entry: string }[] } };
    expect(naive.fidelity.mismatches[0]).toMatchObject({ line: null, entry: 'device_traces[0][6]' });
  });
});
