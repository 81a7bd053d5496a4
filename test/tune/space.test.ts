import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocConfLine, compactRoundup, parseAllocConf } from '../../src/allocators/caching/index.js';
import { tensorflowSetting } from '../../src/allocators/bfc/index.js';
import { countRuns, deeprecSetting } from '../../src/allocators/lifetime-pool/index.js';
import { UsageError } from '../../src/errors.js';
import { buildSpaces, defaultAllocators, enumeratePoints, isSearched, parseSpaceFlags, pointName } from '../../src/sweep/space.js';
import { alloc, free, MiB, traceFromEvents } from '../helpers.js';

// Five runs of step ids (1, 1, 2, 3, 3, 4, 5): DeepRec counts runs, not ids.
const fiveRuns = traceFromEvents([
  alloc('a', MiB, { step: 1 }), free('a', { step: 1 }), alloc('b', MiB, { step: 2 }), alloc('c', MiB, { step: 3 }),
  free('b', { step: 3 }), free('c', { step: 4 }), alloc('d', MiB, { step: 5 }),
]);

describe('what-if spaces from the registry', () => {
  it('declares the issue grids: caching 2 × 6 × 5, bfc 2 × 2 × 3, naive a reference row', () => {
    const [naive, bfc, caching] = buildSpaces(fiveRuns, ['naive', 'bfc', 'caching'], []);
    expect(naive?.isReference).toBe(true);
    expect(naive?.points).toBe(1);
    expect(bfc?.keys).toEqual([
      { key: 'allow_growth', values: ['false', 'true'] },
      { key: 'garbage_collection', values: ['true', 'false'] },
      { key: 'fragmentation_fraction', values: ['0', '0.05', '0.1'] },
    ]);
    expect(caching?.keys.map((k) => [k.key, k.values.length])).toEqual([
      ['expandable_segments', 2],
      ['max_split_size_mb', 6],
      ['roundup_power2_divisions', 5],
    ]);
    expect(caching?.points).toBe(60);
    expect(isSearched(caching!, false)).toBe(false);
  });

  it('adds the GC threshold only under a memory fraction, and then searches the 180 points', () => {
    const spaces = buildSpaces(fiveRuns, ['caching'], parseSpaceFlags(['per_process_memory_fraction=0.9']));
    // the fraction is a key of its own now, but the current configuration has none in force
    expect(spaces[0]?.keys.map((k) => k.key)).toEqual(['expandable_segments', 'max_split_size_mb', 'roundup_power2_divisions', 'per_process_memory_fraction']);
    const withFraction = traceFromEvents([alloc('a', MiB), free('a')]);
    withFraction.recorded = undefined;
    const s = buildSpaces(withFraction, ['caching'], [])[0]!;
    s.current['per_process_memory_fraction'] = 0.9;
    const keys = s.def.whatIf!.keys(withFraction, s.current);
    expect(keys.map((k) => k.key)).toEqual(['expandable_segments', 'max_split_size_mb', 'roundup_power2_divisions', 'garbage_collection_threshold']);
    expect(keys.reduce((n, k) => n * k.values.length, 1)).toBe(180);
  });

  it('fits lifetime-pool grids to the trace: start_step up to half its runs, stable_steps up to a quarter', () => {
    expect(countRuns(fiveRuns)).toBe(5);
    const [lp] = buildSpaces(fiveRuns, ['lifetime-pool'], []);
    expect(lp?.keys).toEqual([
      { key: 'start_step', values: ['1', '2'] },
      { key: 'stable_steps', values: ['1'] },
    ]);
    const long = traceFromEvents(Array.from({ length: 400 }, (_, k) => [alloc(`x${k}`, MiB, { step: k }), free(`x${k}`, { step: k })]).flat());
    expect(buildSpaces(long, ['lifetime-pool'], [])[0]?.keys).toEqual([
      { key: 'start_step', values: ['1', '2', '5', '10'] },
      { key: 'stable_steps', values: ['1', '2', '5', '10'] },
    ]);
  });

  it('--space narrows or widens a key, for every allocator with it or for one', () => {
    const [caching] = buildSpaces(fiveRuns, ['caching'], parseSpaceFlags(['max_split_size_mb=none,256', 'caching.roundup_power2_divisions=[256:1,>:8],off', 'max_non_split_rounding_mb=20,40']));
    expect(caching?.keys).toEqual([
      { key: 'expandable_segments', values: ['false', 'true'] },
      { key: 'max_split_size_mb', values: ['none', '256'] },
      { key: 'roundup_power2_divisions', values: ['[256:1,>:8]', 'off'] },
      { key: 'max_non_split_rounding_mb', values: ['20', '40'] },
    ]);
    expect(caching?.points).toBe(16);
  });

  it('refuses a --space the allocators cannot take, with exit-2 errors naming it', () => {
    expect(() => buildSpaces(fiveRuns, ['caching'], parseSpaceFlags(['max_split_size_mb=10']))).toThrow('allocator "caching", option max_split_size_mb=10: CachingAllocator option max_split_size_mb too small, must be >= 20');
    expect(() => buildSpaces(fiveRuns, ['caching'], parseSpaceFlags(['page=4KiB']))).toThrow('--space page: no tuned allocator has an option "page"');
    expect(() => buildSpaces(fiveRuns, ['caching', 'naive'], parseSpaceFlags(['naive.page=4KiB']))).toThrow('naive has nothing to tune (it is a reference row)');
    expect(() => buildSpaces(fiveRuns, ['caching'], parseSpaceFlags(['bfc.allow_growth=true']))).toThrow('"bfc" is not tuned here (tuned: caching)');
    expect(() => parseSpaceFlags(['max_split_size_mb'])).toThrow(UsageError);
    expect(() => parseSpaceFlags(['max_split_size_mb=64,64'])).toThrow('a value is listed twice');
    expect(() => buildSpaces(fiveRuns, ['recorded'], [])).toThrow('needs a trace with a recorded history');
    expect(() => buildSpaces(fiveRuns, ['caching[expandable_segments=true]'], [])).toThrow('tune takes allocator names');
  });

  it('names points by what they change against the current configuration, current first, no repeats', () => {
    const [caching] = buildSpaces(fiveRuns, ['caching'], parseSpaceFlags(['max_split_size_mb=none,256', 'roundup_power2_divisions=off']));
    const names = enumeratePoints(caching!).map((p) => pointName(caching!, p));
    expect(names).toEqual(['caching', 'caching[max_split_size_mb=256]', 'caching[expandable_segments=true]', 'caching[expandable_segments=true,max_split_size_mb=256]']);
  });

  it('--current states the options in force now: they name every row, and the GC threshold joins under a memory fraction', () => {
    const [caching] = buildSpaces(fiveRuns, ['caching'], parseSpaceFlags(['max_split_size_mb=none,256', 'roundup_power2_divisions=off']), ['caching[per_process_memory_fraction=0.9,expandable_segments=true]']);
    expect(caching?.keys.map((k) => k.key)).toEqual(['expandable_segments', 'max_split_size_mb', 'roundup_power2_divisions', 'garbage_collection_threshold']);
    expect(caching?.current['expandable_segments']).toBe(true);
    const names = enumeratePoints(caching!).map((p) => pointName(caching!, p));
    expect(names[0]).toBe('caching[per_process_memory_fraction=0.9,expandable_segments=true]');
    expect(names).toContain('caching[per_process_memory_fraction=0.9,expandable_segments=false,max_split_size_mb=256,garbage_collection_threshold=0.8]');
    expect(names).toHaveLength(12);
    expect(() => buildSpaces(fiveRuns, ['caching'], [], ['bfc[allow_growth=true]'])).toThrow('--current bfc[allow_growth=true]: "bfc" is not tuned here (tuned: caching)');
    expect(() => buildSpaces(fiveRuns, ['caching'], [], ['caching[a=1]'])).toThrow('allocator "caching" has no option "a"');
    expect(() => buildSpaces(fiveRuns, ['caching', 'naive'], [], ['naive[page=4KiB]'])).toThrow('--current: naive has nothing to tune');
  });

  it('defaults to the recording\'s allocator for a snapshot, else to every allocator', () => {
    expect(defaultAllocators(fiveRuns)).toEqual(['naive', 'bfc', 'caching', 'lifetime-pool']);
    const snap = traceFromEvents([alloc('a', MiB), free('a')]);
    snap.recorded = { allocator: 'pytorch-caching', address: new Float64Array(1), allocatedBytes: new Float64Array(1), segmentEvents: [], initialSegments: [] };
    expect(defaultAllocators(snap)).toEqual(['caching', 'recorded']);
  });
});

