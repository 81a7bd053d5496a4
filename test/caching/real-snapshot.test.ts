import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, SHARED_TRACES } from '../helpers.js';

const DIR = join(SHARED_TRACES, 'pytorch');
const BCRAFTON = join(DIR, 'bcrafton_memory_snapshot.pickle');
const ALBI2 = join(DIR, 'albi2_dump_snapshot_dbc4621.pickle');
const MUDUARD = join(DIR, 'muduard_memory_snapshot_33ade60.pkl');
const present = existsSync(BCRAFTON) && existsSync(ALBI2) && existsSync(MUDUARD);
if (!present) console.warn(`real PyTorch snapshots not found under ${DIR}: the caching fidelity tests are skipped`);

const replay = (file: string, ...args: string[]) => {
  const r = runCli(['replay', file, '--allocator', 'caching', '--format', 'json', ...args]);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

describe.skipIf(!present)('the caching allocator on real PyTorch snapshots', () => {
  it('places every allocation of the recorded window where PyTorch placed it, and ends with the recorded segments', () => {
    const j = replay(BCRAFTON);
    expect(j.fidelity).toEqual({
      allocations: 2162,
      sameAddress: 2162,
      sameAddressRatio: 1,
      reservedBytesSimulated: 4238344192,
      reservedBytesRecorded: 4238344192,
      withAllocatedBytes: 2162,
      sameAllocatedBytes: 2162,
      finalBlocks: { recorded: 550, identical: 550 },
      mismatches: [],
    });
    expect(j.allocator.stats).toMatchObject({ segments: 96, num_device_alloc: 0, num_device_free: 0, num_ooms: 0 });
  });

  it('rebuilds snapshots without a trace block for block, expandable segments included', () => {
    const albi2 = replay(ALBI2);
    expect(albi2.allocator.options).toMatchObject({ max_split_size_mb: 128, expandable_segments: true });
    expect(albi2.fidelity).toMatchObject({ reservedBytesSimulated: 44040192, reservedBytesRecorded: 44040192, finalBlocks: { recorded: 7, identical: 7 } });
    const muduard = replay(MUDUARD);
    expect(muduard.fidelity).toMatchObject({ reservedBytesSimulated: 3649044480, finalBlocks: { recorded: 2140, identical: 2140 } });
  });

  it('answers the what-ifs on the same window: other settings, other placements', () => {
    const j = replay(BCRAFTON, '--option', 'roundup_power2_divisions=4');
    expect(j.fidelity.sameAddressRatio).toBeLessThan(1);
    expect(j.fidelity.reservedBytesSimulated).toBeGreaterThan(j.fidelity.reservedBytesRecorded);
    expect(j.notes).toContain("allocator options default to the snapshot's own allocator_settings (all at PyTorch's defaults); options given on the command line override them");
  });
});
