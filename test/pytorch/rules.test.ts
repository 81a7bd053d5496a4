import { describe, expect, it } from 'vitest';
import { pytorchFormatSize } from '../../src/allocators/recorded-text.js';
import { FrameTags, usefulFrame as tagOf } from '../../src/trace/pytorch/frames.js';
import type { PickleDict, PickleValue } from '../../src/trace/pytorch/pickle-value.js';
import { blockBytesFromFree, DEFAULT_RULES, roundSize, rulesFromSettings as fromSettings } from '../../src/trace/pytorch/round-size.js';
import type { PickleWritable } from '../../src/trace/pytorch/pickle-writer.js';
import { frame, MiB, settings } from './snapshot-helpers.js';

/** The test builders make writable data; the readers take what a pickle holds (the same shapes). */
const rulesFromSettings = (s: Record<string, PickleWritable> | undefined) => fromSettings(s as unknown as PickleDict | undefined);
const usefulFrame = (f: PickleWritable[] | undefined) => tagOf(f as unknown as PickleValue);

describe('round_size (DeviceCachingAllocator::round_size)', () => {
  it('rounds to 512-byte multiples by default, with 512 as the least', () => {
    expect([0, 1, 511, 512, 513, 1200, MiB + 1].map((n) => roundSize(n))).toEqual([512, 512, 512, 512, 1024, 1536, MiB + 512]);
  });

  it('rounds to power-of-two divisions when roundup_power2_divisions says so (the spec examples)', () => {
    const d4 = rulesFromSettings(settings('roundup_power2_divisions:4', { roundup_power2_divisions: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [String(2 ** i), 4])) }));
    // 3000 -> 3072; 1200 <= 512*4 stays on the 512 rule; powers of two stay. 5000 -> 5120, as
    // roundup_power2_next_division computes it (4096 + 4096/4); spec/caching.md's example says 6144.
    expect([3000, 5000, 1200, 4096, 2049].map((n) => roundSize(n, d4))).toEqual([3072, 5120, 1536, 4096, 2560]);
    // Per interval: 8 divisions only from 1 GiB (key "1024", the 11th interval).
    const perInterval = rulesFromSettings(settings('', { roundup_power2_divisions: { ...Object.fromEntries(Array.from({ length: 16 }, (_, i) => [String(2 ** i), 0])), '1024': 8 } }));
    expect(roundSize(1024 * MiB + 1, perInterval)).toBe(1024 * MiB + 128 * MiB);
    expect(roundSize(512 * MiB + 1, perInterval)).toBe(512 * MiB + 512);
  });

  it('reads max_split_size (-1 = unlimited) and expandable_segments from the settings', () => {
    expect(rulesFromSettings(settings()).maxSplitSizeBytes).toBe(Infinity);
    expect(rulesFromSettings(settings('', { max_split_size: 128 * MiB, expandable_segments: true }))).toMatchObject({ maxSplitSizeBytes: 128 * MiB, expandableSegments: true });
    expect(rulesFromSettings(undefined)).toBe(DEFAULT_RULES);
  });

  it('keeps a remainder in the block as should_split does', () => {
    // Small pool: a remainder of 512 B or more is split off.
    expect(blockBytesFromFree(1024, 1536, DEFAULT_RULES)).toBe(1024);
    // Large pool: only a remainder over 1 MiB is split off.
    expect(blockBytesFromFree(3 * MiB, 4 * MiB, DEFAULT_RULES)).toBe(4 * MiB);
    expect(blockBytesFromFree(3 * MiB, 4 * MiB + 512, DEFAULT_RULES)).toBe(3 * MiB);
    // At or above max_split_size nothing is split; with expandable segments the 512 rule holds.
    expect(blockBytesFromFree(200 * MiB, 210 * MiB, { ...DEFAULT_RULES, maxSplitSizeBytes: 128 * MiB })).toBe(210 * MiB);
    expect(blockBytesFromFree(3 * MiB, 4 * MiB, { ...DEFAULT_RULES, expandableSegments: true })).toBe(3 * MiB);
  });
});

describe("PyTorch's format_size", () => {
  it('prints bytes up to 1024, then two decimals rounded half to even', () => {
    expect([0, 1024, 1025, MiB, 1.125 * MiB, 1.375 * MiB, 20 * MiB, 1024 * MiB, 1024 * MiB + 1].map(pytorchFormatSize)).toEqual([
      '0 bytes',
      '1024 bytes',
      '1.00 KiB',
      '1024.00 KiB',
      '1.12 MiB',
      '1.38 MiB',
      '20.00 MiB',
      '1024.00 MiB',
      '1.00 GiB',
    ]);
  });
});

describe('tags from the innermost useful frame', () => {
  const cpp = [
    frame('??', 0, 'torch::unwind::unwind()'),
    frame('CUDACachingAllocator.cpp', 0, 'c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(unsigned long, CUstream_st*)'),
    frame('??', 0, 'at::detail::empty_strided_cuda(c10::ArrayRef<long>)'),
    frame('??', 0, '_PyEval_EvalFrameDefault'),
  ];
  it('skips the allocator, the interpreter, torch\'s Python files and generated kernels', () => {
    const stack = [
      ...cpp,
      frame('/tmp/torchinductor_u/ab/cabc.py', 102, 'call'),
      frame('/venv/lib/python3.10/site-packages/torch/nn/modules/module.py', 1787, '_call_impl'),
      frame('/home/u/model.py', 57, 'forward'),
      frame('/home/u/train.py', 9, '<module>'),
    ];
    expect(usefulFrame(stack)).toBe('/home/u/model.py:57:forward');
  });

  it('falls back to the innermost C++ frame the viewer shows that is not the allocator or ATen, named without its parameters', () => {
    expect(usefulFrame([...cpp, frame('engine.cpp', 0, 'my_extension::launch(int)')])).toBe('engine.cpp:0:my_extension::launch');
    expect(usefulFrame([...cpp, frame('??', 0, 'pthread_condattr_setpshared'), frame('??', 0, '__clone')])).toBeUndefined();
    expect(usefulFrame(cpp)).toBeUndefined();
    expect(usefulFrame([])).toBeUndefined();
    expect(usefulFrame(undefined)).toBeUndefined();
  });

  it('reads a shared frames list once', () => {
    const tags = new FrameTags();
    const stack = [frame('/home/u/a.py', 1, 'f')];
    expect(tags.tag(stack as unknown as PickleValue)).toBe('/home/u/a.py:1:f');
    stack[0]!['line'] = 2;
    // Same list object: the cached tag.
    expect(tags.tag(stack as unknown as PickleValue)).toBe('/home/u/a.py:1:f');
  });
});
