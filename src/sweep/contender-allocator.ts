import { getAllocator, listAllocators, resolveOptions } from '../allocators/registry.js';
import { FAILED, NO_BLOCK, type AllocatorDefinition, type OnlineAllocator } from '../allocators/types.js';
import { UsageError } from '../errors.js';
import { OP_ALLOC, type Trace } from '../trace/model.js';
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
export function probeAllocator(trace: Trace, allocator: OnlineAllocator): ContenderProbe {
  const { op, alloc, size, step } = trace;
  const streamCol = trace.stream;
  const handle = new Int32Array(trace.allocCount);
  let peak = 0;
  let fits = true;
  let i = 0;
  for (; i < trace.length; i++) {
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
  if (fits) allocator.finish?.(trace.length - 1);
  // Failing where the real run failed (a request that is no event of the trace) is not fitting.
  if (fits && (allocator.realOomsReproduced?.() ?? 0) > 0) fits = false;
  return { fits, peakReservedBytes: peak };
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
      // One OOM record is all a comparison shows; the timeline is not shown at all.
      const outcome = replayTrace(t, allocator, capacityBytes, { onOom, maxOomRecords: 1, timelinePoints: 16 });
      const attribution = settings.attribution === false ? null : attributeReplay(t, outcome, def.name, settings.attribution);
      if (attribution === null) explainOoms(outcome, def.name);
      return {
        completed: outcome.completed,
        summary: summarize(outcome),
        firstOom: outcome.ooms[0] ?? null,
        notes: [...resolved.notes, ...(said ? [said] : []), ...(allocator.notes?.() ?? [])],
        start,
        attribution,
        realOomsReproduced: allocator.realOomsReproduced?.() ?? 0,
      };
    },
    probe(t, capacityBytes) {
      return probeAllocator(t, create(capacityBytes));
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
