/**
 * memsim as a library: read traces, replay them through registered allocators, build reports.
 * Nothing here prints or touches the process; the CLI in `src/cli/` does that.
 */
export * from './trace/index.js';
export * from './allocators/index.js';
export { replay, effectiveCapacity, type RunOptions, type RunResult } from './sim/run.js';
export { replayTrace, type ReplayOptions, type ReplayOutcome, type OomRecord, type StepRecord } from './sim/replay.js';
export { buildReplayReport, summarize, traceInfo, type ReplayReport, type ReplaySummary, type TraceInfo } from './sim/report.js';
export { PlacementComparison, type PlacementFidelity, type PlacementMismatch } from './sim/fidelity.js';
export { compareTrace, DEFAULT_CAPACITY_STEP_BYTES, type CompareEntry, type CompareExecution, type CompareOptions, type CompareReport } from './sweep/compare.js';
export { compareWithBaseline, parseBaseline, type BaselineComparison, type FigureChange } from './sweep/compare-baseline.js';
export { evaluateGates, parseGate, type GateResult, type GateSpec } from './sweep/compare-gates.js';
export { searchMinCapacity, type CapacitySearchResult, type CapacitySearchOptions } from './sweep/capacity-search.js';
export * from './sweep/contenders.js';
export { runTune, type TuneExecution, type TuneOptions } from './sweep/tune.js';
export { assembleTuneReport, mergeTuneParts, parseTunePart } from './sweep/tune-report.js';
export type { TunePart, TuneRecommendation, TuneReport, TuneRow, TuneShortfall, TuneSpace } from './sweep/tune-types.js';
export { formatConfiguration, parseConfiguration, splitConfigurations, type Configuration } from './util/configuration.js';
export { buildVisualReport, collectComparedRuns, collectVisualRun, visualContext, type VisualReport, type VisualRun, type VisualSettings, type VisualState } from './sim/visual.js';
export { renderHtmlReport, loadHtmlAssets, type HtmlAssets } from './report/html/index.js';
export * from './planners/index.js';
export { readPlanInput } from './planners/input.js';
export { workloads, getWorkload, type Workload, type WorkloadOptions } from './gen/index.js';
export { parseBytes, formatBytes } from './util/bytes.js';
export { MemsimError, TraceError, UsageError, type InputProblem } from './errors.js';
export { VERSION } from './version.js';
