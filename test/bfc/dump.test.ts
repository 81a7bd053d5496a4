/** TensorFlow's OOM text, byte for byte. */
import { describe, expect, it } from 'vitest';
import { humanReadableNumBytes } from '../../src/allocators/bfc/index.js';
import { FAILED } from '../../src/allocators/types.js';
import { replay } from '../../src/sim/run.js';
import { alloc, free, GiB, MiB, traceFromEvents } from '../helpers.js';
import { SPEC_DUMP } from './spec-dump.js';
import { give, makeBfc, must, take } from './util.js';

describe('bfc OOM dump', () => {
  it("reproduces the spec's example to the byte (a, b, c of 256 B, b freed, then 2 GiB)", () => {
    const t = traceFromEvents([alloc('a', 256), alloc('b', 256), alloc('c', 256), free('b'), alloc('d', 2 * GiB)]);
    const r = replay(t, { allocator: 'bfc', capacityBytes: GiB });
    expect(r.report.ooms).toHaveLength(1);
    expect(r.report.ooms[0]!.native).toBe(SPEC_DUMP);
    expect(r.report.ooms[0]!.kind).toBe('capacity');
  });

  it('with an op name, prints it and the advice lines TensorFlow adds', () => {
    const t = traceFromEvents([alloc('a', 256), alloc('d', 2 * GiB, { tag: 'MatMul_1' })]);
    const native = replay(t, { allocator: 'bfc', capacityBytes: GiB }).report.ooms[0]!.native.split('\n');
    expect(native.slice(0, 5)).toEqual([
      'Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.00GiB (rounded to 2147483648)requested by op MatMul_1',
      "If the cause is memory fragmentation maybe the environment variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' will improve the situation. ",
      'Current allocation summary follows.',
      'Current allocation summary follows.',
      'BFCAllocator dump for GPU_0_bfc',
    ]);
  });

  it('shows recycled chunk handles in `next`, most recently released first', () => {
    // Limit 1 MiB. x, y, z, w of 256 B take handles 0..3 and the rest of the region is handle 4.
    const a = makeBfc(MiB);
    const [x, y, , w] = [256, 256, 256, 256].map((n) => must(a, n)) as [number, number, number, number];
    give(a, y); // neighbours in use: stays handle 1
    give(a, x); // x absorbs y (its next): handle 1 is released
    give(a, w); // w absorbs the rest (its next): handle 4 is released, on top of 1
    must(a, 256); // x+y (512 B at 0) is the best fit: split, the remainder takes handle 4
    must(a, 256); // the 256 B chunk with handle 4, unsplit
    must(a, 256); // w+rest: split, the remainder takes handle 1
    expect(take(a, 2 * MiB)).toBe(FAILED);
    const lines = a.lastFailure().native.split('\n');
    const chunkLines = lines.slice(lines.indexOf('Next region of size 1048576') + 1, lines.indexOf('     Summary of in-use Chunks by size: '));
    expect(chunkLines).toEqual([
      'InUse at 10000000000 of size 256 next 4',
      'InUse at 10000000100 of size 256 next 2',
      'InUse at 10000000200 of size 256 next 3',
      'InUse at 10000000300 of size 256 next 1',
      'Free  at 10000000400 of size 1047552 next 18446744073709551615',
    ]);
  });

  it("prints a reused handle's stale requested size, as TensorFlow's chunk table keeps it", () => {
    // Limit 1 MiB: p (2 KiB, handle 0), q (300 B in 512, handle 1), a guard (handle 2), the rest (3).
    const a = makeBfc(MiB);
    const p = must(a, 2048);
    const q = must(a, 300);
    must(a, 256);
    give(a, q); // both neighbours in use: q stays apart
    give(a, p); // p absorbs q: handle 1 (last requested 300 B) is released
    must(a, 512); // p+q (2560 B) splits: the 2048 B remainder reuses handle 1
    must(a, MiB - 2816); // takes the rest of the region exactly
    expect(take(a, 3840)).toBe(FAILED); // bin 3 (2 KiB) holds only the remainder
    const lines = a.lastFailure().native.split('\n');
    const at = lines.indexOf('Bin for 3.8KiB was 2.0KiB, Chunk State: ');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe(
      '  Size: 2.0KiB | Requested Size: 300B | in_use: 0 | bin_num: 3, prev:   Size: 512B | Requested Size: 512B | in_use: 1 | bin_num: -1, ' +
        'next:   Size: 256B | Requested Size: 256B | in_use: 1 | bin_num: -1',
    );
    expect(lines[at + 2]).toBe('Next region of size 1048576');
  });

  it('renders occupancy: * requested, x unsplit waste, _ free', () => {
    // 100 columns of 256 B. a (1 KiB) and b (256 B); a freed and reused by 600 B without a split.
    const a = makeBfc(25600);
    const h = must(a, 1024);
    must(a, 256);
    give(a, h);
    expect(a.blockBytes(must(a, 600))).toBe(1024);
    expect(take(a, 1 << 20)).toBe(FAILED);
    const lines = a.lastFailure().native.split('\n');
    expect(lines.at(-2)).toBe('***x*' + '_'.repeat(95));
  });

  it('says "<allocator contains no memory>" and lists no region when nothing was ever reserved', () => {
    const a = makeBfc(MiB, { allowGrowth: true });
    expect(take(a, 2 * MiB)).toBe(FAILED);
    const lines = a.lastFailure().native.split('\n');
    expect(lines.at(-2)).toBe('<allocator contains no memory>');
    expect(lines.some((l) => l.startsWith('Next region'))).toBe(false);
    expect(lines).toContain('total_region_allocated_bytes_: 0 memory_limit_: 1048576 available bytes: 1048576 curr_region_allocation_bytes_: 1048576');
  });

  it('gives a compact summary for the text report', () => {
    const t = traceFromEvents([alloc('a', 256), alloc('b', 256), alloc('c', 256), free('b'), alloc('d', 2 * GiB)]);
    const o = replay(t, { allocator: 'bfc', capacityBytes: GiB }).report.ooms[0]!;
    expect(o.nativeSummary!.split('\n')).toEqual([
      'Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.00GiB (rounded to 2147483648)requested by op ',
      'Bin for 2.00GiB was 256.00MiB, Chunk State: 1 free chunk',
      '  Size: 1024.00MiB | Requested Size: 0B | in_use: 0 | bin_num: 20',
      'Next region of size 1073741824 at 10000000000: 2 in use (512B), 2 free (largest 1024.00MiB)',
      'Sum Total of in-use chunks: 512B',
      'total_region_allocated_bytes_: 1073741824 memory_limit_: 1073741824 available bytes: 0 curr_region_allocation_bytes_: 2147483648',
      '*___________________________________________________________________________________________________',
    ]);
  });
});

