import { MERGE_FUNCTIONS, SLOT_BYTES } from './merge-kernel.js';
import { encodeModule, F64, I32, wasm, type WasmMemory } from './wasm-module.js';

/**
 * Where the kernels below read the placement's tables: i32 fields of a block of the kernel's
 * memory, at these byte offsets from its start (`cfg`).
 */
export const CFG = {
  /** The run buffers: the runs so far (where the last union left them) and the next merge's. */
  acc: 0,
  tmp: 4,
  /** Runs each buffer holds. */
  cap: 8,
  /** The picked ranges of one block. */
  pick: 12,
  /** Per block, 32 bytes: placed count, smallest first, largest last, largest first, smallest last. */
  info: 16,
  /** TimeClasses' startTable and reachTable (i32 each). */
  start: 20,
  reach: 24,
  classCount: 28,
  steps: 32,
  grainBits: 36,
  blockBits: 40,
} as const;
export const CFG_BYTES = 48;

/**
 * `union(cfg, a, b, gap)`: Placement's union of the placed records that meet the window [a, b], as
 * runs at the acc it leaves in cfg: for each length class, the blocks of its positions that may meet
 * the window (TimeClasses' windowStart/windowEnd, each block once), those whose placed records may
 * meet it merged in by `merge` (function 0). It returns how many runs, or minus the runs a buffer
 * must hold when they would not fit (nothing is kept: the caller grows the buffers and asks again).
 */
const UNION_PARAMS = [
  ['cfg', I32],
  ['a', I32],
  ['b', I32],
  ['gap', F64],
] as const;
const UNION_LOCALS = [
  ['acc', I32],
  ['tmp', I32],
  ['cap', I32],
  ['pick', I32],
  ['info0', I32],
  ['start', I32],
  ['reach', I32],
  ['nc', I32],
  ['steps', I32],
  ['gb', I32],
  ['bb', I32],
  ['m', I32],
  ['done', I32],
  ['k', I32],
  ['base', I32],
  ['from', I32],
  ['to', I32],
  ['blk', I32],
  ['last', I32],
  ['info', I32],
  ['count', I32],
  ['o', I32],
  ['w', I32],
  ['t', I32],
] as const;
const UNION = [
  ...(['acc', 'tmp', 'cap', 'pick', 'start', 'reach', 'steps'] as const).flatMap((f) => ['local.get cfg', `i32.load ${CFG[f]}`, `local.set ${f}`]),
  'local.get cfg', `i32.load ${CFG.info}`, 'local.set info0',
  'local.get cfg', `i32.load ${CFG.classCount}`, 'local.set nc',
  'local.get cfg', `i32.load ${CFG.grainBits}`, 'local.set gb',
  'local.get cfg', `i32.load ${CFG.blockBits}`, 'local.set bb',
  'i32.const -1', 'local.set done',
  'block',
  'loop',
  'local.get k', 'local.get nc', 'i32.ge_s', 'br_if 1',
  'block',
  'local.get k', 'local.get steps', 'i32.mul', 'local.set base',
  // from: the class's first position that may meet a; to: past the last that may meet b.
  'local.get reach', 'local.get base', 'local.get a', 'local.get gb', 'i32.shr_s', 'i32.add', 'i32.const 2', 'i32.shl', 'i32.add',
  'i32.load 0', 'local.set from',
  'local.get start', 'local.get base', 'local.get b', 'local.get gb', 'i32.shr_s', 'i32.add', 'i32.const 2', 'i32.shl', 'i32.add',
  'i32.load 4', 'local.set to',
  'local.get from', 'local.get to', 'i32.ge_s', 'br_if 0',
  // Blocks from max(from's, one past the last class's last) to to's.
  'local.get from', 'local.get bb', 'i32.shr_s', 'local.tee blk', 'local.get done', 'i32.const 1', 'i32.add', 'local.tee t',
  'local.get blk', 'local.get t', 'i32.gt_s', 'select', 'local.set blk',
  'local.get to', 'i32.const 1', 'i32.sub', 'local.get bb', 'i32.shr_s', 'local.tee last', 'local.set done',
  'block',
  'local.get blk', 'local.get last', 'i32.gt_s', 'br_if 0',
  'loop',
  'block',
  // A block with no placed record, or none that may meet the window, is passed over.
  'local.get info0', 'local.get blk', 'i32.const 5', 'i32.shl', 'i32.add', 'local.tee info', 'i32.load 0', 'local.tee count', 'i32.eqz', 'br_if 0',
  'local.get info', 'i32.load 8', 'local.get a', 'i32.lt_s', 'br_if 0',
  'local.get info', 'i32.load 4', 'local.get b', 'i32.gt_s', 'br_if 0',
  'block',
  'local.get m', 'local.get count', 'i32.add', 'i32.const 2', 'i32.add', 'local.tee t', 'local.get cap', 'i32.le_s', 'br_if 0',
  'i32.const 0', 'local.get t', 'i32.sub', 'return',
  'end',
  // merge(q, qe, hiFirst, loLast, acc, m, tmp, gap, pick); a bound every record of the block meets is not tested.
  'local.get blk', 'local.get bb', 'i32.shl', `i32.const ${SLOT_BYTES}`, 'i32.mul', 'local.tee o',
  'local.get o', 'local.get count', `i32.const ${SLOT_BYTES}`, 'i32.mul', 'i32.add',
  'local.get b', 'i32.const 2147483647', 'local.get info', 'i32.load 12', 'local.get b', 'i32.gt_s', 'select',
  'local.get a', 'i32.const -1', 'local.get info', 'i32.load 16', 'local.get a', 'i32.lt_s', 'select',
  'local.get acc', 'local.get m', 'local.get tmp', 'local.get gap', 'local.get pick',
  'call 0',
  'local.tee w', 'i32.const 0', 'i32.lt_s', 'br_if 0',
  'local.get w', 'local.set m',
  'local.get acc', 'local.set t', 'local.get tmp', 'local.set acc', 'local.get t', 'local.set tmp',
  'end',
  'local.get blk', 'i32.const 1', 'i32.add', 'local.tee blk', 'local.get last', 'i32.le_s', 'br_if 0',
  'end',
  'end',
  'end',
  'local.get k', 'i32.const 1', 'i32.add', 'local.set k',
  'br 0',
  'end',
  'end',
  'local.get cfg', 'local.get acc', `i32.store ${CFG.acc}`,
  'local.get cfg', 'local.get tmp', `i32.store ${CFG.tmp}`,
  'local.get m',
];

