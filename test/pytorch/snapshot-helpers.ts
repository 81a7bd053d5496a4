import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pickle, PickleTuple, type PickleWritable } from '../../src/trace/pytorch/pickle-writer.js';
import { expect } from 'vitest';
import type { Trace } from '../../src/trace/model.js';
import { openTrace, readOpenedTrace } from '../../src/trace/open.js';
import type { TraceReader } from '../../src/trace/readers.js';
import { importSnapshot } from '../../src/trace/pytorch/import.js';
import type { PickleValue } from '../../src/trace/pytorch/pickle-value.js';
import { parseSnapshot, type DeviceTrace } from '../../src/trace/pytorch/snapshot.js';
import { tempDir } from '../helpers.js';

/** A block of a synthetic final segment. */
export interface BlockSpec {
  size: number;
  state?: 'active_allocated' | 'active_pending_free' | 'inactive';
  requested?: number;
  frames?: PickleWritable[];
}

/** A segment as memory_snapshot.cpp writes it, with its sizes added up from the blocks. */
export function segment(spec: {
  address: number;
  blocks: BlockSpec[];
  device?: number;
  stream?: number;
  type?: 'small' | 'large';
  expandable?: boolean;
}): Record<string, PickleWritable> {
  let at = spec.address;
  let allocated = 0;
  let active = 0;
  let requested = 0;
  const blocks = spec.blocks.map((b) => {
    const state = b.state ?? 'active_allocated';
    const req = b.requested ?? (state === 'inactive' ? 0 : b.size);
    if (state === 'active_allocated') allocated += b.size;
    if (state !== 'inactive') {
      active += b.size;
      requested += req;
    }
    const out = { address: at, size: b.size, requested_size: req, state, frames: b.frames ?? [] };
    at += b.size;
    return out;
  });
  return {
    device: spec.device ?? 0,
    address: spec.address,
    total_size: at - spec.address,
    allocated_size: allocated,
    active_size: active,
    requested_size: requested,
    stream: spec.stream ?? 0,
    segment_type: spec.type ?? (at - spec.address <= 2 * 1024 * 1024 ? 'small' : 'large'),
    segment_pool_id: new PickleTuple([0, 0]),
    is_expandable: spec.expandable ?? false,
    frames: [],
    blocks,
  };
}

let clock = 1_700_000_000_000_000;

/** A trace entry; `time_us` advances by 10 per entry unless given. */
export function entry(
  action: string,
  addr: number,
  size: number,
  extra: { stream?: number; frames?: PickleWritable[]; time?: number } = {},
): Record<string, PickleWritable> {
  const e: Record<string, PickleWritable> = {
    action,
    [action === 'oom' ? 'device_free' : 'addr']: addr,
    size,
    stream: extra.stream ?? 0,
    time_us: extra.time ?? (clock += 10),
    frames: extra.frames ?? [],
  };
  return e;
}

/** A Python frame dict as the snapshot holds them. */
export function frame(filename: string, line: number, name: string): Record<string, PickleWritable> {
  return { name, filename, line };
}

/** Default-settings allocator_settings, as PyTorch 2.x writes them. */
export function settings(conf = '', over: Record<string, PickleWritable> = {}): Record<string, PickleWritable> {
  const divisions: Record<string, PickleWritable> = {};
  for (let i = 0; i < 16; i++) divisions[String(2 ** i)] = 0;
  return {
    PYTORCH_CUDA_ALLOC_CONF: conf,
    max_split_size: -1,
    garbage_collection_threshold: 0,
    expandable_segments: false,
    pinned_num_register_threads: 1,
    release_lock_on_cudamalloc: false,
    pinned_use_cuda_host_register: false,
    roundup_power2_divisions: divisions,
    ...over,
  };
}

/** Writes a snapshot as a pickle (default) or as JSON to a fresh temporary file and returns its path. */
export function writeSnapshot(value: PickleWritable, form: 'pickle' | 'json' = 'pickle', name = 'snapshot'): string {
  const dir = tempDir();
  if (form === 'json') {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(value, (_k, v: unknown) => (v instanceof PickleTuple ? v.items : v)));
    return file;
  }
  const file = join(dir, `${name}.pickle`);
  writeFileSync(file, pickle(value));
  return file;
}

export const MiB = 1024 * 1024;

/** The columns of two traces are equal event by event. */
export function expectSameEvents(a: Trace, b: Trace): void {
  expect(b.length).toBe(a.length);
  expect([...b.op]).toEqual([...a.op]);
  expect(b.ids.toArray()).toEqual(a.ids.toArray());
  expect([...b.alloc]).toEqual([...a.alloc]);
  expect([...b.size]).toEqual([...a.size]);
  expect([...b.step]).toEqual([...a.step]);
  expect(b.stream ? [...b.stream] : null).toEqual(a.stream ? [...a.stream] : null);
  const tags = (t: Trace) => Array.from({ length: t.length }, (_, i) => (t.tag ? t.tags[t.tag[i]!] : ''));
  expect(tags(b)).toEqual(tags(a));
  expect(b.time ? [...b.time] : null).toEqual(a.time ? [...a.time] : null);
}

/** `file` read with the snapshot reader's unpickling replaced by `unpickled`. */
export function readWith(file: string, unpickled: () => { root: PickleValue; traces?: DeviceTrace[] }): Trace {
  const opened = openTrace(file);
  const reader: TraceReader = {
    ...opened.reader,
    read(_src, builder, o) {
      const { root, traces } = unpickled();
      return importSnapshot(parseSnapshot(root, file, traces), file, builder, o.device);
    },
  };
  return readOpenedTrace({ ...opened, reader }, {});
}

/**
 * Frames of a user's script, of PyTorch and of the allocator's and a kernel's C++, as stacks hold
 * them; the sixth has the first one's text in another dict (the plain path interns frames by text).
 */
export const SAMPLE_FRAMES: PickleWritable[] = [
  frame('/home/u/train.py', 12, 'forward'),
  frame('/usr/lib/python3/site-packages/torch/nn/modules/module.py', 1500, '_call_impl'),
  { name: 'c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc', filename: 'CUDACachingAllocator.cpp', line: 0 },
  { name: 'user_kernel_launch()', filename: 'kernels.cu', line: 3 },
  frame('/home/u/model.py', 41, 'forward'),
  frame('/home/u/train.py', 12, 'forward'),
];