describe('settings as the user types them', () => {
  it('caching: PYTORCH_CUDA_ALLOC_CONF with the keys in force', () => {
    const base = { conf: '', max_split_size_mb: null, max_non_split_rounding_mb: 20, roundup_power2_divisions: '', garbage_collection_threshold: 0, expandable_segments: false, per_process_memory_fraction: null };
    expect(allocConfLine(base)).toBe('unset PYTORCH_CUDA_ALLOC_CONF');
    expect(allocConfLine({ ...base, expandable_segments: true, max_split_size_mb: 256 })).toBe('PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:256');
    const divs = '[1:1,2:1,4:1,8:1,16:1,32:1,64:1,128:1,256:1,512:2,1024:4,2048:8,4096:8,8192:8,16384:8,32768:8]';
    expect(allocConfLine({ ...base, roundup_power2_divisions: divs, garbage_collection_threshold: 0.6, per_process_memory_fraction: 0.9 })).toBe(
      'PYTORCH_CUDA_ALLOC_CONF=roundup_power2_divisions:[256:1,512:2,1024:4,>:8],garbage_collection_threshold:0.6,per_process_memory_fraction:0.9',
    );
  });

  it('compact roundup lists parse back to the same divisions', () => {
    const pow2 = fc.constantFrom(0, 1, 2, 4, 8, 16);
    fc.assert(
      fc.property(fc.array(pow2, { minLength: 16, maxLength: 16 }), (divs) => {
        const text = compactRoundup(divs);
        if (text === '') return expect(divs.every((d) => d === 0)).toBe(true);
        // a single value of 0 is not PyTorch syntax; compactRoundup writes it only when all are 0
        expect(parseAllocConf(`roundup_power2_divisions:${text}`).roundupPower2Divisions).toEqual(divs);
      }),
    );
    expect(compactRoundup([1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 8, 8, 8, 8, 8])).toBe('[256:1,512:2,1024:4,>:8]');
  });

  it('bfc: TensorFlow\'s environment variables, and GPUOptions for the split threshold', () => {
    const base = { allow_growth: false, garbage_collection: true, fragmentation_fraction: 0, coalesce_regions: false, memory_limit: null, name: 'GPU_0_bfc' };
    expect(tensorflowSetting(base)).toBe('unset TF_FORCE_GPU_ALLOW_GROWTH TF_ENABLE_GPU_GARBAGE_COLLECTION');
    expect(tensorflowSetting({ ...base, allow_growth: true })).toBe('TF_FORCE_GPU_ALLOW_GROWTH=true');
    expect(tensorflowSetting({ ...base, allow_growth: true, garbage_collection: false, fragmentation_fraction: 0.05 })).toBe(
      'TF_FORCE_GPU_ALLOW_GROWTH=true TF_ENABLE_GPU_GARBAGE_COLLECTION=false; tf.compat.v1.ConfigProto(gpu_options=tf.compat.v1.GPUOptions(experimental=tf.compat.v1.GPUOptions.Experimental(internal_fragmentation_fraction=0.05)))',
    );
  });

  it('lifetime-pool: DeepRec\'s environment variables off their defaults', () => {
    expect(deeprecSetting({ start_step: 100, stable_steps: 10, max_steps: 100 })).toBe('unset START_STATISTIC_STEP STABLE_STATISTIC_STEP MAX_STATISTIC_STEP');
    expect(deeprecSetting({ start_step: 2, stable_steps: 1, max_steps: 100 })).toBe('START_STATISTIC_STEP=2 STABLE_STATISTIC_STEP=1');
  });
});
