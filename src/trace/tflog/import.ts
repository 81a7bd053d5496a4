/**
 * The second step of reading a TensorFlow memory log: pick one allocator, hand its allocations and
 * deallocations to the trace builder in log order (when `--allocator-name` named it, they went as
 * they were read), and keep what the real allocator recorded (ptr, allocated_bytes) as the trace's
 * recorded history.
 */
import { TraceError, UsageError } from '../../errors.js';
import type { TraceBuilder } from '../builder.js';
import type { RecordedHistory } from '../model.js';
import type { AllocatorLog } from './allocator-log.js';
import type { EventFeed } from './feed.js';
import type { LogReader } from './log-reader.js';
import { describeLog, type ImportFigures } from './notes.js';

/** The allocator to import and why. */
export interface AllocatorChoice {
  log: AllocatorLog | undefined;
  /**
   * `requested` (--allocator-name), `most-bytes`, or `deallocations-only`: no allocator logs an
   * allocation, and this one logs the most deallocations (each then a free of an id never allocated).
   */
  reason: 'requested' | 'most-bytes' | 'deallocations-only' | 'none';
}

const listNames = (logs: AllocatorLog[]): string => (logs.length === 0 ? 'none' : logs.map((l) => `"${l.name}"`).join(', '));

/**
 * The allocator named by `--allocator-name`, else the one with the most requested bytes among those
 * that log allocation ids (without ids, deallocations cannot be matched to allocations).
 */
export function chooseAllocator(r: LogReader, requested: string | undefined, file: string): AllocatorChoice {
  const all = r.allocators();
  if (requested !== undefined) {
    const log = all.find((l) => l.name === requested);
    if (!log) throw new UsageError(`${file}: --allocator-name "${requested}": no such allocator in this log (it logs: ${listNames(all)})`);
    if (log.allocs > 0 && log.allocsWithId === 0) throw noIds(file, [log]);
    return { log, reason: 'requested' };
  }
  let best: AllocatorLog | undefined;
  for (const l of all) {
    if (l.allocsWithId > 0 && (!best || l.requestedBytes > best.requestedBytes)) best = l;
  }
  if (!best && all.some((l) => l.allocs > 0)) throw noIds(file, all.filter((l) => l.allocs > 0));
  if (best) return { log: best, reason: 'most-bytes' };
  // Deallocations alone are of allocations the log does not have: read as any such deallocation is
  // (an error, or skipped and counted under --lenient), not left out because nothing else is there.
  for (const l of all) {
    if (l.frees > 0 && (!best || l.frees > best.frees)) best = l;
  }
  return { log: best, reason: best ? 'deallocations-only' : 'none' };
}

function noIds(file: string, logs: AllocatorLog[]): TraceError {
  return TraceError.at(
    file,
    undefined,
    (logs.length === 1
      ? `allocator ${listNames(logs)} logs no allocation_id, so its deallocations cannot be matched to its allocations`
      : `allocators ${listNames(logs)} log no allocation_id, so their deallocations cannot be matched to their allocations`) +
      ' (TensorFlow logs ids only for allocators that track allocation sizes, such as BFC)',
    'allocation_id',
  );
}

/** The kind of allocator a log's allocator name stands for (`RecordedHistory.allocator`): BFC ones are `tensorflow-bfc`. */
export function recordedKind(name: string): string {
  return /bfc/i.test(name) ? 'tensorflow-bfc' : name === '' ? 'tensorflow' : name;
}

/** Feeds the chosen allocator's events to the builder (unless they were as read); returns the recorded history. */
export function importLog(r: LogReader, choice: AllocatorChoice, feed: EventFeed, builder: TraceBuilder, figures: Omit<ImportFigures, 'skippedAllocs' | 'skippedFrees'>): RecordedHistory {
  const log = choice.log;
  // Deallocations alone, beside messages of types this reader does not know: those may be the
  // allocations, in a newer TensorFlow's words. Said first, before the deallocations' own problems.
  if (log && log.allocs === 0 && log.frees > 0 && !builder.isLenient && r.unknownNames.length > 0) {
    builder.problem({
      message:
        `no allocation that this reader knows, but messages of types it does not know (${r.unknownNames.join(', ')}): ` +
        'if those are the allocations, the log is of a TensorFlow newer than this reader',
    });
  }
  // Logs read whole (no --allocator-name) are fed now; the asked-for one was fed as it was read.
  if (log && !log.isStreamed) {
    for (let i = 0; i < log.n; i++) {
      feed.event(log.name, log.type[i] as number, log.id[i] as number, log.size[i] as number, log.step[i] as number, log.tag[i] as number, log.line[i] as number, log.ptr[i] as number, log.allocated[i] as number);
    }
  }
  for (const l of r.allocators()) l.release();
  const name = log?.name ?? '';
  builder.meta = { source: 'TensorFlow __LOG_MEMORY__ log', ...(log ? { allocatorName: name } : {}) };
  const notes = describeLog(r, choice, { ...figures, skippedAllocs: feed.skippedAllocs, skippedFrees: feed.skippedFrees });
  return {
    allocator: recordedKind(name),
    address: feed.address.slice(0, feed.count),
    allocatedBytes: feed.allocated.slice(0, feed.count),
    segmentEvents: [],
    initialSegments: [],
    notes,
    extra: {
      allocatorName: log ? name : null,
      allocators: r.allocators().map((l) => ({
        name: l.name,
        kind: recordedKind(l.name),
        allocations: l.allocs,
        deallocations: l.frees,
        requestedBytes: l.requestedBytes,
        allocationsWithId: l.allocsWithId,
      })),
      stepCount: r.stepCount,
      steps: r.steps,
    },
  };
}