describe("TensorFlow's HumanReadableNumBytes", () => {
  it('prints bytes, KiB with one decimal, larger units with two', () => {
    expect(humanReadableNumBytes(0)).toBe('0B');
    expect(humanReadableNumBytes(1023)).toBe('1023B');
    expect(humanReadableNumBytes(1024)).toBe('1.0KiB');
    expect(humanReadableNumBytes(1000192)).toBe('976.8KiB');
    expect(humanReadableNumBytes(1048575)).toBe('1024.0KiB');
    expect(humanReadableNumBytes(1048576)).toBe('1.00MiB');
    expect(humanReadableNumBytes(2 * GiB)).toBe('2.00GiB');
    expect(humanReadableNumBytes(13200000000)).toBe('12.29GiB');
  });

  it('divides with truncation before printing (1073741056 B is 1048575 KiB: 1024.00MiB)', () => {
    expect(humanReadableNumBytes(1073741056)).toBe('1024.00MiB');
    expect(humanReadableNumBytes(-1536)).toBe('-1.5KiB');
  });

  it("rounds halves to even as glibc's printf does (TF prints 4 × 294912 B as 1.12MiB)", () => {
    expect(humanReadableNumBytes(4 * 294912)).toBe('1.12MiB'); // 1.125: toFixed would say 1.13
    expect(humanReadableNumBytes(3538944)).toBe('3.38MiB'); // 3.375
    expect(humanReadableNumBytes(1280)).toBe('1.2KiB'); // 1.25
    expect(humanReadableNumBytes(1792)).toBe('1.8KiB'); // 1.75
  });
});
