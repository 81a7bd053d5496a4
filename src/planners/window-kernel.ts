import { BEST_GAP_FUNCTION, MERGE_FUNCTION, RUN_BYTES, SLOT_BYTES, type BestGapKernel, type MergeKernel } from './merge-kernel.js';
import { OutOfAddressSpace, WASM_MEMORY_MAX_BYTES } from './limits.js';
import { formatBytes, formatCount } from '../util/bytes.js';
import { encodeModule, F64, I32, wasm, type WasmFunction, type WasmMemory } from './wasm-module.js';

/**
 * The placement's state in its kernel memory, as i32 fields at these byte offsets from the address
 * the kernels take (`st`): where the runs so far are and the other buffer (both move when the
 * memory grows), how many runs each holds, the pick buffer, the layout's class count and block
 * size, the per-block time bounds; then, per class k at WINDOW_AT + 8k, the run of positions of the
 * window being asked about, from and to.
 */
export const STATE = {
  accAt: 0,
  tmpAt: 4,
  runCap: 8,
  pickAt: 12,
  classCount: 16,
  blockBits: 20,
  infoAt: 24,
  grainBits: 28,
  tableSteps: 32,
  reachAt: 36,
  startAt: 40,
  stepsAt: 44,
  /** XLA's heap size so far (f64). */
  heapBytes: 48,
} as const;
export const WINDOW_AT = 56;
/** Bytes per step of the placement order: the record's size (f64; its offset once placed), position, first and last time index. */
export const STEP_BYTES = 24;
/** The placement loops {@link STEPS} runs. */
export const GREEDY_BY_SIZE = 0;
export const XLA_BEST_FIT = 1;
/** Bytes per block of its placed records' bounds: count, smallest first, largest last, largest first, smallest last (i32). */
export const BLOCK_INFO_BYTES = 32;

/**
 * `union(a, b, gap, st)`: the union of the ranges of the placed records that meet the window [a, b]
 * of time indices, runs closer than `gap` made one: for each class, the blocks that hold its run of
 * positions (from the state; a block shared by two classes is read once), passing over those none
 * of whose placed records meets the window, each merged (the merge kernel, function 0) into the
 * runs so far. It returns how many runs there are, left at the state's accAt (the buffers swap on
 * each merge); or -1 when the run buffers may be too small for the next block (nothing else
 * changed: the caller grows them and asks again).
 */
