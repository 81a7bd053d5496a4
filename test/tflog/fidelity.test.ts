import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlacementFidelity } from '../../src/sim/fidelity.js';
import { replay } from '../../src/sim/run.js';
import { readTrace } from '../../src/trace/read.js';
import { runCli, tempDir } from '../helpers.js';

const FRESH = join(import.meta.dirname, 'fixtures', 'bfc-fresh-process.log');

describe('fidelity of a simulation against a TensorFlow log', () => {
  it('bfc reproduces the logged allocated_bytes and ptr offsets of a fresh process (hand-computed log)', () => {
    const r = replay(readTrace(FRESH), { allocator: 'bfc' }).report;
    expect(r['fidelity']).toEqual({
      recordedAllocator: 'tensorflow-bfc',
      allocations: 6,
      withAllocatedBytes: 6,
      sameAllocatedBytes: 6,
      sameAllocatedBytesRatio: 1,
      withAddress: 6,
      sameOffset: 6,
      sameOffsetRatio: 1,
      // BFC's default base is not the process's address, and without allow_growth it reserves the whole limit
      sameAddress: 0,
      sameAddressRatio: 0,
      reservedBytesSimulated: 80 * 2 ** 30,
      reservedBytesRecorded: null,
      origin: { event: 0, recordedAddress: '0x7f2a00000000', simulatedAddress: '0x10000000000' },
      simulatesRecordedKind: true,
      mismatches: [],
    } satisfies PlacementFidelity);
    expect(r.notes).toContain(
      'fidelity against the recorded tensorflow-bfc history: 6 of 6 allocations got the recorded block size (100.00%); 6 of 6 sit at the recorded offset ' +
        'from the first one (100.00%) (offsets agree only where the real allocator started fresh and stayed in its first region).',
    );
  });

  it('names the allocations placed otherwise, with both offsets and block sizes', () => {
    // As if the real allocator had split the free 1 KiB chunk for "d" and put "e" past "c".
    const text = readFileSync(FRESH, 'utf8')
      .replace('requested_bytes: 600 allocated_bytes: 1024', 'requested_bytes: 600 allocated_bytes: 768')
      .replace(`allocation_id: 5 has_single_reference: true ptr: ${0x7f2a00000000 + 1024}`, `allocation_id: 5 has_single_reference: true ptr: ${0x7f2a00000000 + 4352}`);
    const file = join(tempDir(), 'moved.log');
    writeFileSync(file, text);
    const f = replay(readTrace(file), { allocator: 'bfc' }).report['fidelity'] as PlacementFidelity;
    expect(f).toMatchObject({ allocations: 6, sameAllocatedBytes: 5, sameAllocatedBytesRatio: 0.833333, sameOffset: 5, sameOffsetRatio: 0.833333 });
    expect(f.mismatches).toEqual([
      { event: 4, line: 7, id: '4', sizeBytes: 600, recorded: { offsetBytes: 0, allocatedBytes: 768 }, simulated: { offsetBytes: 0, allocatedBytes: 1024 } },
      { event: 6, line: 9, id: '5', sizeBytes: 1024, recorded: { offsetBytes: 4352, allocatedBytes: 1024 }, simulated: { offsetBytes: 1024, allocatedBytes: 1024 } },
    ]);
  });

  it('any simulated allocator is compared (naive: 512-byte blocks); the recorded allocator is not', () => {
    const t = readTrace(FRESH);
    const naive = replay(t, { allocator: 'naive' }).report['fidelity'] as PlacementFidelity;
    // c asks 256 B: naive gives 512, BFC gave 256
    expect(naive).toMatchObject({ allocations: 6, withAllocatedBytes: 6, sameAllocatedBytes: 5 });
    expect(naive.mismatches.map((m) => m.id)).toEqual(['3']);
    expect(replay(t, { allocator: 'recorded' }).report['fidelity']).toBeUndefined();
  });

  it('memsim replay tf.log --allocator bfc: the fidelity block in JSON, the line in the text report', () => {
    const json = runCli(['replay', FRESH, '--allocator', 'bfc', '--format', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).fidelity).toMatchObject({ sameAllocatedBytes: 6, sameOffset: 6 });
    expect(runCli(['replay', FRESH, '--allocator', 'bfc']).stdout).toContain('6 of 6 sit at the recorded offset from the first one (100.00%)');
  });
});

describe('fidelity against an allocator of another kind', () => {
  // The same log, its allocator renamed "cpu" (a CPU allocator that tracks sizes), and one GPU_0_bfc allocation.
  const text =
    readFileSync(FRESH, 'utf8').replaceAll('allocator_name: "GPU_0_bfc"', 'allocator_name: "cpu"') +
    '2024-05-01 10:00:02.000001: I tensorflow/core/framework/log_memory.cc:35] __LOG_MEMORY__ MemoryLogTensorAllocation { step_id: 2 kernel_name: "g" tensor { dtype: DT_FLOAT shape { dim { size: 4 } } allocation_description { requested_bytes: 16 allocated_bytes: 256 allocator_name: "GPU_0_bfc" allocation_id: 1 has_single_reference: true ptr: 139818365353984 } } }\n';
  const file = join(tempDir(), 'cpu.log');
  writeFileSync(file, text);

  it('bfc on the log\'s cpu allocator: the fidelity says it compares unlike allocators and names the log\'s BFC allocator', () => {
    const r = replay(readTrace(file, { allocatorName: 'cpu' }), { allocator: 'bfc' }).report;
    expect(r['fidelity']).toMatchObject({ recordedAllocator: 'cpu', allocations: 6, simulatesRecordedKind: false });
    expect(r.notes).toContain(
      'fidelity compares unlike allocators: the recorded allocator "cpu" is not a BFC allocator, which bfc simulates; ' +
        "the trace's one of that kind: \"GPU_0_bfc\" (pick with --allocator-name GPU_0_bfc).",
    );
  });

  it('bfc on the BFC allocator: no such note; an allocator that models no kind (naive) makes no claim', () => {
    const t = readTrace(file, { allocatorName: 'GPU_0_bfc' });
    const r = replay(t, { allocator: 'bfc' }).report;
    expect(r['fidelity']).toMatchObject({ recordedAllocator: 'tensorflow-bfc', simulatesRecordedKind: true });
    expect(r.notes.some((n) => n.includes('unlike allocators'))).toBe(false);
    const naive = replay(readTrace(file, { allocatorName: 'cpu' }), { allocator: 'naive' }).report;
    expect(naive['fidelity']).not.toHaveProperty('simulatesRecordedKind');
  });

  it('the CLI says it too', () => {
    const r = runCli(['replay', file, '--allocator', 'bfc', '--allocator-name', 'cpu']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('the recorded allocator "cpu" is not a BFC allocator, which bfc simulates');
  });
});
