import { getAllocator, listAllocators, resolveOptions } from '../allocators/registry.js';
import { FAILED, NO_BLOCK, type AllocatorDefinition, type OnlineAllocator } from '../allocators/types.js';
import { UsageError } from '../errors.js';
import { OP_ALLOC, type RecordedOom, type Trace } from '../trace/model.js';
import { judgeRealOom } from '../sim/fidelity.js';
import type { Contender, ContenderProbe, ContenderProvider, ContenderSettings } from './contender.js';
import { replayTrace } from '../sim/replay.js';
import { summarize } from '../sim/report.js';
import { chooseStart, startNote } from '../sim/start.js';
import { attributeReplay, explainOoms } from '../sim/holders.js';

/**
 * Replays the trace only to learn whether it fits: the requests and frees of the full engine
 * (`replayTrace` with `onOom: 'stop'`), without its peaks per step, timeline or OOM record, because
 * a capacity search asks this question a dozen times per allocator.
 */
export function probeAllocator(trace: Trace, allocator: OnlineAllocator, capacityBytes = Infinity): ContenderProbe {
  const { op, alloc, size, step } = trace;
  const streamCol = trace.stream;
  const handle = new Int32Array(trace.allocCount);
  const real = realOomJudge(trace, allocator, capacityBytes);
  let nextReal = real ? real.next : -1;
  let peak = 0;
  let fits = true;
  let i = 0;
  for (; i < trace.length; i++) {
    if (i === nextReal && real) {
      if (real.reproducedAt(i)) {
        fits = false;
        break;
      }
      nextReal = real.next;
    }
    const a = alloc[i] as number;
    if (op[i] === OP_ALLOC) {
      const h = allocator.allocate(size[i] as number, streamCol ? (streamCol[i] as number) : 0, step[i] as number, i);
      if (h === FAILED) {
        fits = false;
        break;
      }
      handle[a] = h;
    } else {
      const h = handle[a] as number;
      if (h !== NO_BLOCK) allocator.free(h, step[i] as number, i);
    }
    const reserved = allocator.reservedBytes;
    if (reserved > peak) peak = reserved;
  }
  if (fits && nextReal === trace.length && real?.reproducedAt(trace.length)) fits = false;
  if (fits) allocator.finish?.(trace.length - 1);
  // Failing where the real run failed (a request that is no event of the trace) is not fitting.
  if (fits && (allocator.realOomsReproduced?.() ?? 0) > 0) fits = false;
  return { fits, peakReservedBytes: peak };
}

/**
 * For an allocator without a verdict of its own on the real run's OOMs (all but caching, see
 * OnlineAllocator.realOomsReproduced) on a trace that records some: asks at each whether the
 * simulation fails there too, as `replay` does (judgeRealOom); undefined otherwise. `next`: the
 * event before which the next one happened (-1: none left).
 */
export function realOomJudge(trace: Trace, allocator: OnlineAllocator, capacityBytes: number): { next: number; reproducedAt(event: number): boolean; reproduced: number } | undefined {
  const rec = trace.recorded;
  const ooms = rec?.ooms ?? [];
  if (!rec || ooms.length === 0 || allocator.realOomsReproduced !== undefined || allocator.recordedFailureEvents !== undefined) return undefined;
  let k = 0;
  const judge = {
    next: (ooms[0] as RecordedOom).beforeEvent,
    reproduced: 0,
    /** Judges every real OOM before `event`; true when one is reproduced. */
    reproducedAt(event: number): boolean {
      let any = false;
      for (; k < ooms.length && (ooms[k] as RecordedOom).beforeEvent === event; k++) {
        if (judgeRealOom(rec, ooms[k] as RecordedOom, allocator, capacityBytes).reproduced === true) {
          judge.reproduced++;
          any = true;
        }
      }
      judge.next = k < ooms.length ? (ooms[k] as RecordedOom).beforeEvent : -1;
      return any;
    },
  };
  return judge;
}

/** A registered online allocator as a row of `compare`. */
export function allocatorContender(def: AllocatorDefinition, given: Record<string, unknown>, trace: Trace, settings: ContenderSettings = {}): Contender {
  if (def.needsRecordedHistory && !trace.recorded) {
    throw new UsageError(`allocator "${def.name}" needs a trace with a recorded history, and ${trace.path} has none`);
  }
  const resolved = resolveOptions(def, given, trace);
  const start = chooseStart(def, resolved.values, trace, settings.start);
  const said = def.needsRecordedHistory ? undefined : startNote(start, trace, def.name);
  const create = (capacityBytes: number): OnlineAllocator => def.create(resolved.values as never, { capacityBytes, trace, ...(start ? { start: start.mode } : {}) });
  return {
    name: def.name,
    kind: def.needsRecordedHistory ? 'recorded' : 'allocator',
    options: resolved.values,
    ...(def.relativeCost !== undefined ? { relativeCost: def.relativeCost } : {}),
    run(t, capacityBytes, onOom) {
      const allocator = create(capacityBytes);
      const real = realOomJudge(t, allocator, capacityBytes);
      // One OOM record is all a comparison shows; the timeline is not shown at all.
      const outcome = replayTrace(t, allocator, capacityBytes, {
        onOom,
        maxOomRecords: 1,
        timelinePoints: 16,
        ...(real ? { onRecordedOom: (_k: number, at: number) => void real.reproducedAt(at) } : {}),
      });
      const attribution = settings.attribution === false ? null : attributeReplay(t, outcome, def.name, settings.attribution);
      if (attribution === null) explainOoms(outcome, def.name);
      return {
        completed: outcome.completed,
        summary: summarize(outcome),
        firstOom: outcome.ooms[0] ?? null,
        notes: [...resolved.notes, ...(said ? [said] : []), ...(allocator.notes?.() ?? [])],
        start,
        attribution,
        realOomsReproduced: real ? real.reproduced : (allocator.realOomsReproduced?.() ?? 0),
      };
    },
    probe(t, capacityBytes) {
      return probeAllocator(t, create(capacityBytes), capacityBytes);
    },
  };
}

/** Every registered allocator, as `compare` rows. */
export const allocatorContenders: ContenderProvider = {
  known: () => listAllocators().map((d) => d.name),
  list: (trace) =>
    listAllocators().map((d) =>
      d.needsRecordedHistory && !trace.recorded
        ? { name: d.name, skipReason: 'needs a trace with a recorded history (e.g. a PyTorch snapshot)' }
        : { name: d.name },
    ),
  owns: (name) => listAllocators().some((d) => d.name === name),
  create: (name, given, trace, settings) => allocatorContender(getAllocator(name), given, trace, settings),
};
