import { encodeModule, F64, I32, I64, wasm, type WasmMemory } from './wasm-module.js';

/** Bytes per slot in the kernel's memory: offset and aligned end (f64, non-negative), first and last time index (i32). */
export const SLOT_BYTES = 24;
/** Bytes per range or run: start and end (f64). */
export const RUN_BYTES = 16;

/**
 * `merge(q, qe, hiFirst, loLast, acc, m, tmp, gap, pick)`: the step of Placement's union for one
 * block, over one memory. It copies the ranges of the slots in bytes [q, qe) whose first time is at
 * most hiFirst and last at least loLast to `pick` (still by offset, without a branch per slot), then
 * merges them with the m runs at `acc` into runs at `tmp`, coalescing ranges that overlap, touch or
 * are less than `gap` apart; it returns how many, or -1 when no slot is picked (the runs at acc stay).
 *
 * The merge has no branch on the order of two offsets (a coin toss to the processor): each step takes
 * the lower start of the two lists (the runs so far on ties) with `select` (a conditional move), then
 * extends the current run or closes it and opens one. Offsets and ends are non-negative doubles, whose
 * bit patterns order as their values do, so the starts are compared and moved as 64-bit integers
 * (a cycle each, where a double's compare, convert, multiply and add kept each step waiting); only
 * the gap test subtracts them as doubles, exact for the integers below 2^53 they are. Past the end
 * of each list sits a start that is never taken (1e300, with an end of 0). The same loop in
 * JavaScript spends most of its instructions on the checks of its typed array accesses (V8 reloads
 * each array's map, length and base on every step); here it has none.
 */
const PARAMS = [
  ['q', I32],
  ['qe', I32],
  ['hiFirst', I32],
  ['loLast', I32],
  ['acc', I32],
  ['m', I32],
  ['tmp', I32],
  ['gap', F64],
  ['pick', I32],
] as const;
const LOCALS = [
  ['pp', I32],
  ['i', I32],
  ['j', I32],
  ['w', I32],
  ['k', I32],
  ['t', I32],
  ['g', I32],
  ['cs', I64],
  ['ce', I64],
  ['s', I64],
  ['e', I64],
  ['x', I64],
  ['y', I64],
] as const;

const NEVER = '1e300';

const CODE = [
  // Picks: each slot's range is written, and the write position moves on when the slot meets the window.
  'local.get pick', 'local.set pp',
  'block', 'local.get q', 'local.get qe', 'i32.lt_u', 'i32.eqz', 'br_if 0',
  'loop',
  'local.get pp', 'local.get q', 'f64.load 0', 'f64.store 0',
  'local.get pp', 'local.get q', 'f64.load 8', 'f64.store 8',
  'local.get pp',
  'local.get q', 'i32.load 20', 'local.get loLast', 'i32.ge_s',
  'local.get q', 'i32.load 16', 'local.get hiFirst', 'i32.le_s', 'i32.and',
  'i32.const 4', 'i32.shl', 'i32.add', 'local.set pp',
  `local.get q`, `i32.const ${SLOT_BYTES}`, 'i32.add', 'local.tee q', 'local.get qe', 'i32.lt_u', 'br_if 0',
  'end', 'end',
  'block', 'local.get pp', 'local.get pick', 'i32.ne', 'br_if 0', 'i32.const -1', 'return', 'end',
  // Sentinels past both lists.
  'local.get pp', `f64.const ${NEVER}`, 'f64.store 0', 'local.get pp', 'f64.const 0', 'f64.store 8',
  'local.get acc', 'local.get m', 'i32.const 4', 'i32.shl', 'i32.add', 'local.tee i', `f64.const ${NEVER}`, 'f64.store 0',
  'local.get i', 'f64.const 0', 'f64.store 8',
  // Steps: one per range and run.
  'local.get pp', 'local.get pick', 'i32.sub', 'i32.const 4', 'i32.shr_u', 'local.get m', 'i32.add', 'local.set k',
  'local.get acc', 'local.set i', 'local.get pick', 'local.set j', 'local.get tmp', 'local.set w',
  // An empty run at the lowest start, which the first range extends.
  'local.get j', 'i64.load 0', 'local.tee x', 'local.get i', 'i64.load 0', 'local.tee y', 'local.get x', 'local.get y', 'i64.lt_s', 'select',
  'local.tee cs', 'local.set ce',
  'loop',
  'local.get j', 'i64.load 0', 'local.tee x', 'local.get i', 'i64.load 0', 'local.tee y', 'i64.lt_s', 'local.set t',
  // s, e: the taken range.
  'local.get x', 'local.get y', 'local.get t', 'select', 'local.set s',
  'local.get j', 'i64.load 8', 'local.get i', 'i64.load 8', 'local.get t', 'select', 'local.set e',
  'local.get j', 'local.get t', 'i32.const 4', 'i32.shl', 'i32.add', 'local.set j',
  'local.get i', 'local.get t', 'i32.const 1', 'i32.xor', 'i32.const 4', 'i32.shl', 'i32.add', 'local.set i',
  // The run so far is written each step; it stays only when the next range opens a new one.
  'local.get w', 'local.get cs', 'i64.store 0', 'local.get w', 'local.get ce', 'i64.store 8',
  'local.get s', 'f64.reinterpret_i64', 'local.get ce', 'f64.reinterpret_i64', 'f64.sub', 'local.get gap', 'f64.ge', 'local.set g',
  'local.get w', 'local.get g', 'i32.const 4', 'i32.shl', 'i32.add', 'local.set w',
  // A new run starts at s; the end only grows (a new run's end is past the old one's, as s is).
  'local.get s', 'local.get cs', 'local.get g', 'select', 'local.set cs',
  'local.get e', 'local.get ce', 'local.get e', 'local.get ce', 'i64.gt_s', 'select', 'local.set ce',
  'local.get k', 'i32.const 1', 'i32.sub', 'local.tee k', 'br_if 0',
  'end',
  'local.get w', 'local.get cs', 'i64.store 0', 'local.get w', 'local.get ce', 'i64.store 8',
  'local.get w', 'local.get tmp', 'i32.sub', 'i32.const 4', 'i32.shr_u', 'i32.const 1', 'i32.add',
];

