import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, SHARED_TRACES } from '../helpers.js';

const SNAPSHOT = join(SHARED_TRACES, 'pytorch', 'bcrafton_memory_snapshot.pickle');
const present = existsSync(SNAPSHOT);
if (!present) console.warn(`${SNAPSHOT} not found: tune on a real snapshot is skipped`);

describe.skipIf(!present)('memsim tune on a real PyTorch snapshot', () => {
  it('tunes the recording\'s allocator, the current row from the recorded layout, what-ifs fresh', () => {
    const r = runCli(['tune', SNAPSHOT, '--space', 'max_split_size_mb=none,256', '--space', 'roundup_power2_divisions=off', '--format', 'json']);
    expect(r.code).toBe(0);
    const t = JSON.parse(r.stdout);
    expect(t.spaces.map((s: { allocator: string; method: string }) => [s.allocator, s.method])).toEqual([['caching', 'all'], ['recorded', 'reference']]);
    const byName = Object.fromEntries(t.rows.map((x: { name: string }) => [x.name, x]));
    expect(byName['caching']).toMatchObject({ current: true, start: 'recorded' });
    expect(byName['caching[expandable_segments=true]']).toMatchObject({ current: false, start: 'fresh' });
    expect(byName['recorded']).toMatchObject({ reference: true, start: 'recorded' });
    expect(t.notes.at(-1)).toContain('every other one starts fresh');
    // The answer, replayed on its own: replay starts a configuration that differs from the recording fresh too.
    const rec = t.recommendation;
    expect(rec.setting).toMatch(/^PYTORCH_CUDA_ALLOC_CONF=/);
    const again = JSON.parse(runCli(['replay', SNAPSHOT, '--allocator', rec.name, '--format', 'json']).stdout);
    expect(again.summary.peakReservedBytes).toBe(rec.peakReservedBytes);
    expect(again.start.mode).toBe('fresh');
    // --start fresh starts the current row fresh as well (the recording keeps its own start).
    const fresh = JSON.parse(runCli(['tune', SNAPSHOT, '--space', 'max_split_size_mb=none', '--space', 'roundup_power2_divisions=off', '--start', 'fresh', '--format', 'json']).stdout);
    expect(fresh.rows.find((x: { current: boolean }) => x.current).start).toBe('fresh');
    expect(fresh.rows.find((x: { name: string }) => x.name === 'recorded').start).toBe('recorded');
  });
});
