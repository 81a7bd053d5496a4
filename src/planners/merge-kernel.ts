import { F64, I32, I64, type WasmFunction } from './wasm-module.js';

/** Bytes per slot in the kernel's memory: offset and aligned end (f64, non-negative), first and last time index (i32). */
export const SLOT_BYTES = 24;
/** Bytes per range or run: start and end (f64). */
export const RUN_BYTES = 16;

/**
 * `merge(q, qe, hiFirst, loLast, acc, m, tmp, gap, pick)`: the step of Placement's union for one
 * block, over one memory. The slots in bytes [q, qe) whose first time is at most hiFirst and last at
 * least loLast are picked, and their ranges (by offset) coalesced on the way into runs: ranges that
 * overlap, touch or are less than `gap` apart are one run. Those runs go to `tmp` when there are no
 * runs so far (m = 0), else to `pick`, and are merged with the m runs at `acc` into runs at `tmp`,
 * coalesced the same way. It returns how many runs are at tmp, or -1 when no slot is picked (the
 * runs at acc stay). The 16 bytes before `pick` and before `tmp` are scratch. With no bound
 * (hiFirst 2^31 - 1, loLast -1: a block whose records all meet the window, a quarter of the slots
 * read on a training trace) the scan reads no times.
 *
 * Neither pass has a branch on the data (a coin toss to the processor): the scan tests each slot's
 * times and folds its range into the run being built with `select` (conditional moves), and the
 * merge takes the lower start of the two lists (the runs so far on ties) the same way, then extends
 * the current run or closes it and opens one. The scan's work per slot does not wait on the last
 * slot's (the run's end only grows, by a max); the merge's does (where the next run comes from
 * depends on the last comparison), so it gets the fewer items: a block's runs instead of its picks.
 * Offsets and ends are non-negative doubles, whose bit patterns order as their values do, so they
 * are compared and moved as 64-bit integers; only the gap test subtracts them as doubles, exact for
 * the integers below 2^53 they are. Past the end of each list sits a start that is never taken
 * (1e300, with an end of 0). The same loops in JavaScript spend most of their instructions on the
 * checks of typed array accesses (V8 reloads each array's map, length and base on every step); here
 * they have none.
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
  ['d', I32],
  ['p', I32],
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
  // The block's runs go to d: tmp when they are all there is, else pick. The run being built is
  // (cs, ce), written at pp each step; pp moves on when a picked range opens a new run. The first
  // picked range always does (ce starts at -Infinity), leaving a run of no use before d.
  'local.get tmp', 'local.get pick', 'local.get m', 'i32.eqz', 'select', 'local.tee d',
  'i32.const 16', 'i32.sub', 'local.set pp',
  'f64.const -Infinity', 'i64.reinterpret_f64', 'local.set ce',
  'block', 'local.get q', 'local.get qe', 'i32.lt_u', 'i32.eqz', 'br_if 0',
  // Every slot picked (no bound to test): the same loop without the times.
  'block',
  'local.get hiFirst', 'i32.const 2147483647', 'i32.ne', 'local.get loLast', 'i32.const -1', 'i32.ne', 'i32.or', 'br_if 0',
  'loop',
  'local.get q', 'i64.load 0', 'local.set x',
  'local.get q', 'i64.load 8', 'local.set e',
  'local.get x', 'f64.reinterpret_i64', 'local.get ce', 'f64.reinterpret_i64', 'f64.sub', 'local.get gap', 'f64.ge', 'local.set g',
  'local.get pp', 'local.get cs', 'i64.store 0', 'local.get pp', 'local.get ce', 'i64.store 8',
  'local.get pp', 'local.get g', 'i32.const 4', 'i32.shl', 'i32.add', 'local.set pp',
  'local.get x', 'local.get cs', 'local.get g', 'select', 'local.set cs',
  'local.get e', 'local.get ce', 'local.get e', 'local.get ce', 'i64.gt_s', 'select', 'local.set ce',
  'local.get q', `i32.const ${SLOT_BYTES}`, 'i32.add', 'local.tee q', 'local.get qe', 'i32.lt_u', 'br_if 0',
  'end',
  'br 1',
  'end',
  'loop',
  'local.get q', 'i64.load 0', 'local.set x',
  'local.get q', 'i64.load 8', 'local.set e',
  'local.get q', 'i32.load 20', 'local.get loLast', 'i32.ge_s',
  'local.get q', 'i32.load 16', 'local.get hiFirst', 'i32.le_s', 'i32.and', 'local.set p',
  'local.get x', 'f64.reinterpret_i64', 'local.get ce', 'f64.reinterpret_i64', 'f64.sub', 'local.get gap', 'f64.ge',
  'local.get p', 'i32.and', 'local.set g',
  'local.get pp', 'local.get cs', 'i64.store 0', 'local.get pp', 'local.get ce', 'i64.store 8',
  'local.get pp', 'local.get g', 'i32.const 4', 'i32.shl', 'i32.add', 'local.set pp',
  'local.get x', 'local.get cs', 'local.get g', 'select', 'local.set cs',
  // A new run's end is past the old one's (its start is), so the end only grows.
  'local.get e', 'local.get ce', 'local.get e', 'local.get ce', 'i64.gt_s', 'local.get p', 'i32.and', 'select', 'local.set ce',
  'local.get q', `i32.const ${SLOT_BYTES}`, 'i32.add', 'local.tee q', 'local.get qe', 'i32.lt_u', 'br_if 0',
  'end', 'end',
  'block', 'local.get pp', 'local.get d', 'i32.const 16', 'i32.sub', 'i32.ne', 'br_if 0', 'i32.const -1', 'return', 'end',
  'local.get pp', 'local.get cs', 'i64.store 0', 'local.get pp', 'local.get ce', 'i64.store 8',
  'local.get pp', 'local.get d', 'i32.sub', 'i32.const 4', 'i32.shr_u', 'i32.const 1', 'i32.add', 'local.set k',
  'block', 'local.get m', 'br_if 0', 'local.get k', 'return', 'end',
  // Sentinels past both lists.
  'local.get pp', `f64.const ${NEVER}`, 'f64.store 16', 'local.get pp', 'f64.const 0', 'f64.store 24',
  'local.get acc', 'local.get m', 'i32.const 4', 'i32.shl', 'i32.add', 'local.tee i', `f64.const ${NEVER}`, 'f64.store 0',
  'local.get i', 'f64.const 0', 'f64.store 8',
  // Steps: one per run of either list.
  'local.get k', 'local.get m', 'i32.add', 'local.set k',
  'local.get acc', 'local.set i', 'local.get pick', 'local.set j', 'local.get tmp', 'local.set w',
  // An empty run at the lowest start, which the first run taken extends.
  'local.get j', 'i64.load 0', 'local.tee x', 'local.get i', 'i64.load 0', 'local.tee y', 'local.get x', 'local.get y', 'i64.lt_s', 'select',
  'local.tee cs', 'local.set ce',
  'loop',
  'local.get j', 'i64.load 0', 'local.tee x', 'local.get i', 'i64.load 0', 'local.tee y', 'i64.lt_s', 'local.set t',
  // s, e: the taken run.
  'local.get x', 'local.get y', 'local.get t', 'select', 'local.set s',
  'local.get j', 'i64.load 8', 'local.get i', 'i64.load 8', 'local.get t', 'select', 'local.set e',
  'local.get j', 'local.get t', 'i32.const 4', 'i32.shl', 'i32.add', 'local.set j',
  'local.get i', 'local.get t', 'i32.const 1', 'i32.xor', 'i32.const 4', 'i32.shl', 'i32.add', 'local.set i',
  // The run so far is written each step; it stays only when the next one opens a new one.
  'local.get w', 'local.get cs', 'i64.store 0', 'local.get w', 'local.get ce', 'i64.store 8',
  'local.get s', 'f64.reinterpret_i64', 'local.get ce', 'f64.reinterpret_i64', 'f64.sub', 'local.get gap', 'f64.ge', 'local.set g',
  'local.get w', 'local.get g', 'i32.const 4', 'i32.shl', 'i32.add', 'local.set w',
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

/** The merge kernel (index 0 in the module: the window kernel calls it). */
export const MERGE_FUNCTION: WasmFunction = { exportName: 'merge', params: PARAMS, locals: LOCALS, result: I32, code: CODE };
export const BEST_GAP_FUNCTION: WasmFunction = { exportName: 'bestGap', params: BEST_GAP_PARAMS, locals: BEST_GAP_LOCALS, result: F64, code: BEST_GAP };
