import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';

const FIX = join(import.meta.dirname, 'fixtures');
const EVERY = join(FIX, 'every-message.log');

describe('memsim with TensorFlow memory logs', () => {
  it('validate: a one-line summary of the imported allocator', () => {
    const r = runCli(['validate', EVERY]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `ok ${EVERY} (tflog): 12 events, 7 allocs, 5 frees, 5 steps, peak live 3.75 KiB at event 9, 2 still live at the end (3.00 KiB); 7 notes from the importer (--format json lists them)\n`,
    );
    // The notes say what the importer ignored (a message type it does not know, here).
    const json = JSON.parse(runCli(['validate', EVERY, '--format', 'json']).stdout) as { notes: string[] };
    expect(json.notes).toHaveLength(7);
    expect(json.notes[0]).toMatch(/1 message of types this reader does not know ignored \(MemoryLogFutureMessage\)/);
  });

  it('replay --allocator recorded: the logged block sizes, the importer notes, the recorded section', () => {
    const r = runCli(['replay', EVERY, '--allocator', 'recorded', '--format', 'json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.trace).toMatchObject({ format: 'tflog', events: 12, allocs: 7, frees: 5, steps: 5, peakLiveBytes: 3840 });
    expect(j.summary).toMatchObject({ peakAllocatedBytes: 3840, peakReservedBytes: 3840, finalAllocatedBytes: 3072 });
    expect(j.recorded).toEqual({ allocator: 'tensorflow-bfc' });
    expect(j.notes.some((n: string) => n.startsWith('allocator "GPU_0_bfc" imported'))).toBe(true);
    expect(j.steps.map((s: { step: number }) => s.step)).toEqual([-6, -2, 0, 1, 2]);
  });

  it('--allocator-name on replay, validate, convert and compare', () => {
    const replayed = JSON.parse(runCli(['replay', EVERY, '--allocator-name', 'cuda_host_bfc', '--format', 'json']).stdout);
    expect(replayed.trace).toMatchObject({ allocs: 1, peakLiveBytes: 4096 });
    expect(runCli(['validate', EVERY, '--allocator-name', 'cuda_host_bfc']).stdout).toContain('2 events, 1 allocs, 1 frees, 1 step, peak live 4.00 KiB');
    const out = join(tempDir(), 'host.csv');
    expect(runCli(['convert', EVERY, out, '--allocator-name', 'cuda_host_bfc']).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(
      '# {"format":"memsim-trace","version":1,"meta":{"source":"TensorFlow __LOG_MEMORY__ log","allocatorName":"cuda_host_bfc"}}\n' +
        'op,id,size,step,tag\nalloc,1,4096,-5,SetProtoFromGPU\nfree,1,,-5,\n',
    );
    const compared = JSON.parse(runCli(['compare', EVERY, '--allocators', 'naive,recorded', '--allocator-name', 'cuda_host_bfc', '--format', 'json']).stdout);
    expect(compared.trace.allocs).toBe(1);
    for (const cmd of ['replay', 'validate', 'convert', 'compare']) expect(runCli([cmd, '--help']).stdout).toContain('--allocator-name <name>');
  });

  it('bad input: exit 2, file:line:col, no stack trace; an unknown allocator name lists the logged ones', () => {
    const bad = runCli(['replay', join(FIX, 'syntax-errors.log')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${join(FIX, 'syntax-errors.log')}:2:53: MemoryLogTensorAllocation: field "step_id" expects an integer, found a string`);
    expect(bad.stderr).not.toContain('    at ');
    const unknown = runCli(['validate', EVERY, '--allocator-name', 'GPU_7_bfc']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--allocator-name "GPU_7_bfc": no such allocator in this log (it logs: "GPU_0_bfc", "cpu", "cuda_host_bfc")');
  });

  it('--lenient skips and counts deallocations without ids and of allocations never logged', () => {
    const file = join(FIX, 'deallocations-without-ids-and-unlogged.log');
    expect(runCli(['validate', file]).code).toBe(2);
    const r = runCli(['replay', file, '--lenient']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('skipped (--lenient): 2 frees of non-live ids, 0 allocs of live ids');
    expect(r.stdout).toContain('skipped (--lenient): 1 allocation and 1 deallocation without an allocation_id');
  });

  it('reads a log from standard input, detected by its content', () => {
    const r = runCli(['validate', '-'], { input: readFileSync(EVERY, 'utf8') });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ok - (tflog): 12 events');
  });
});
