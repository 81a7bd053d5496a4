import { FAILED, NO_BLOCK, type AllocatorState, type OnlineAllocator } from '../allocators/types.js';
import { type OomRecord, oomRecord, recordedOomRecord } from './oom-record.js';
import { OP_ALLOC, type Trace } from '../trace/model.js';
import { TimelineSampler } from './timeline.js';
import { growColumn, newColumn } from '../trace/columns.js';

export type { OomRecord };

/** What to do when a request cannot be served. */
export type OnOom = 'stop' | 'continue';

/** Options of one replay. */
export interface ReplayOptions {
  /** `stop` (default) ends at the first failure, as a real program would. */
  onOom?: OnOom;
  /** Called for every served allocation (for `--placements`). */
  onPlacement?: (event: number, allocation: number, address: number, sizeBytes: number, allocatedBytes: number) => void;
  /** Called every 64Ki events (with the events done so far) and at the end. */
  onProgress?: (done: number, total: number) => void;
  /** Upper bound on timeline points (default 1000). */
  timelinePoints?: number;
  /** Events after which to capture the allocator's state (for plots). */
  captureStateAt?: readonly number[];
  /** Capture the allocator's state at each OOM (up to 64). */
  captureOomStates?: boolean;
  /** Detailed OOM records kept (the rest are counted): default 100. */
  maxOomRecords?: number;
  /**
   * Called where the real run failed (each of the trace's `recorded.ooms`, by its index), with the
   * live bytes then, when the allocator does not replay the history itself (for fidelity).
   */
  onRecordedOom?: (k: number, event: number, liveBytes: number) => void;
}

/**
 * Allocations whose handles a replay of a growing trace reserves room for (address space only, see
 * columns.ts; past it the handles are copied once into a larger reservation).
 */
const HANDLE_RESERVE = 2 ** 26;

/** Peaks within one step. */
export interface StepRecord {
  step: number;
  events: number;
  peakLiveBytes: number;
  peakAllocatedBytes: number;
  peakReservedBytes: number;
}

/** The allocator's state captured after an event. */
export interface CapturedState {
  event: number;
  /** Why it was captured: `peak`, `oom`, `requested`. */
  reason: string;
  state: AllocatorState;
}

/** The raw outcome of a replay; {@link buildReplayReport} shapes it into the JSON report. */
export interface ReplayOutcome {
  completed: boolean;
  /** Events replayed (all of them unless stopped at an OOM). */
  eventsReplayed: number;
  peakLiveBytes: number;
  peakLiveEvent: number;
  peakAllocatedBytes: number;
  peakAllocatedEvent: number;
  peakReservedBytes: number;
  peakReservedEvent: number;
  finalLiveBytes: number;
  finalAllocatedBytes: number;
  finalReservedBytes: number;
  /** At the moment of peak reserved. */
  atPeak: { liveBytes: number; allocatedBytes: number; reservedBytes: number; largestFreeBlockBytes: number };
  deviceAllocCalls: number;
  deviceFreeCalls: number;
  oomCount: number;
  ooms: OomRecord[];
  /** Frees of allocations that failed under `--on-oom continue` (ignored and counted). */
  ignoredFrees: number;
  /** Allocations whose request failed (ascending): they never became live. */
  droppedAllocations: number[];
  steps: StepRecord[];
  timeline: [number, number, number, number][];
  states: CapturedState[];
}

/**
 * Replays a trace through an allocator: one request at a time, tracking live, allocated and reserved
 * bytes, their peaks overall and per step, OOMs with their classification, and a downsampled
 * timeline. Per event it does O(1) work besides the allocator's own, and allocates nothing.
 */
export function replayTrace(trace: Trace, allocator: OnlineAllocator, capacityBytes: number, options: ReplayOptions = {}): ReplayOutcome {
  const run = replayInSteps(trace, allocator, capacityBytes, options, false);
  let r = run.next();
  while (!r.done) r = run.next(trace.length);
  return r.value;
}

