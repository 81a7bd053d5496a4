/**
 * The caching allocator against snapshots recorded on a GPU (test/fixtures/pytorch-gpu): every
 * placement, the final segments, torch.cuda.memory_stats(), the OOMs and their messages, and the
 * what-if of one setting against the same program recorded under that setting.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runCli } from '../helpers.js';

const DIR = join(FIXTURES, 'pytorch-gpu');

interface Recording {
  per_process_memory_fraction: number | null;
  total_memory: number;
  ooms: string[];
  memory_stats: Record<string, number>;
}

const recording = (name: string): Recording => JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Recording;

/** The replay of a recording with what the program set (the fraction) and the device's total. */
function replay(name: string, ...args: string[]) {
  const r = recording(name);
  const fraction = r.per_process_memory_fraction === null ? [] : ['--option', `per_process_memory_fraction=${r.per_process_memory_fraction}`];
  const out = runCli(['replay', join(DIR, `${name}.pickle`), '--allocator', 'caching', '--capacity', String(r.total_memory), ...fraction, '--format', 'json', ...args]);
  expect(out.stderr).toBe('');
  expect(out.code).toBe(0);
  return JSON.parse(out.stdout);
}

// Allocations each program made, counted from scripts/record-snapshots.py.
// gpt2's 1656, gpt2-cpp's 625 and gpt2-cpp-oom's 456 are the alloc entries of their traces.
const ALLOCATIONS: Record<string, number> = {
  basics: 25,
  'oom-fraction': 28,
  expandable: 18,
  tuned: 24,
  train: 313,
  'train-expandable': 313,
  'train-oom': 274,
  'train-oom-expandable': 274,
  'oom-device': 8,
  streams: 11,
  gpt2: 1656,
  'gpt2-cpp': 625,
  'gpt2-cpp-oom': 456,
  'tuned-list': 20,
  'train-tuned-list': 274,
};

// Releases of the cache that leave no trace a replay can tell apart: empty_cache() (a stream sync
// each) and a retry that succeeded after releasing the cache (a sync and a retry).
const UNSEEN: Record<string, { retries: number; syncs: number }> = {
  basics: { retries: 0, syncs: 2 },
  'oom-fraction': { retries: 1, syncs: 1 },
  expandable: { retries: 0, syncs: 3 },
  tuned: { retries: 0, syncs: 0 },
  train: { retries: 0, syncs: 0 },
  'train-expandable': { retries: 0, syncs: 0 },
  'train-oom': { retries: 1, syncs: 1 },
  'train-oom-expandable': { retries: 0, syncs: 0 },
  'oom-device': { retries: 0, syncs: 0 },
  streams: { retries: 0, syncs: 0 },
  gpt2: { retries: 0, syncs: 0 },
  'gpt2-cpp': { retries: 0, syncs: 0 },
  'gpt2-cpp-oom': { retries: 0, syncs: 0 },
  'tuned-list': { retries: 0, syncs: 0 },
  'train-tuned-list': { retries: 0, syncs: 0 },
};

const GAUGES = ['allocated_bytes', 'reserved_bytes', 'active_bytes', 'inactive_split_bytes', 'allocation', 'segment', 'active', 'inactive_split'];

/** PyTorch's message less the NVML process line, which a simulation cannot know. */
const withoutProcessLine = (m: string) => m.replace(/Including non-PyTorch memory, this process has \S+ \S+ memory in use\. /, '');

