import { describe, expect, it } from 'vitest';
import { formatSize } from '../../src/allocators/caching/oom.js';
import { allocationSize, floorLog2, roundSize, roundupPower2NextDivision } from '../../src/allocators/caching/sizes.js';
import { KiB, MiB, GiB } from '../helpers.js';

const divs = (d: number): number[] => new Array<number>(16).fill(d);

describe('round_size', () => {
  it('rounds below 512 up to 512 and otherwise to a multiple of 512 when no divisions are set', () => {
    expect(roundSize(1, divs(0))).toBe(512);
    expect(roundSize(511, divs(0))).toBe(512);
    expect(roundSize(512, divs(0))).toBe(512);
    expect(roundSize(513, divs(0))).toBe(1024);
    expect(roundSize(3000, divs(0))).toBe(3072);
    expect(roundSize(MiB + 1, divs(0))).toBe(MiB + 512);
  });

  it('rounds to power-of-two divisions above 512·d (3000 -> 3072, 5000 -> 5120 with d=4; 1200 -> 1536 as a multiple of 512)', () => {
    // 3000 lies in [2048, 4096): steps of 512, next is 3072.
    expect(roundSize(3000, divs(4))).toBe(3072);
    // 5000 lies in [4096, 8192): steps of 1024 (4096, 5120, 6144, 7168), next is 5120 as
    // roundup_power2_next_division computes it; 6144 is the next step with d=2.
    expect(roundSize(5000, divs(4))).toBe(5120);
    expect(roundSize(5000, divs(2))).toBe(6144);
    // 1200 <= 512·4: no divisions, a multiple of 512.
    expect(roundSize(1200, divs(4))).toBe(1536);
    // Powers of two stay; an exact division stays.
    expect(roundSize(4096, divs(4))).toBe(4096);
    expect(roundSize(5120, divs(4))).toBe(5120);
    expect(roundSize(100 * MiB + 1, divs(4))).toBe(112 * MiB);
  });

  it('takes the divisions of the size interval (floor(log2 n) - 20, clamped to 0..15)', () => {
    const d = divs(0);
    d[0] = 8; // sizes under 2 MiB, including those under 1 MiB
    d[8] = 2; // [256 MiB, 512 MiB)
    expect(roundSize(3000, d)).toBe(3072);
    expect(roundSize(300 * MiB, d)).toBe(384 * MiB);
    expect(roundSize(3 * MiB + 1, d)).toBe(3 * MiB + 512);
  });

  it('divides a power of two by the largest power of two in the divisions', () => {
    expect(roundupPower2NextDivision(1200, 4)).toBe(1280);
    expect(roundupPower2NextDivision(5000, 3)).toBe(6144);
    // Divisions finer than the interval round to the next power of two.
    expect(roundupPower2NextDivision(5, 8)).toBe(8);
  });

  it('computes floor(log2) exactly next to large powers of two', () => {
    expect(floorLog2(2 ** 50 - 1)).toBe(49);
    expect(floorLog2(2 ** 50)).toBe(50);
    expect(floorLog2(2 ** 32 - 1)).toBe(31);
  });
});

describe('segment sizes (get_allocation_size)', () => {
  it('asks 2 MiB for small blocks, 20 MiB below 10 MiB, else a multiple of 2 MiB', () => {
    expect(allocationSize(512)).toBe(2 * MiB);
    expect(allocationSize(MiB)).toBe(2 * MiB);
    expect(allocationSize(MiB + 512)).toBe(20 * MiB);
    expect(allocationSize(10 * MiB - 512)).toBe(20 * MiB);
    expect(allocationSize(10 * MiB)).toBe(10 * MiB);
    expect(allocationSize(11 * MiB + 512)).toBe(12 * MiB);
  });
});

describe('format_size', () => {
  it('prints bytes up to 1024, then KiB, MiB and GiB with two decimals', () => {
    expect(formatSize(0)).toBe('0 bytes');
    expect(formatSize(1024)).toBe('1024 bytes');
    expect(formatSize(1025)).toBe('1.00 KiB');
    expect(formatSize(MiB)).toBe('1024.00 KiB');
    expect(formatSize(20 * MiB)).toBe('20.00 MiB');
    expect(formatSize(GiB)).toBe('1024.00 MiB');
    expect(formatSize(GiB + 1)).toBe('1.00 GiB');
    expect(formatSize(80 * GiB - 1)).toBe('80.00 GiB');
  });

  it('rounds exact ties to even as printf does (1.125 -> 1.12, 1.375 -> 1.38)', () => {
    expect(formatSize(1.125 * MiB)).toBe('1.12 MiB');
    expect(formatSize(1.375 * MiB)).toBe('1.38 MiB');
    expect(formatSize(2.625 * KiB)).toBe('2.62 KiB');
    expect(formatSize(1.126 * MiB)).toBe('1.13 MiB');
  });
});
