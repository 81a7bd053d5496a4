import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MALLOC_HINT_MIN_BYTES, mallocHint, namesLargeInput } from '../../src/util/malloc-hint.js';
import { tempDir } from '../helpers.js';

const line = (...args: string[]): string[] => ['node', 'memsim.js', ...args];

describe('the malloc hint at start-up', () => {
  const sizes = new Map([
    ['big.csv', 20 << 20],
    ['edge.csv', MALLOC_HINT_MIN_BYTES],
    ['small.csv', MALLOC_HINT_MIN_BYTES - 1],
  ]);
  const sizeOf = (p: string): number => {
    const s = sizes.get(p);
    if (s === undefined) throw new Error(`ENOENT: ${p}`);
    return s;
  };

  it('is for a command line that names an input of at least 64 KiB, or standard input', () => {
    expect(namesLargeInput(line('replay', 'big.csv', '-a', 'bfc'), sizeOf)).toBe(true);
    expect(namesLargeInput(line('replay', 'edge.csv'), sizeOf)).toBe(true);
    expect(namesLargeInput(line('compare', 'small.csv', 'big.csv'), sizeOf)).toBe(true);
    expect(namesLargeInput(line('replay', '-', '--input-format', 'csv'), sizeOf)).toBe(true);
  });

  it('is not for --version, help, a small input, or names that are no file', () => {
    expect(namesLargeInput(line('--version'), sizeOf)).toBe(false);
    expect(namesLargeInput(line(), sizeOf)).toBe(false);
    expect(namesLargeInput(line('replay', 'small.csv', '-a', 'caching', '--format', 'json'), sizeOf)).toBe(false);
    expect(namesLargeInput(line('replay', 'missing.csv'), sizeOf)).toBe(false);
    // the command's name is not looked at (argv[2]), options are skipped
    expect(namesLargeInput(['node', 'memsim.js', 'big.csv', '--big.csv'], sizeOf)).toBe(false);
  });

  it('looks at the files themselves by default, and gives the hint only for a large one', () => {
    const dir = tempDir();
    const big = join(dir, 'big.csv');
    const small = join(dir, 'small.csv');
    writeFileSync(big, Buffer.alloc(MALLOC_HINT_MIN_BYTES, 0x61));
    writeFileSync(small, Buffer.alloc(MALLOC_HINT_MIN_BYTES - 1, 0x61));
    expect(namesLargeInput(line('replay', big))).toBe(true);
    expect(namesLargeInput(line('replay', small))).toBe(false);
    expect(namesLargeInput(line('replay', dir))).toBe(false);
    expect(mallocHint(line('replay', big))).toBe(true);
    expect(mallocHint(line('replay', small))).toBe(false);
    expect(mallocHint(line('--version'))).toBe(false);
  });
});