/**
 * `bestFit(cfg, a, b, size)`: greedy-by-size's offset for a record of `size` > 0 bytes whose window
 * is [a, b]: `union` with gaps narrower than size closed, then `bestGap` (function 1) over its runs;
 * a negative result is `union`'s call for more room.
 */
const BEST_FIT_PARAMS = [
  ['cfg', I32],
  ['a', I32],
  ['b', I32],
  ['size', F64],
] as const;
const BEST_FIT_LOCALS = [['m', I32]] as const;
const BEST_FIT = [
  'local.get cfg', 'local.get a', 'local.get b', 'local.get size', 'call 2', 'local.set m',
  'block', 'local.get m', 'i32.const 0', 'i32.ge_s', 'br_if 0', 'local.get m', 'f64.convert_i32_s', 'return', 'end',
  'local.get cfg', `i32.load ${CFG.acc}`, 'local.get m', 'local.get size', 'call 1',
];

/**
 * `insert(cfg, p, offset, end, first, last)`: Placement's placement of the record at position p into
 * its block's slots, after those at or below its offset (earlier placements first on ties).
 */
const INSERT_PARAMS = [
  ['cfg', I32],
  ['p', I32],
  ['offset', F64],
  ['end', F64],
  ['first', I32],
  ['last', I32],
] as const;
const INSERT_LOCALS = [
  ['bb', I32],
  ['info', I32],
  ['count', I32],
  ['o', I32],
  ['q', I32],
  ['s', I32],
] as const;
const INSERT = [
  'local.get cfg', `i32.load ${CFG.blockBits}`, 'local.set bb',
  'local.get cfg', `i32.load ${CFG.info}`, 'local.get p', 'local.get bb', 'i32.shr_u', 'i32.const 5', 'i32.shl', 'i32.add', 'local.tee info',
  'local.get info', 'i32.load 0', 'local.tee count', 'i32.const 1', 'i32.add', 'i32.store 0',
  // o: the block's first slot; q: the slot that is free, moved down past those above the offset.
  'local.get p', 'local.get bb', 'i32.shr_u', 'local.get bb', 'i32.shl', `i32.const ${SLOT_BYTES}`, 'i32.mul', 'local.tee o',
  'local.get count', `i32.const ${SLOT_BYTES}`, 'i32.mul', 'i32.add', 'local.set q',
  'block',
  'loop',
  'local.get q', 'local.get o', 'i32.le_u', 'br_if 1',
  'local.get q', `i32.const ${SLOT_BYTES}`, 'i32.sub', 'local.tee s', 'f64.load 0', 'local.get offset', 'f64.gt', 'i32.eqz', 'br_if 1',
  'local.get q', 'local.get s', 'i64.load 0', 'i64.store 0',
  'local.get q', 'local.get s', 'i64.load 8', 'i64.store 8',
  'local.get q', 'local.get s', 'i64.load 16', 'i64.store 16',
  'local.get s', 'local.set q',
  'br 0',
  'end',
  'end',
  // + 0 turns a -0 into 0: the merge orders offsets by their bit patterns.
  'local.get q', 'local.get offset', 'f64.const 0', 'f64.add', 'f64.store 0',
  'local.get q', 'local.get end', 'f64.store 8',
  'local.get q', 'local.get first', 'i32.store 16',
  'local.get q', 'local.get last', 'i32.store 20',
  'i32.const 0',
];

/** The functions numbered 2 to 4, after merge (0) and bestGap (1). */
const UNION_FUNCTIONS = [
  { exportName: 'union', params: UNION_PARAMS, locals: UNION_LOCALS, result: I32, code: UNION },
  { exportName: 'bestFit', params: BEST_FIT_PARAMS, locals: BEST_FIT_LOCALS, result: F64, code: BEST_FIT },
  { exportName: 'insert', params: INSERT_PARAMS, locals: INSERT_LOCALS, result: I32, code: INSERT },
];

export type UnionKernel = (cfg: number, a: number, b: number, gap: number) => number;
export type BestFitKernel = (cfg: number, a: number, b: number, size: number) => number;
export type InsertKernel = (cfg: number, p: number, offset: number, end: number, first: number, last: number) => number;

let compiled: object | undefined;

/** The placement's kernels over `memory` (the module is compiled once per process). */
export function placementKernels(memory: WasmMemory): { union: UnionKernel; bestFit: BestFitKernel; insert: InsertKernel } {
  compiled ??= new wasm.Module(encodeModule([...MERGE_FUNCTIONS, ...UNION_FUNCTIONS]));
  const { exports } = new wasm.Instance(compiled, { env: { mem: memory } });
  return {
    union: exports['union'] as UnionKernel,
    bestFit: exports['bestFit'] as BestFitKernel,
    insert: exports['insert'] as InsertKernel,
  };
}