const UNION: WasmFunction = {
  exportName: 'union',
  params: [
    ['a', I32],
    ['b', I32],
    ['gap', F64],
    ['st', I32],
  ],
  locals: [
    ['acc', I32],
    ['tmp', I32],
    ['cap', I32],
    ['pick', I32],
    ['classes', I32],
    ['bb', I32],
    ['info', I32],
    ['m', I32],
    ['done', I32],
    ['k', I32],
    ['from', I32],
    ['to', I32],
    ['blk', I32],
    ['last', I32],
    ['ib', I32],
    ['count', I32],
    ['o', I32],
    ['w', I32],
    ['x', I32],
  ],
  result: I32,
  code: [
    'local.get st', `i32.load ${STATE.accAt}`, 'local.set acc',
    'local.get st', `i32.load ${STATE.tmpAt}`, 'local.set tmp',
    'local.get st', `i32.load ${STATE.runCap}`, 'local.set cap',
    'local.get st', `i32.load ${STATE.pickAt}`, 'local.set pick',
    'local.get st', `i32.load ${STATE.classCount}`, 'local.set classes',
    'local.get st', `i32.load ${STATE.blockBits}`, 'local.set bb',
    'local.get st', `i32.load ${STATE.infoAt}`, 'local.set info',
    'i32.const -1', 'local.set done',
    'block', 'loop',
    'local.get k', 'local.get classes', 'i32.lt_s', 'i32.eqz', 'br_if 1',
    // One class: its run of positions [from, to), if any.
    'block',
    'local.get st', 'local.get k', 'i32.const 3', 'i32.shl', 'i32.add', 'local.tee x', `i32.load ${WINDOW_AT}`, 'local.set from',
    'local.get x', `i32.load ${WINDOW_AT + 4}`, 'local.set to',
    'local.get from', 'local.get to', 'i32.lt_s', 'i32.eqz', 'br_if 0',
    // Its blocks, from the first not read yet (the last class's last block may hold its first positions).
    'local.get from', 'local.get bb', 'i32.shr_s', 'local.tee blk', 'local.get done', 'i32.const 1', 'i32.add', 'local.tee x',
    'local.get blk', 'local.get x', 'i32.gt_s', 'select', 'local.set blk',
    'local.get to', 'i32.const 1', 'i32.sub', 'local.get bb', 'i32.shr_s', 'local.set last',
    'block', 'loop',
    'local.get blk', 'local.get last', 'i32.gt_s', 'br_if 1',
    'block',
    'local.get info', 'local.get blk', 'i32.const 5', 'i32.shl', 'i32.add', 'local.set ib',
    // None of its placed records meets the window: passed over.
    'local.get ib', 'i32.load 8', 'local.get a', 'i32.lt_s', 'local.get ib', 'i32.load 4', 'local.get b', 'i32.gt_s', 'i32.or', 'br_if 0',
    'local.get ib', 'i32.load 0', 'local.set count',
    'block',
    'local.get m', 'local.get count', 'i32.add', 'i32.const 2', 'i32.add', 'local.get cap', 'i32.gt_s', 'i32.eqz', 'br_if 0',
    'i32.const -1', 'return',
    'end',
    'local.get blk', 'local.get bb', 'i32.shl', `i32.const ${SLOT_BYTES}`, 'i32.mul', 'local.tee o',
    'local.get o', 'local.get count', `i32.const ${SLOT_BYTES}`, 'i32.mul', 'i32.add',
    // A bound that every record of the block meets is not tested.
    'local.get b', 'i32.const 2147483647', 'local.get ib', 'i32.load 12', 'local.get b', 'i32.gt_s', 'select',
    'local.get a', 'i32.const -1', 'local.get ib', 'i32.load 16', 'local.get a', 'i32.lt_s', 'select',
    'local.get acc', 'local.get m', 'local.get tmp', 'local.get gap', 'local.get pick',
    'call 0',
    'local.tee w', 'i32.const 0', 'i32.lt_s', 'br_if 0',
    'local.get w', 'local.set m',
    'local.get acc', 'local.set x', 'local.get tmp', 'local.set acc', 'local.get x', 'local.set tmp',
    'end',
    'local.get blk', 'i32.const 1', 'i32.add', 'local.set blk',
    'br 0',
    'end', 'end',
    'local.get last', 'local.set done',
    'end',
    'local.get k', 'i32.const 1', 'i32.add', 'local.set k',
    'br 0',
    'end', 'end',
    'local.get st', 'local.get acc', `i32.store ${STATE.accAt}`,
    'local.get st', 'local.get tmp', `i32.store ${STATE.tmpAt}`,
    'local.get m',
  ],
};

/**
 * `insert(p, offset, end, first, last, st)`: the slot of a record placed at position p (its range
 * [offset, end), end > offset, and its first and last time index) into its block, after the slots
 * at or below its offset (earlier placements first on ties; a binary search), those above moved up
 * one slot (memory.copy, a memmove); the block's count and time bounds updated. Returns the slot's
 * index.
 */