/**
 * {@link replayTrace} for a trace still being read (see `trace/pipeline/`): each `next(n)` replays the
 * events up to the trace's length `n` at that moment (its columns are read afresh from `trace` then)
 * and yields how far it got; `next(n)` with `n` equal to what was yielded, once the trace is complete,
 * ends the replay and returns its outcome. The first `next()` starts it. `growing` false: the trace is
 * complete, and the first `next()` replays it whole and returns the outcome, with no step resumed
 * after the loop (V8 compiles a function again, for nothing then, when it is resumed once hot).
 * `growing` a function: the trace grows, and the loop asks it for the trace's length past `i` events
 * (which it may wait a little for; -1 once the trace is complete with `i` events) before it yields:
 * the loop then runs on in one call to the end, compiled once as for a complete trace, instead of
 * being resumed (and compiled again) at every yield.
 */
export function* replayInSteps(
  trace: Trace,
  allocator: OnlineAllocator,
  capacityBytes: number,
  options: ReplayOptions = {},
  growing: boolean | ((i: number) => number) = true,
): Generator<number, ReplayOutcome, number> {
  let n = trace.length;
  let { op, alloc, size, step } = trace;
  let streamCol = trace.stream;
  const onOom = options.onOom ?? 'stop';
  const onPlacement = options.onPlacement;
  const onProgress = options.onProgress;
  const maxOoms = options.maxOomRecords ?? 100;
  const limit = Math.min(capacityBytes, allocator.limitBytes ?? Infinity);
  const capture = new Set(options.captureStateAt ?? []);
  const capturing = capture.size > 0;
  const captureOom = options.captureOomStates ?? false;
  const states: CapturedState[] = [];

  // A growing trace's handles grow in place as its allocations come (see columns.ts): no copy, and
  // no fresh memory but the handles' own (a doubled copy at each growth touched about twice as many
  // fresh pages, at some 10 µs each on a VM).
  let handle = growing === false ? new Int32Array(trace.allocCount) : newColumn(Int32Array, trace.allocCount, HANDLE_RESERVE);
  const sampler = new TimelineSampler(options.timelinePoints ?? 1000);

  let live = 0;
  let allocated = 0;
  // What the allocator holds before the first event (a recorded state's segments), the peak until
  // an event makes another: a replay that stops at its first event still reports it.
  let reserved = allocator.reservedBytes;
  let peakLive = 0;
  let peakLiveEvent = -1;
  let peakAlloc = 0;
  let peakAllocEvent = -1;
  let peakRes = reserved;
  let peakResEvent = -1;
  // The events before this one rebuild the state when the trace's window opened (a snapshot's blocks
  // live then, in an order of memsim's making): a peak that the state at the opening equals is
  // placed there, with all of that state's holders, not at the first of them (a recorded state's
  // segments are reserved from the first event on), when each of them was made (no OOM among them).
  const openedAt = trace.initialEvents;
  const startAllocated = allocator.allocatedBytes;
  const atPeak = { liveBytes: 0, allocatedBytes: startAllocated, reservedBytes: reserved, largestFreeBlockBytes: reserved > startAllocated ? allocator.largestFreeBlockBytes() : 0 };
  // (allocated, reserved) at the peak-live event and (live, reserved) at the peak-allocated event,
  // so that the timeline can show the peaks exactly.
  let pkLiveA = 0;
  let pkLiveR = 0;
  let pkAllocL = 0;
  let pkAllocR = 0;
  let firstL = 0;
  let firstA = 0;
  let firstR = 0;
  let oomCount = 0;
  const ooms: OomRecord[] = [];
  // The real run's failures that a recorded history holds: OOMs of an allocator that replays the
  // history, else points where a simulation is asked whether it fails too.
  const replaysHistory = allocator.recordedFailureEvents !== undefined;
  const onRecorded = options.onRecordedOom;
  const recordedAt = replaysHistory
    ? (allocator.recordedFailureEvents as () => readonly number[])()
    : onRecorded
      ? (trace.recorded?.ooms ?? []).map((o) => o.beforeEvent)
      : [];
  let recordedK = 0;
  let nextRecorded = recordedAt.length > 0 ? (recordedAt[0] as number) : -1;
  // `live` is passed in, not captured: a variable that a closure captures lives in a context, and the
  // loop reads and writes `live` on every event.
  const takeRecorded = (at: number, liveNow: number): void => {
    while (nextRecorded === at) {
      if (!replaysHistory) {
        onRecorded?.(recordedK, at, liveNow);
      } else {
        oomCount++;
        if (ooms.length < maxOoms) ooms.push(recordedOomRecord(trace, allocator, recordedK, at, liveNow, capacityBytes));
      }
      recordedK++;
      nextRecorded = recordedK < recordedAt.length ? (recordedAt[recordedK] as number) : -1;
    }
  };
  let ignoredFrees = 0;
  const dropped: number[] = [];
  let completed = true;
  let i = 0;

  const steps: StepRecord[] = [];
  const stepIndex = new Map<number, StepRecord>();
  let curStep: StepRecord | undefined;
  let curStepId = NaN;
  // The current step's figures, kept in locals while its events run and written to its record when
  // another step starts and at the end: per step, not per event (no closure: see `takeRecorded`).
  let stEvents = 0;
  let stLive = 0;
  let stAlloc = 0;
  let stRes = 0;

  // The trace may grow between steps: replay what there is, then ask for more; an empty step (the
  // trace ended) ends the loop.
  for (;;) {
    if (i >= n) {
      if (!growing) break;
      let more = growing === true ? i : growing(i);
      if (more < 0) break;
      if (more <= i) more = yield i;
      if (more === undefined || more <= i) break;
      n = more;
      ({ op, alloc, size, step } = trace);
      streamCol = trace.stream;
      if (trace.allocCount > handle.length) handle = growColumn(handle, Math.max(trace.allocCount, handle.length + (handle.length >> 1)), handle.length, HANDLE_RESERVE);
    }
    // Before events 1,024, 66,560, …: the call is met early, so the code that V8 compiles for the
    // loop has it (met first at the 65,536th event, that code would be thrown away there). Not at
    // event 0: V8 starts recording what a function meets only once it has run a little.
    if (onProgress && (i & 0xffff) === 0x400) onProgress(i, n);
    const s = step[i] as number;
    if (s !== curStepId) {
      if (curStep) keepStep(curStep, stEvents, stLive, stAlloc, stRes);
      curStepId = s;
      curStep = stepIndex.get(s);
      if (!curStep) {
        curStep = { step: s, events: 0, peakLiveBytes: 0, peakAllocatedBytes: 0, peakReservedBytes: 0 };
        stepIndex.set(s, curStep);
        steps.push(curStep);
      }
      stEvents = 0;
      stLive = curStep.peakLiveBytes;
      stAlloc = curStep.peakAllocatedBytes;
      stRes = curStep.peakReservedBytes;
    }
    if (i === nextRecorded) takeRecorded(i, live);
    const a = alloc[i] as number;
    if (op[i] === OP_ALLOC) {
      const bytes = size[i] as number;
      const h = allocator.allocate(bytes, streamCol ? (streamCol[i] as number) : 0, s, i);
      if (h === FAILED) {
        oomCount++;
        handle[a] = FAILED;
        dropped.push(a);
        if (ooms.length < maxOoms) ooms.push(oomRecord(trace, allocator, i, live, limit, capacityBytes));
        if (captureOom && states.length < 64) states.push({ event: i, reason: 'oom', state: allocator.state() });
        if (onOom === 'stop') {
          completed = false;
          break;
        }
      } else {
        handle[a] = h;
        live += bytes;
        if (h !== NO_BLOCK && onPlacement) onPlacement(i, a, allocator.address(h), bytes, allocator.blockBytes(h));
      }
    } else {
      const h = handle[a] as number;
      if (h === FAILED) {
        ignoredFrees++;
      } else {
        if (h !== NO_BLOCK) allocator.free(h, s, i);
        live -= size[i] as number;
      }
    }
    allocated = allocator.allocatedBytes;
    // Reserved bytes change at a few events only: assigned only then, since V8 boxes the number it
    // reads into `reserved` afresh on every assignment (a 16-byte heap number per event, some 16 MB
    // of garbage per 10^6 events that the replaying thread collects), and not when it is unchanged.
    const nowReserved = allocator.reservedBytes;
    if (nowReserved !== reserved) reserved = nowReserved;
    if (live > peakLive || peakLiveEvent < 0) {
      peakLive = live;
      peakLiveEvent = i;
      pkLiveA = allocated;
      pkLiveR = reserved;
    }
    if (allocated > peakAlloc || peakAllocEvent < 0) {
      peakAlloc = allocated;
      peakAllocEvent = i;
      pkAllocL = live;
      pkAllocR = reserved;
    }
    if (i === 0) {
      firstL = live;
      firstA = allocated;
      firstR = reserved;
    }
    if (reserved > peakRes || peakResEvent < 0 || (reserved === peakRes && i < openedAt && oomCount === 0)) {
      peakRes = reserved;
      peakResEvent = i;
      atPeak.liveBytes = live;
      atPeak.allocatedBytes = allocated;
      atPeak.reservedBytes = reserved;
      atPeak.largestFreeBlockBytes = reserved > allocated ? allocator.largestFreeBlockBytes() : 0;
    }
    stEvents++;
    if (live > stLive) stLive = live;
    if (allocated > stAlloc) stAlloc = allocated;
    if (reserved > stRes) stRes = reserved;
    sampler.add(i, live, allocated, reserved);
    if (capturing && capture.has(i)) states.push({ event: i, reason: 'requested', state: allocator.state() });
    i++;
  }
  if (curStep) keepStep(curStep, stEvents, stLive, stAlloc, stRes);
  if (completed && nextRecorded === n) takeRecorded(n, live);
  const replayed = completed ? n : i + 1;
  // The last event whose effect is recorded (a failed, stopping request changes nothing).
  const lastEvent = completed ? n - 1 : i - 1;
  allocator.finish?.(replayed - 1);
  onProgress?.(replayed, n);

  if (peakLiveEvent >= 0) {
    sampler.pin(0, firstL, firstA, firstR);
    sampler.pin(peakLiveEvent, peakLive, pkLiveA, pkLiveR);
    sampler.pin(peakAllocEvent, pkAllocL, peakAlloc, pkAllocR);
    sampler.pin(peakResEvent, atPeak.liveBytes, atPeak.allocatedBytes, atPeak.reservedBytes);
    sampler.pin(lastEvent, live, allocated, reserved);
  }

  return {
    completed,
    eventsReplayed: replayed,
    peakLiveBytes: peakLive,
    peakLiveEvent,
    peakAllocatedBytes: peakAlloc,
    peakAllocatedEvent: peakAllocEvent,
    peakReservedBytes: peakRes,
    peakReservedEvent: peakResEvent,
    finalLiveBytes: live,
    finalAllocatedBytes: allocator.allocatedBytes,
    finalReservedBytes: allocator.reservedBytes,
    atPeak,
    deviceAllocCalls: allocator.deviceAllocCalls,
    deviceFreeCalls: allocator.deviceFreeCalls,
    oomCount,
    ooms,
    ignoredFrees,
    droppedAllocations: dropped,
    steps: steps.sort((x, y) => x.step - y.step),
    timeline: sampler.points(),
    states,
  };
}

/** Adds a run of a step's events and their peaks to the step's record. */
function keepStep(st: StepRecord, events: number, live: number, allocated: number, reserved: number): void {
  st.events += events;
  if (live > st.peakLiveBytes) st.peakLiveBytes = live;
  if (allocated > st.peakAllocatedBytes) st.peakAllocatedBytes = allocated;
  if (reserved > st.peakReservedBytes) st.peakReservedBytes = reserved;
}
