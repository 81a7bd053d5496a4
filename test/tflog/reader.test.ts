import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TraceError, UsageError } from '../../src/errors.js';
import { OP_ALLOC, type Trace, lineOf } from '../../src/trace/model.js';
import { readTrace } from '../../src/trace/read.js';
import { replay } from '../../src/sim/run.js';
import { tempDir } from '../helpers.js';

const FIX = join(import.meta.dirname, 'fixtures');
const EVERY = join(FIX, 'every-message.log');
const UNMATCHED = join(FIX, 'deallocations-without-ids-and-unlogged.log');
const BASE = 0x7f2a00000000;

/** The events as rows: op, id, size, step, tag, source line. */
function rows(t: Trace): [string, string, number, number, string, number][] {
  const out: [string, string, number, number, string, number][] = [];
  for (let i = 0; i < t.length; i++) {
    const a = t.alloc[i] as number;
    out.push([t.op[i] === OP_ALLOC ? 'alloc' : 'free', t.ids.get(a), t.size[i] as number, t.step[i] as number, t.tags[t.tag?.[i] ?? 0] as string, lineOf(t, i)]);
  }
  return out;
}

function problemsOf(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    if (e instanceof TraceError) return e.problems.map((p) => `${p.line ?? '-'}:${p.col ?? '-'} ${p.message}`);
    throw e;
  }
  throw new Error('no error');
}