const INSERT: WasmFunction = {
  exportName: 'insert',
  params: [
    ['p', I32],
    ['offset', F64],
    ['end', F64],
    ['first', I32],
    ['last', I32],
    ['st', I32],
  ],
  locals: [
    ['bb', I32],
    ['ib', I32],
    ['o', I32],
    ['count', I32],
    ['lo', I32],
    ['hi', I32],
    ['mid', I32],
    ['j', I32],
    ['x', I32],
  ],
  result: I32,
  code: [
    'local.get st', `i32.load ${STATE.blockBits}`, 'local.set bb',
    'local.get st', `i32.load ${STATE.infoAt}`, 'local.get p', 'local.get bb', 'i32.shr_s', 'i32.const 5', 'i32.shl', 'i32.add', 'local.set ib',
    'local.get p', 'local.get bb', 'i32.shr_s', 'local.get bb', 'i32.shl', 'local.set o',
    'local.get ib', 'local.get ib', 'i32.load 0', 'local.tee count', 'i32.const 1', 'i32.add', 'i32.store 0',
    // Smallest first, largest last, largest first, smallest last.
    'local.get ib', 'local.get first', 'local.get ib', 'i32.load 4', 'local.tee x', 'local.get first', 'local.get x', 'i32.lt_s', 'select', 'i32.store 4',
    'local.get ib', 'local.get last', 'local.get ib', 'i32.load 8', 'local.tee x', 'local.get last', 'local.get x', 'i32.gt_s', 'select', 'i32.store 8',
    'local.get ib', 'local.get first', 'local.get ib', 'i32.load 12', 'local.tee x', 'local.get first', 'local.get x', 'i32.gt_s', 'select', 'i32.store 12',
    'local.get ib', 'local.get last', 'local.get ib', 'i32.load 16', 'local.tee x', 'local.get last', 'local.get x', 'i32.lt_s', 'select', 'i32.store 16',
    // The first slot of the block whose offset is above the record's.
    'local.get o', 'local.set lo', 'local.get o', 'local.get count', 'i32.add', 'local.set hi',
    'block', 'loop',
    'local.get lo', 'local.get hi', 'i32.lt_s', 'i32.eqz', 'br_if 1',
    'local.get lo', 'local.get hi', 'i32.add', 'i32.const 1', 'i32.shr_u', 'local.set mid',
    'local.get mid', `i32.const ${SLOT_BYTES}`, 'i32.mul', 'f64.load 0', 'local.get offset', 'f64.gt', 'local.set x',
    'local.get mid', 'local.get hi', 'local.get x', 'select', 'local.set hi',
    'local.get lo', 'local.get mid', 'i32.const 1', 'i32.add', 'local.get x', 'select', 'local.set lo',
    'br 0',
    'end', 'end',
    'local.get lo', `i32.const ${SLOT_BYTES}`, 'i32.mul', 'local.set j',
    'local.get j', `i32.const ${SLOT_BYTES}`, 'i32.add', 'local.get j',
    'local.get o', 'local.get count', 'i32.add', `i32.const ${SLOT_BYTES}`, 'i32.mul', 'local.get j', 'i32.sub',
    'memory.copy',
    'local.get j', 'local.get offset', 'f64.store 0',
    'local.get j', 'local.get end', 'f64.store 8',
    'local.get j', 'local.get first', 'i32.store 16',
    'local.get j', 'local.get last', 'i32.store 20',
    'local.get lo',
  ],
};

/**
 * `steps(k0, k1, mode, alignment, st)`: the placement loop over steps [k0, k1) of the placement
 * order (the step records at the state's stepsAt), each record's windows found in the layout's
 * tables (reach and start, copied into the memory), its union taken (function 2, the runs closer
 * than its size made one) and its offset chosen: greedy-by-size (mode 0) the smallest gap that holds
 * it or the end of the last run (function 1); XLA's best fit (mode 1) the same over the gaps up to
 * the heap's size too, else on top of the last run, growing the heap. A record that occupies
 * something gets its slot (function 3). Each step's size is replaced by its offset. Greedy-by-size
 * stops at the first zero-sized record (they come last; the caller walks their conflicts); XLA's
 * leaves them at 0, with no slot. Returns the step it stopped at, or -(k + 1) when the run buffers
 * may be too small for step k (the caller grows them and goes on from k).
 */