export type MergeKernel = (q: number, qe: number, hiFirst: number, loLast: number, acc: number, m: number, tmp: number, gap: number, pick: number) => number;

/**
 * `bestGap(at, m, size)`: TFLite's greedy-by-size choice over the m runs at `at` (ascending,
 * disjoint): the offset of the smallest gap before a run that holds `size` bytes (the lowest on
 * ties), or the end of the last run when none does (0 with no runs).
 */
const BEST_GAP_PARAMS = [
  ['at', I32],
  ['m', I32],
  ['size', F64],
] as const;
const BEST_GAP_LOCALS = [
  ['prev', F64],
  ['best', F64],
  ['bestAt', F64],
  ['d', F64],
  ['c', I32],
] as const;
const BEST_GAP = [
  'f64.const Infinity', 'local.set best', 'f64.const -1', 'local.set bestAt',
  'block', 'local.get m', 'i32.eqz', 'br_if 0',
  'loop',
  'local.get at', 'f64.load 0', 'local.get prev', 'f64.sub', 'local.tee d', 'local.get size', 'f64.ge',
  'local.get d', 'local.get best', 'f64.lt', 'i32.and', 'local.set c',
  'local.get d', 'local.get best', 'local.get c', 'select', 'local.set best',
  'local.get prev', 'local.get bestAt', 'local.get c', 'select', 'local.set bestAt',
  'local.get at', 'f64.load 8', 'local.set prev',
  'local.get at', `i32.const ${RUN_BYTES}`, 'i32.add', 'local.set at',
  'local.get m', 'i32.const 1', 'i32.sub', 'local.tee m', 'br_if 0',
  'end', 'end',
  'local.get prev', 'local.get bestAt', 'local.get bestAt', 'f64.const 0', 'f64.lt', 'select',
];

export type BestGapKernel = (at: number, m: number, size: number) => number;

let compiled: object | undefined;

/** The kernels over `memory` (the module is compiled once per process). */
export function placementKernels(memory: WasmMemory): { merge: MergeKernel; bestGap: BestGapKernel } {
  compiled ??= new wasm.Module(
    encodeModule([
      { exportName: 'merge', params: PARAMS, locals: LOCALS, result: I32, code: CODE },
      { exportName: 'bestGap', params: BEST_GAP_PARAMS, locals: BEST_GAP_LOCALS, result: F64, code: BEST_GAP },
    ]),
  );
  const { exports } = new wasm.Instance(compiled, { env: { mem: memory } });
  return { merge: exports['merge'] as MergeKernel, bestGap: exports['bestGap'] as BestGapKernel };
}
