import { formatBytes, formatHex } from '../../util/bytes.js';
import type { AllocatorLog } from './allocator-log.js';
import type { AllocatorChoice } from './import.js';
import type { LogReader } from './log-reader.js';
import { MSG_RAW_ALLOCATION, MSG_RAW_DEALLOCATION, MSG_STEP, MSG_TENSOR_ALLOCATION, MSG_TENSOR_DEALLOCATION, MSG_TENSOR_OUTPUT, MSG_UNKNOWN } from './messages.js';
import { describeStep, SPECIAL_STEP_MIN } from './steps.js';

/** Figures of the import that the notes report. */
export interface ImportFigures {
  lines: number;
  /** Allocations and deallocations without an allocation_id skipped under --lenient. */
  skippedAllocs: number;
  skippedFrees: number;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function summary(l: AllocatorLog): string {
  const ids = l.allocs > 0 && l.allocsWithId === 0 ? ', no allocation ids' : '';
  return `"${l.name}" (${plural(l.allocs, 'allocation')}, ${formatBytes(l.requestedBytes)}${ids})`;
}

/** Plain-language notes on what was read and how it became a trace. */
export function describeLog(r: LogReader, choice: AllocatorChoice, f: ImportFigures): string[] {
  const c = r.messageCounts;
  const notes: string[] = [];
  const unknown = c[MSG_UNKNOWN] as number;
  const n = (code: number, one: string): string => plural(c[code] as number, one);
  notes.push(
    `TensorFlow memory log: ${plural(f.lines, 'line')}, ${plural(r.memoryLines, '__LOG_MEMORY__ message')} (${n(MSG_TENSOR_ALLOCATION, 'tensor allocation')}, ` +
      `${n(MSG_TENSOR_DEALLOCATION, 'tensor deallocation')}, ${n(MSG_RAW_ALLOCATION, 'raw allocation')}, ${n(MSG_RAW_DEALLOCATION, 'raw deallocation')}, ` +
      `${n(MSG_STEP, 'step')}); ${n(MSG_TENSOR_OUTPUT, 'MemoryLogTensorOutput message')} ignored (an output names a tensor that exists already: ` +
      `it allocates nothing); ${plural(r.otherLines, 'other line')} ignored` +
      (unknown > 0 ? `; ${plural(unknown, 'message')} of types this reader does not know ignored (${r.unknownNames.join(', ')})` : '') +
      '.',
  );
  const log = choice.log;
  const others = r.allocators().filter((l) => l !== log);
  const also = others.length > 0 ? ` Also in the log: ${others.map(summary).join(', ')}; --allocator-name picks one.` : '';
  if (!log) {
    notes.push(`no allocations in the log.${also}`);
    return notes;
  }
  const why =
    choice.reason === 'requested'
      ? 'as asked with --allocator-name'
      : choice.reason === 'deallocations-only'
        ? 'no allocator logs allocations: the one with the most deallocations'
        : 'the one with the most requested bytes';
  notes.push(`allocator "${log.name}" imported (${why}): ${plural(log.allocs, 'allocation')} (${log.tensorAllocs} tensor, ${log.rawAllocs} raw), ${plural(log.frees, 'deallocation')}, ${formatBytes(log.requestedBytes)} requested in all.${also}`);
  const special: string[] = [];
  for (let s = -1; s >= SPECIAL_STEP_MIN; s--) {
    const n = log.specialAllocs[-s] as number;
    if (n > 0) special.push(`${describeStep(s)}: ${plural(n, 'allocation')}, ${formatBytes(log.specialBytes[-s] as number)}`);
  }
  if (log.otherNegativeAllocs > 0) special.push(`other negative step ids: ${plural(log.otherNegativeAllocs, 'allocation')}`);
  if (special.length > 0) notes.push(`allocations outside steps, under LogMemory's special step ids (kept as steps of their own): ${special.join('; ')}.`);
  if (r.stepCount > 0) {
    const first = r.steps[0];
    notes.push(
      `${plural(r.stepCount, 'MemoryLogStep line')}, step ids ${r.minStep} to ${r.maxStep}` +
        (first && first.handle !== '' ? `; the first step's handle: "${first.handle}"` : '') +
        ` (kept in recorded.extra.steps${r.stepCount > r.steps.length ? `, the first ${r.steps.length}` : ''}).`,
    );
  }
  if (log.deferredFrees > 0) {
    notes.push(
      `${plural(log.deferredFrees, 'raw deallocation')} logged with deferred: true (GPU Eigen scratch memory): each frees its block where it is logged; ` +
        `${plural(log.deferredConfirmations + log.staleConfirmations, 'later line')} for the same blocks were not counted again` +
        (log.staleConfirmations > 0 ? ` (${log.staleConfirmations} of them with the allocation_id read after the block was released)` : '') +
        (log.unconfirmedDeferred > 0 ? `; ${log.unconfirmedDeferred} were never followed by one` : '') +
        '.',
    );
  }
  if (f.skippedAllocs + f.skippedFrees > 0) {
    notes.push(`skipped (--lenient): ${plural(f.skippedAllocs, 'allocation')} and ${plural(f.skippedFrees, 'deallocation')} without an allocation_id (they cannot be matched).`);
  }
  if (log.maxEnd > log.minPtr) {
    notes.push(
      `the log records no regions: "${log.name}"'s logged blocks lie between ${formatHex(log.minPtr)} and ${formatHex(log.maxEnd)} (${formatBytes(log.maxEnd - log.minPtr)}); ` +
        '--allocator recorded shows reserved bytes equal to allocated bytes.',
    );
  } else if (log.allocs > 0) {
    notes.push('the log records no addresses (this TensorFlow version logs no ptr): --allocator recorded replays block sizes only.');
  }
  if (log.inexactPtrs > 0) notes.push(`${plural(log.inexactPtrs, 'ptr')} beyond 2^53 kept as unknown addresses.`);
  if (log.withoutAllocatedBytes > 0) {
    notes.push(
      `${plural(log.withoutAllocatedBytes, 'allocation')} without allocated_bytes (raw allocations never log it, nor allocators that do not track sizes): ` +
        'the recorded allocator counts their requested bytes.',
    );
  }
  return notes;
}