const STEPS: WasmFunction = {
  exportName: 'steps',
  params: [
    ['k0', I32],
    ['k1', I32],
    ['mode', I32],
    ['alignment', F64],
    ['st', I32],
  ],
  locals: [
    ['k', I32],
    ['at', I32],
    ['a', I32],
    ['b', I32],
    ['c', I32],
    ['classes', I32],
    ['gb', I32],
    ['ts', I32],
    ['m', I32],
    ['acc', I32],
    ['x', I32],
    ['size', F64],
    ['off', F64],
    ['end', F64],
    ['top', F64],
    ['last', F64],
  ],
  result: I32,
  code: [
    'local.get st', `i32.load ${STATE.classCount}`, 'local.set classes',
    'local.get st', `i32.load ${STATE.grainBits}`, 'local.set gb',
    'local.get st', `i32.load ${STATE.tableSteps}`, 'local.set ts',
    'local.get k0', 'local.set k',
    'block', 'loop',
    'local.get k', 'local.get k1', 'i32.lt_s', 'i32.eqz', 'br_if 1',
    'block',
    'local.get st', `i32.load ${STATE.stepsAt}`, 'local.get k', `i32.const ${STEP_BYTES}`, 'i32.mul', 'i32.add', 'local.tee at',
    'f64.load 0', 'local.tee size', 'f64.const 0', 'f64.gt', 'br_if 0',
    // A zero-sized record: greedy-by-size stops here; XLA's stays at 0.
    'local.get mode', 'i32.eqz', 'if', 'local.get k', 'return', 'end',
    'local.get at', 'f64.const 0', 'f64.store 0',
    'local.get k', 'i32.const 1', 'i32.add', 'local.set k',
    'br 1',
    'end',
    'local.get at', 'i32.load 12', 'local.set a',
    'local.get at', 'i32.load 16', 'local.set b',
    // Each class's run of positions that may meet the window [a, b].
    'i32.const 0', 'local.set c',
    'block', 'loop',
    'local.get c', 'local.get classes', 'i32.lt_s', 'i32.eqz', 'br_if 1',
    'local.get st', 'local.get c', 'i32.const 3', 'i32.shl', 'i32.add', 'local.tee x',
    'local.get st', `i32.load ${STATE.reachAt}`, 'local.get c', 'local.get ts', 'i32.mul', 'local.get a', 'local.get gb', 'i32.shr_s', 'i32.add',
    'i32.const 2', 'i32.shl', 'i32.add', 'i32.load 0', `i32.store ${WINDOW_AT}`,
    'local.get x',
    'local.get st', `i32.load ${STATE.startAt}`, 'local.get c', 'local.get ts', 'i32.mul', 'local.get b', 'local.get gb', 'i32.shr_s', 'i32.add',
    'i32.const 2', 'i32.shl', 'i32.add', 'i32.load 4', `i32.store ${WINDOW_AT + 4}`,
    'local.get c', 'i32.const 1', 'i32.add', 'local.set c',
    'br 0',
    'end', 'end',
    'local.get a', 'local.get b', 'local.get size', 'local.get st', 'call 2', 'local.tee m',
    'i32.const 0', 'i32.lt_s', 'if', 'i32.const -1', 'local.get k', 'i32.sub', 'return', 'end',
    'local.get st', `i32.load ${STATE.accAt}`, 'local.set acc',
    'local.get mode', 'if',
    // XLA: the space above the last run up to the heap's size is one more gap, before a run of no
    // length at top = max(heap size, last end), which best-gap returns only when no gap holds it.
    // (With no run, the end read is the scratch before the buffer, and not taken.)
    'local.get acc', 'local.get m', 'i32.const 4', 'i32.shl', 'i32.add', 'i32.const 8', 'i32.sub', 'f64.load 0', 'f64.const 0',
    'local.get m', 'select', 'local.set last',
    'local.get st', `f64.load ${STATE.heapBytes}`, 'local.get last', 'f64.max', 'local.set top',
    'local.get acc', 'local.get m', 'i32.const 4', 'i32.shl', 'i32.add', 'local.tee x', 'local.get top', 'f64.store 0',
    'local.get x', 'local.get top', 'f64.store 8',
    'local.get acc', 'local.get m', 'i32.const 1', 'i32.add', 'local.get size', 'call 1', 'local.tee off', 'local.get top', 'f64.eq',
    'if',
    'local.get last', 'local.set off',
    'local.get st', 'local.get off', 'local.get size', 'f64.add', `f64.store ${STATE.heapBytes}`,
    'end',
    'else',
    'local.get acc', 'local.get m', 'local.get size', 'call 1', 'local.set off',
    'end',
    // The aligned end (as alignUp computes it).
    'local.get off', 'local.get size', 'f64.add', 'local.set end',
    'local.get alignment', 'f64.const 1', 'f64.gt', 'if',
    'local.get end', 'local.get alignment', 'f64.div', 'f64.ceil', 'local.get alignment', 'f64.mul', 'local.set end',
    'end',
    'local.get end', 'local.get off', 'f64.gt', 'if',
    'local.get at', 'i32.load 8', 'local.get off', 'f64.const 0', 'f64.add', 'local.get end', 'local.get a', 'local.get b', 'local.get st', 'call 3', 'drop',
    'end',
    'local.get at', 'local.get off', 'f64.store 0',
    'local.get k', 'i32.const 1', 'i32.add', 'local.set k',
    'br 0',
    'end', 'end',
    'local.get k',
  ],
};