describe('TensorFlow __LOG_MEMORY__ logs', () => {
  it('imports the allocator with the most bytes: every message type, the quirks of the text format', () => {
    const t = readTrace(EVERY);
    expect(t.format).toBe('tflog');
    expect(rows(t)).toEqual([
      ['alloc', '1', 1024, -2, 'dense/kernel/Initializer', 3],
      ['alloc', '2', 1000, 1, 'MatMul', 5],
      // line 6, a MemoryLogTensorOutput, allocates nothing
      ['alloc', '3', 300, 1, 'MatMul/EigenAllocator', 7],
      // the deferred deallocation frees; line 9 (same id, not deferred) confirms it
      ['free', '3', 300, 1, '', 8],
      // a tensor deallocation has no step: the previous event's
      ['free', '2', 1000, 1, '', 11],
      // step_id 0 is left out of the line; the kernel name is C-escaped with octal UTF-8
      ['alloc', '4', 512, 0, 'name/with "quotes" and café\t', 12],
      // lines 13-16: "cpu" and "cuda_host_bfc", not imported; extra blanks inside the message
      ['alloc', '5', 256, 2, 'Const_1', 18],
      ['alloc', '6', 768, 2, 'Sum/EigenAllocator', 19],
      ['free', '6', 768, 2, '', 20],
      ['alloc', '7', 2048, -6, 'Unknown', 21],
      // line 22 confirms the deferred free of 6 with the id now at that address (7): not a free
      ['free', '4', 512, -6, '', 24],
      ['free', '5', 256, -6, '', 25],
    ]);
    expect(t.summary).toMatchObject({ allocs: 7, frees: 5, steps: 5, peakLiveBytes: 3840, peakLiveEvent: 9, finalLiveBytes: 3072, finalLiveAllocs: 2 });
    expect(t.meta).toEqual({ source: 'TensorFlow __LOG_MEMORY__ log', allocatorName: 'GPU_0_bfc' });
    const rec = t.recorded!;
    expect(rec.allocator).toBe('tensorflow-bfc');
    // ptr left out (allocation 5) and raw allocations' allocated_bytes are unknown
    expect(Array.from(rec.address)).toEqual([BASE, BASE + 1024, BASE + 2048, BASE + 1024, NaN, BASE + 2048, BASE + 2048]);
    expect(Array.from(rec.allocatedBytes)).toEqual([1024, 1024, NaN, 512, 256, NaN, 2048]);
    expect(rec.segmentEvents).toEqual([]);
    expect(rec.extra?.['steps']).toEqual([
      { stepId: 1, handle: '->/loss/0/;0', line: 4 },
      { stepId: 2, handle: '->/train/0/;1', line: 17 },
    ]);
    const notes = rec.notes!.join('\n');
    expect(notes).toContain('26 lines, 22 __LOG_MEMORY__ messages (6 tensor allocations, 4 tensor deallocations, 3 raw allocations, 5 raw deallocations, 2 steps)');
    expect(notes).toContain('1 MemoryLogTensorOutput message ignored');
    expect(notes).toContain('4 other lines ignored');
    expect(notes).toContain('(MemoryLogFutureMessage)');
    expect(notes).toContain('allocator "GPU_0_bfc" imported (the one with the most requested bytes): 7 allocations (5 tensor, 2 raw), 5 deallocations');
    expect(notes).toContain('Also in the log: "cpu" (1 allocation, 64 B, no allocation ids), "cuda_host_bfc" (1 allocation, 4.00 KiB)');
    expect(notes).toContain('-2 (op kernel construction): 1 allocation, 1.00 KiB; -6 (unknown step): 1 allocation, 2.00 KiB');
    expect(notes).toContain('2 raw deallocations logged with deferred: true');
    expect(notes).toContain('2 later lines for the same blocks were not counted again (1 of them with the allocation_id read after the block was released)');
    expect(notes).toContain('between 0x7f2a00000000 and 0x7f2a00001000 (4.00 KiB)');
  });

  it('--allocator-name picks another allocator; names it in the notes; refuses unknown ones and ones without ids', () => {
    const t = readTrace(EVERY, { allocatorName: 'cuda_host_bfc' });
    expect(rows(t)).toEqual([
      ['alloc', '1', 4096, -5, 'SetProtoFromGPU', 15],
      ['free', '1', 4096, -5, '', 16],
    ]);
    expect(Array.from(t.recorded!.address)).toEqual([0x7f3000000000]);
    expect(t.recorded!.notes!.join('\n')).toContain('allocator "cuda_host_bfc" imported (as asked with --allocator-name)');
    expect(t.recorded!.notes!.join('\n')).toContain('-5 (proto buffer (a GPU tensor copied into a proto)): 1 allocation, 4.00 KiB');
    expect(() => readTrace(EVERY, { allocatorName: 'GPU_1_bfc' })).toThrow(UsageError);
    expect(() => readTrace(EVERY, { allocatorName: 'GPU_1_bfc' })).toThrow('no such allocator in this log (it logs: "GPU_0_bfc", "cpu", "cuda_host_bfc")');
    expect(problemsOf(() => readTrace(EVERY, { allocatorName: 'cpu' }))).toEqual([
      '-:- allocator "cpu" logs no allocation_id, so its deallocations cannot be matched to its allocations (TensorFlow logs ids only for allocators that track allocation sizes, such as BFC)',
    ]);
  });

  it('deallocations without an id and of allocations never logged: errors naming the lines, or skipped and counted with --lenient', () => {
    expect(problemsOf(() => readTrace(UNMATCHED))).toEqual([
      '3:- MemoryLogTensorDeallocation of "GPU_0_bfc" without an allocation_id (left out when 0: this TensorFlow version or allocator gave none), so it cannot be matched to an allocation; --lenient skips it',
      '4:- free of id "99" which was never allocated',
      '5:- MemoryLogTensorAllocation of "GPU_0_bfc" without an allocation_id: its deallocation could not be matched to it; --lenient skips it',
    ]);
    const t = readTrace(UNMATCHED, { lenient: true });
    expect(rows(t)).toEqual([
      ['alloc', '1', 1000, 1, 'a', 2],
      ['free', '1', 1000, 1, '', 6],
    ]);
    expect(t.skipped).toEqual({ unknownFree: 2, doubleAlloc: 0 });
    expect(t.recorded!.notes!.join('\n')).toContain('skipped (--lenient): 1 allocation and 1 deallocation without an allocation_id');
  });

  it('a log of deallocations only: each is a free of an id never allocated, as in any log, not left out', () => {
    const file = join(tempDir(), 'deallocations.log');
    const P = '2024-05-01 10:00:01.000001: I tensorflow/core/framework/log_memory.cc:35] __LOG_MEMORY__';
    writeFileSync(
      file,
      `${P} MemoryLogTensorDeallocation { allocation_id: 99 allocator_name: "GPU_0_bfc" }\n` +
        `${P} MemoryLogTensorDeallocation { allocation_id: 7 allocator_name: "GPU_0_bfc" }\n` +
        `${P} MemoryLogTensorDeallocation { allocation_id: 8 allocator_name: "cpu" }\n`,
    );
    expect(problemsOf(() => readTrace(file))).toEqual(['1:- free of id "99" which was never allocated', '2:- free of id "7" which was never allocated']);
    const t = readTrace(file, { lenient: true });
    expect(t.length).toBe(0);
    expect(t.skipped).toEqual({ unknownFree: 2, doubleAlloc: 0 });
    expect(t.meta).toEqual({ source: 'TensorFlow __LOG_MEMORY__ log', allocatorName: 'GPU_0_bfc' });
    expect(t.recorded!.notes!.join('\n')).toContain('allocator "GPU_0_bfc" imported (no allocator logs allocations: the one with the most deallocations): 0 allocations');
    // --allocator-name reads the one it names the same way.
    expect(readTrace(file, { lenient: true, allocatorName: 'cpu' }).skipped).toEqual({ unknownFree: 1, doubleAlloc: 0 });
  });

  it('deallocations alone beside messages of unknown types: the first problem says those may be the allocations, the allocator named or not', () => {
    const file = join(tempDir(), 'newer.log');
    const P = '2024-05-01 10:00:01.000001: I tensorflow/core/framework/log_memory.cc:35] __LOG_MEMORY__';
    writeFileSync(
      file,
      `${P} MemoryLogTensorAllocationV2 { step_id: 1 tensor { allocation_description { requested_bytes: 1000 allocator_name: "GPU_0_bfc" allocation_id: 1 } } }\n` +
        `${P} MemoryLogTensorDeallocation { allocation_id: 1 allocator_name: "GPU_0_bfc" }\n`,
    );
    const hint = '-:- no allocation that this reader knows, but messages of types it does not know (MemoryLogTensorAllocationV2): if those are the allocations, the log is of a TensorFlow newer than this reader';
    expect(problemsOf(() => readTrace(file))).toEqual([hint, '2:- free of id "1" which was never allocated']);
    // Named, its events are read as they come: the hint follows them.
    expect(problemsOf(() => readTrace(file, { allocatorName: 'GPU_0_bfc' }))).toEqual(['2:- free of id "1" which was never allocated', hint]);
  });

  it('an allocator that logs allocations without ids beside one of deallocations only: the message names the first', () => {
    const file = join(tempDir(), 'noids.log');
    const P = '2024-05-01 10:00:01.000001: I tensorflow/core/framework/log_memory.cc:35] __LOG_MEMORY__';
    writeFileSync(
      file,
      `${P} MemoryLogTensorAllocation { step_id: 1 kernel_name: "a" tensor { allocation_description { requested_bytes: 1000 allocator_name: "cpu" } } }\n` +
        `${P} MemoryLogTensorDeallocation { allocation_id: 1 allocator_name: "GPU_0_bfc" }\n`,
    );
    expect(problemsOf(() => readTrace(file))).toEqual([
      '-:- allocator "cpu" logs no allocation_id, so its deallocations cannot be matched to its allocations (TensorFlow logs ids only for allocators that track allocation sizes, such as BFC)',
    ]);
  });

  it('syntax and type errors name file:line:col, all of them at once', () => {
    const file = join(FIX, 'syntax-errors.log');
    const text = readFileSync(file, 'utf8').split('\n');
    const col = (line: number, needle: string): number => (text[line - 1] as string).indexOf(needle) + 1;
    expect(problemsOf(() => readTrace(file))).toEqual([
      `1:${col(1, '"GPU_0_bfc')} MemoryLogTensorDeallocation: unterminated string: the closing quote is missing`,
      `2:${col(2, '"two"')} MemoryLogTensorAllocation: field "step_id" expects an integer, found a string`,
      `3:${(text[2] as string).length + 1} MemoryLogRawAllocation: expected '}', found the end of the line`,
      `4:${col(4, 'trailing')} MemoryLogStep: unexpected 't' after the end of the message`,
      `5:${col(5, '-5')} MemoryLogRawAllocation: field "num_bytes" is negative (-5)`,
      `6:${col(6, '\\q')} MemoryLogTensorAllocation: invalid escape '\\q'`,
      `7:${col(7, '2 }')} MemoryLogRawDeallocation: field "allocation_id" is given twice (it is not repeated)`,
      `8:${col(8, '{')} expected a message name (e.g. MemoryLogTensorAllocation) after __LOG_MEMORY__`,
      `9:${col(9, '1.5')} MemoryLogTensorAllocation: field "ptr" expects an integer, found the floating-point number 1.5`,
      `10:${col(10, '1e400')} MemoryLogRawAllocation: field "num_bytes" expects an integer, found the floating-point number 1e400`,
    ]);
  });

  it('reads CRLF line ends, and a log whose first memory line is far past the first 64 KiB (by its .log name)', () => {
    const dir = tempDir();
    const crlf = join(dir, 'crlf.txt');
    writeFileSync(crlf, readFileSync(EVERY, 'utf8').replace(/\n/g, '\r\n'));
    expect(rows(readTrace(crlf))).toEqual(rows(readTrace(EVERY)));
    const late = join(dir, 'late.log');
    const preamble = 'I tensorflow/core/common_runtime/gpu/gpu_device.cc:1928] loading CUDA libraries and other chatter\n'.repeat(2000);
    writeFileSync(late, preamble + readFileSync(EVERY, 'utf8'));
    const t = readTrace(late);
    expect(t.format).toBe('tflog');
    expect(rows(t).map((r) => r[5] - 2000)).toEqual(rows(readTrace(EVERY)).map((r) => r[5]));
    const none = join(dir, 'none.log');
    writeFileSync(none, preamble);
    expect(problemsOf(() => readTrace(none))).toEqual([
      '-:- no __LOG_MEMORY__ line in 2000 lines: TensorFlow writes them with TF_CPP_MIN_LOG_LEVEL=0 and TF_CPP_VMODULE=log_memory=2 (or TF_CPP_MIN_VLOG_LEVEL=2); capture its stderr',
    ]);
  });

  it('ignores fields it does not know (newer TensorFlow), refuses a known number given as a message', () => {
    const file = join(tempDir(), 'fields.log');
    const known = '__LOG_MEMORY__ MemoryLogRawAllocation { step_id: 3 operation: "op" num_bytes: 8 ptr: 4096 allocation_id: 1 allocator_name: "a"';
    writeFileSync(file, `${known} future { x: 1 } stream_id: 2 }\n__LOG_MEMORY__ MemoryLogTensorDeallocation { allocation_id: 1 allocator_name: "a" tag: "x" }\n`);
    expect(rows(readTrace(file))).toEqual([
      ['alloc', '1', 8, 3, 'op', 1],
      ['free', '1', 8, 3, '', 2],
    ]);
    writeFileSync(file, '__LOG_MEMORY__ MemoryLogStep { step_id { id: 1 } }\n');
    expect(problemsOf(() => readTrace(file))).toEqual(['1:40 MemoryLogStep: field "step_id" is an integer, not a message']);
  });

  it('keeps a ptr beyond 2^53 as an unknown address, and refuses sizes beyond it', () => {
    const dir = tempDir();
    const file = join(dir, 'big.log');
    const line = (fields: string): string => `__LOG_MEMORY__ MemoryLogRawAllocation { ${fields} allocator_name: "GPU_0_bfc" }`;
    const tooBig = line('num_bytes: 9007199254740993 allocation_id: 2');
    writeFileSync(file, [line('num_bytes: 8 ptr: 18446744073709551360 allocation_id: 1'), tooBig].join('\n'));
    expect(problemsOf(() => readTrace(file))).toEqual([`2:${tooBig.indexOf('9007') + 1} MemoryLogRawAllocation: field "num_bytes" is beyond 2^53, more than memsim can hold exactly`]);
    writeFileSync(file, line('num_bytes: 8 ptr: 18446744073709551360 allocation_id: 1'));
    const t = readTrace(file);
    expect(Array.from(t.recorded!.address)).toEqual([NaN]);
    expect(t.recorded!.notes!.join('\n')).toContain('1 ptr beyond 2^53 kept as unknown addresses');
  });

  it('replays through naive and recorded with hand-computed figures', () => {
    const t = readTrace(EVERY);
    // recorded: each block its logged allocated_bytes (raw ones: their requested bytes); reserved = allocated
    const rec = replay(t, { allocator: 'recorded' }).report.summary;
    expect(rec).toMatchObject({ peakAllocatedBytes: 3840, peakReservedBytes: 3840, peakReservedEvent: 9, finalAllocatedBytes: 3072, finalReservedBytes: 3072 });
    // naive: 512-byte rounding: 1024, 1024, 512, 512, 512, 1024, 2048
    const naive = replay(t, { allocator: 'naive' }).report.summary;
    expect(naive).toMatchObject({ peakAllocatedBytes: 4096, peakReservedEvent: 9, finalAllocatedBytes: 3072, deviceAllocCalls: 7, deviceFreeCalls: 5 });
  });
});
