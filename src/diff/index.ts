/** `memsim diff`: two traces of one workload, what changed in memory and who holds it. */
export { diffTraces, defaultDiffAllocators, type DiffOptions } from './diff.js';
export { diffHolders, type HolderChange, type HolderChangeKind, type HoldersDiff } from './holders-diff.js';
export { evaluateGrowthGates, oomChange, parseGrowthGate, type DiffGateResult, type GrowthGate } from './gates.js';
export type { DiffEntry, DiffFigure, DiffReport, DiffSide, FigureDelta } from './types.js';