export type UnionKernel = (a: number, b: number, gap: number, st: number) => number;
export type InsertKernel = (p: number, offset: number, end: number, first: number, last: number, st: number) => number;
export type StepsKernel = (k0: number, k1: number, mode: number, alignment: number, st: number) => number;

export interface PlacementKernels {
  merge: MergeKernel;
  bestGap: BestGapKernel;
  union: UnionKernel;
  insert: InsertKernel;
  steps: StepsKernel;
}

let compiled: object | undefined;

/** The kernels over `memory` (the module is compiled once per process). */
export function placementKernels(memory: WasmMemory): PlacementKernels {
  compiled ??= new wasm.Module(encodeModule([MERGE_FUNCTION, BEST_GAP_FUNCTION, UNION, INSERT, STEPS]));
  const { exports } = new wasm.Instance(compiled, { env: { mem: memory } });
  return {
    merge: exports['merge'] as MergeKernel,
    bestGap: exports['bestGap'] as BestGapKernel,
    union: exports['union'] as UnionKernel,
    insert: exports['insert'] as InsertKernel,
    steps: exports['steps'] as StepsKernel,
  };
}

/**
 * Where the placement's parts are in its kernel memory for n positions: the slots (one past the last
 * position, so that a block's end address is in the memory), the blocks' bounds and the state, then
 * the runs of one block and their sentinel, then the two run buffers, each after a run of scratch.
 * Throws OutOfAddressSpace when they do not fit in a WebAssembly memory.
 */
export function memoryLayout(n: number, records: number, blockBits: number, runCap: number) {
  const blocks = (n >> blockBits) + 1;
  const infoAt = Math.ceil((SLOT_BYTES * (n + 1)) / BLOCK_INFO_BYTES) * BLOCK_INFO_BYTES;
  const stateAt = infoAt + BLOCK_INFO_BYTES * blocks;
  // The state, and each class's window (at most 33 classes).
  const pickAt = Math.ceil((stateAt + WINDOW_AT + 8 * 33) / RUN_BYTES) * RUN_BYTES + RUN_BYTES;
  const accAt = pickAt + RUN_BYTES * ((1 << blockBits) + 2);
  const tmpAt = accAt + RUN_BYTES * (runCap + 1);
  const bytes = tmpAt + RUN_BYTES * runCap;
  if (bytes > WASM_MEMORY_MAX_BYTES) {
    const perRecord = SLOT_BYTES + BLOCK_INFO_BYTES / 2 ** blockBits;
    const most = Math.floor((WASM_MEMORY_MAX_BYTES - (bytes - perRecord * n)) / perRecord) - (n - records);
    throw new OutOfAddressSpace(
      `${formatCount(records)} records need ${formatBytes(bytes)} of WebAssembly memory for their placement, over its limit of ` +
        `${formatBytes(WASM_MEMORY_MAX_BYTES)} (at most ${formatCount(most)} records)`,
    );
  }
  return { blocks, infoAt, stateAt, pickAt, accAt, tmpAt, bytes };
}
