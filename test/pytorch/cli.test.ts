import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrace } from '../../src/trace/read.js';
import { FIXTURES, ROOT, runCli, tempDir } from '../helpers.js';
import { entry, expectSameEvents, MiB, segment, settings, writeSnapshot } from './snapshot-helpers.js';

const snap = {
  segments: [segment({ address: 0x7f0000000000, blocks: [{ size: 3 * MiB }, { size: 17 * MiB, state: 'inactive' }] })],
  device_traces: [[entry('segment_alloc', 0x7f0000000000, 20 * MiB), entry('alloc', 0x7f0000000000, 3 * MiB, { stream: 3 })]],
  allocator_settings: settings(),
};

describe('memsim with PyTorch snapshots', () => {
  it('refuses a pickle that would run code: exit 2, the opcode and offset, no stack trace', () => {
    const file = join(tempDir(), 'evil.pickle');
    // protocol 2: GLOBAL os.system, the argument, TUPLE1, REDUCE.
    writeFileSync(file, Buffer.concat([Buffer.from([0x80, 2]), Buffer.from('cos\nsystem\nX\x05\x00\x00\x00touch\x85R.', 'latin1')]));
    const r = runCli(['replay', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: not a readable pickle: refusing opcode GLOBAL (0x63) ("os system"): it would import a Python object by name`);
    expect(r.stderr).toContain('(byte offset 2)');
    expect(r.stderr).not.toContain('    at ');
  });

  it('detects a snapshot by content whatever its name, as a pickle or as JSON', () => {
    for (const form of ['pickle', 'json'] as const) {
      const file = writeSnapshot(snap, form, 'noext');
      const renamed = `${file}.bin`;
      copyFileSync(file, renamed);
      const r = runCli(['replay', renamed, '--allocator', 'recorded', '--format', 'json']);
      expect(r.code).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.trace.format).toBe('pytorch-snapshot');
      expect(j.summary.finalReservedBytes).toBe(20 * MiB);
      expect(j.recorded.finalCheck.matches).toBe(true);
    }
  });

  it('lists the recorded allocator', () => {
    const r = runCli(['allocators']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('recorded');
  });

  it('convert: a snapshot to memsim formats and back gives the same events (streams, tags, times)', () => {
    const file = writeSnapshot(snap);
    const t = readTrace(file);
    const dir = tempDir();
    for (const ext of ['json', 'jsonl', 'csv']) {
      const out = join(dir, `s.${ext}`);
      const r = runCli(['convert', file, out]);
      expect(r.code).toBe(0);
      // What the text formats do not hold is said, not dropped in silence; the binary one holds it.
      expect(r.stderr).toBe(`memsim: note: ${out} holds the events of ${file} only, not the real allocator's recorded history and settings: replays of it differ from replays of ${file} (.mst keeps them all)\n`);
      expectSameEvents(t, readTrace(out));
    }
    expect(runCli(['convert', file, join(dir, 's.mst')])).toMatchObject({ code: 0, stderr: '' });
  });

  it('convert: memsim formats round-trip through each other', () => {
    const dir = tempDir();
    for (const src of [join(FIXTURES, 'three-steps.json'), join(FIXTURES, 'three-steps.csv'), join(ROOT, 'traces', 'training.json')]) {
      const t = readTrace(src);
      for (const ext of ['json', 'jsonl', 'csv']) {
        const out = join(dir, `rt.${ext}`);
        expect(runCli(['convert', src, out]).code).toBe(0);
        expectSameEvents(t, readTrace(out));
      }
    }
  });
});