describe('the caching allocator on snapshots recorded on a GPU', () => {
  for (const name of Object.keys(ALLOCATIONS)) {
    it(`${name}: every placement, the final segments, memory_stats and the OOMs as the GPU had them`, () => {
      const r = recording(name);
      const j = replay(name);
      expect(j.start.mode).toBe('recorded');
      const f = j.fidelity;
      expect(f).toMatchObject({ allocations: ALLOCATIONS[name], sameAddress: ALLOCATIONS[name], withAllocatedBytes: ALLOCATIONS[name], sameAllocatedBytes: ALLOCATIONS[name] });
      expect(f.reservedBytesSimulated).toBe(f.reservedBytesRecorded);
      expect(f.finalBlocks.identical).toBe(f.finalBlocks.recorded);
      expect(f.mismatches).toEqual([]);

      const sim = j.allocator.stats;
      const real = r.memory_stats;
      for (const g of GAUGES) {
        expect([g, sim.memory_stats[g].current, sim.memory_stats[g].peak]).toEqual([g, real[`${g}.all.current`], real[`${g}.all.peak`]]);
      }
      for (const k of ['oversize_allocations', 'oversize_segments']) {
        expect([k, sim[k].current, sim[k].peak]).toEqual([k, real[`${k}.current`], real[`${k}.peak`]]);
      }
      for (const k of ['num_ooms', 'num_device_alloc', 'num_device_free']) expect([k, sim[k]]).toEqual([k, real[k]]);
      expect(sim.num_alloc_retries).toBe((real['num_alloc_retries'] as number) - UNSEEN[name]!.retries);
      expect(sim.num_sync_all_streams).toBe((real['num_sync_all_streams'] as number) - UNSEEN[name]!.syncs);

      const ooms = (f.recordedOoms ?? []) as { reproduced: boolean; message: string }[];
      expect(ooms.map((o) => o.reproduced)).toEqual(r.ooms.map(() => true));
      expect(ooms.map((o) => o.message)).toEqual(r.ooms.map(withoutProcessLine));
    });
  }

  it('a what-if of expandable segments on one recording gives what the GPU reserved when the program ran so', () => {
    for (const [from, to, value] of [
      ['train', 'train-expandable', 'true'],
      ['train-expandable', 'train', 'false'],
    ] as const) {
      const j = replay(from, '--option', `expandable_segments=${value}`);
      expect(j.start.mode).toBe('fresh');
      const real = recording(to).memory_stats;
      const m = j.allocator.stats.memory_stats;
      expect([m.reserved_bytes.peak, m.reserved_bytes.current, m.allocated_bytes.peak]).toEqual([
        real['reserved_bytes.all.peak'],
        real['reserved_bytes.all.current'],
        real['allocated_bytes.all.peak'],
      ]);
    }
  });

  it('without the fraction, says a limit was in force and bounds it around the real one', () => {
    for (const name of ['oom-fraction', 'tuned', 'train-oom', 'train-oom-expandable', 'gpt2-cpp-oom']) {
      const r = recording(name);
      const out = runCli(['replay', join(DIR, `${name}.pickle`), '--allocator', 'caching', '--format', 'json']);
      expect(out.code).toBe(0);
      const j = JSON.parse(out.stdout);
      expect(j.fidelity.recordedOoms.every((o: { reproduced: boolean }) => o.reproduced === false)).toBe(true);
      const note = (j.notes as string[]).find((n) => n.includes('a limit the snapshot does not record was in force'));
      const m = /of at least .* \((\d+) bytes, the most the run reserved\) and below .* \((\d+) bytes\)/.exec(note ?? '');
      expect(m).not.toBeNull();
      const allowed = Math.floor((r.per_process_memory_fraction as number) * r.total_memory);
      expect(Number(m![1])).toBeLessThanOrEqual(allowed);
      expect(Number(m![2])).toBeGreaterThan(allowed);
    }
  });

  it('the minimum capacity is where the GPU stopped failing: the program fits in it, and fails one byte below', () => {
    // The runs under a fraction: allowed bytes and OOMs, per program.
    const runs = new Map<string, { allowed: number; ooms: number }[]>();
    for (const f of readdirSync(join(DIR, 'capacity')).sort()) {
      const m = /^([^+]+)@(\d+)\.json$/.exec(f);
      if (!m) continue;
      const r = JSON.parse(readFileSync(join(DIR, 'capacity', f), 'utf8')) as Recording;
      runs.set(m[1]!, [...(runs.get(m[1]!) ?? []), { allowed: Number(m[2]), ooms: r.ooms.length }]);
    }
    expect([...runs.keys()].sort()).toEqual(['gpt2', 'train', 'train-expandable']);
    const minimum = (name: string, allocator = 'caching'): number => {
      const out = runCli(['compare', join(DIR, `${name}.pickle`), '--allocators', allocator, '--min-capacity', '--capacity-step', '1', '--format', 'json']);
      expect(out.code).toBe(0);
      return JSON.parse(out.stdout).allocators[0].minCapacityBytes as number;
    };
    for (const [name, list] of runs) {
      const fits = list.filter((r) => r.ooms === 0).map((r) => r.allowed);
      const fails = list.filter((r) => r.ooms > 0).map((r) => r.allowed);
      const boundary = Math.min(...fits);
      expect(Math.max(...fails)).toBe(boundary - 1);
      expect([name, minimum(name)]).toEqual([name, boundary]);
    }
    // The what-if: the default run, simulated with expandable segments, needs what the program needed when it ran so.
    expect(minimum('train', 'caching[expandable_segments=true]')).toBe(Math.min(...runs.get('train-expandable')!.filter((r) => r.ooms === 0).map((r) => r.allowed)));
  });

  it('tune names a setting under which the program fitted on the GPU where its own setting failed', () => {
    const out = runCli(['tune', join(DIR, 'gpt2.pickle'), '--allocators', 'caching', '--capacity', '1000000000', '--format', 'json']);
    expect(out.code).toBe(0);
    const rec = JSON.parse(out.stdout).recommendation;
    expect(rec.setting).toBe('PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:64');
    const ran = (f: string) => JSON.parse(readFileSync(join(DIR, 'capacity', f), 'utf8')) as Recording;
    const current = ran('gpt2@1000000000.json');
    const tuned = ran('gpt2+max_split_size_mb-64@1000000000.json');
    expect([rec.current.fits, current.ooms.length > 0]).toEqual([false, true]);
    expect(rec.current.peakReservedBytes).toBe(current.memory_stats['reserved_bytes.all.peak']);
    expect([rec.fits, tuned.ooms.length]).toEqual([true, 0]);
  });
});
