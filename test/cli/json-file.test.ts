import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { readJsonFile } from '../../src/cli/json-file.js';
import { availableParallelism } from 'node:os';
import { MAX_THREADS_PER_CORE, threadsFor } from '../../src/sweep/pool.js';
import { tempDir } from '../helpers.js';

// The JSON files memsim reads back (a compare baseline, tune parts) and the threads a sweep runs:
// bounded whatever the command line names.

const dir = tempDir();
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message.replaceAll(dir + '/', '');
  }
  throw new Error('no error');
}

describe('a JSON file read back', () => {
  it('is parsed, and its faults are named with their line and column', () => {
    expect(readJsonFile(file('ok.json', '{"a":[1,2]}'), 'baseline')).toEqual({ a: [1, 2] });
    expect(messageOf(() => readJsonFile(file('trace.csv', 'op,id,size\nalloc,1,2\n'), 'baseline'))).toBe(
      'trace.csv: not a baseline: a JSON report that memsim wrote was expected, and the file starts with "op,id,size\\nalloc,1,2"',
    );
    expect(messageOf(() => readJsonFile(file('cut.json', '{\n  "a": [1,\n'), 'tune part'))).toMatch(/^cut\.json(:\d+:\d+)?: not a tune part: not valid JSON \(/);
    expect(messageOf(() => readJsonFile(file('empty.json', ' \n'), 'tune part'))).toBe('empty.json: empty: not a tune part (a JSON report that memsim wrote)');
    expect(messageOf(() => readJsonFile(join(dir, 'none.json'), 'baseline'))).toMatch(/^cannot read the baseline .*none\.json: /);
  });

  it('is read up to a bound: an endless device is refused once past it', () => {
    expect(messageOf(() => readJsonFile('/dev/zero', 'baseline', 1 << 20))).toBe('/dev/zero: larger than 1.00 MiB: not a baseline (a JSON report that memsim wrote)');
    expect(messageOf(() => readJsonFile(file('big.json', `[${'1,'.repeat(600_000)}1]`), 'baseline', 1 << 20))).toMatch(/^big\.json: larger than 1\.00 MiB/);
  });
});

describe('the threads of a sweep', () => {
  it('are the cores by default, what --jobs asks up to a few a core, never more', () => {
    const cores = availableParallelism();
    expect(threadsFor(undefined)).toBe(cores);
    expect(threadsFor(1)).toBe(1);
    expect(threadsFor(cores * MAX_THREADS_PER_CORE)).toBe(cores * MAX_THREADS_PER_CORE);
    expect(threadsFor(100_000)).toBe(cores * MAX_THREADS_PER_CORE);
  });
});
