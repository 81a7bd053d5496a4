/**
 * The second step of reading a TensorFlow memory log: pick one allocator, hand its allocations and
 * deallocations to the trace builder in log order (ids are the allocation_ids, tags the kernel
 * names or operations, sizes the requested bytes), and keep what the real allocator recorded (ptr,
 * allocated_bytes) as the trace's recorded history.
 */
import { TraceError, UsageError } from '../../errors.js';
import type { TraceBuilder } from '../builder.js';
import type { RecordedHistory } from '../model.js';
import { type AllocatorLog, isAllocation } from './allocator-log.js';
import type { LogReader } from './log-reader.js';
import { MESSAGE_NAMES } from './messages.js';
import { describeLog, type ImportFigures } from './notes.js';

/** The allocator to import and why. */
export interface AllocatorChoice {
  log: AllocatorLog | undefined;
  /** `requested` (--allocator-name) or `most-bytes`. */
  reason: 'requested' | 'most-bytes' | 'none';
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
  if (!best && all.some((l) => l.allocs > 0)) throw noIds(file, all);
  return { log: best, reason: best ? 'most-bytes' : 'none' };
}

function noIds(file: string, logs: AllocatorLog[]): TraceError {
  return TraceError.at(
    file,
    undefined,
    `${logs.length === 1 ? `allocator ${listNames(logs)} logs` : `no allocator in this log (${listNames(logs)}) logs`} no allocation_id, so its deallocations ` +
      'cannot be matched to its allocations (TensorFlow logs ids only for allocators that track allocation sizes, such as BFC)',
    'allocation_id',
  );
}

/** Writes a non-negative integer in decimal into `buf`; returns its length. */
function writeDecimal(buf: Buffer, n: number): number {
  let len = 0;
  do {
    buf[len++] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  } while (n > 0);
  for (let i = 0, j = len - 1; i < j; i++, j--) {
    const t = buf[i] as number;
    buf[i] = buf[j] as number;
    buf[j] = t;
  }
  return len;
}

/** Per allocation number: the recorded address and allocated bytes. */
class Records {
  address = new Float64Array(1024);
  allocated = new Float64Array(1024);
  count = 0;

  set(a: number, address: number, allocated: number): void {
    if (a >= this.address.length) {
      const cap = Math.max(a + 1, Math.ceil(this.address.length * 1.5));
      const x = new Float64Array(cap);
      x.set(this.address);
      this.address = x;
      const y = new Float64Array(cap);
      y.set(this.allocated);
      this.allocated = y;
    }
    this.address[a] = address;
    this.allocated[a] = allocated;
    if (a >= this.count) this.count = a + 1;
  }
}

/** Feeds the chosen allocator's events to the builder; returns the recorded history. */
export function importLog(r: LogReader, choice: AllocatorChoice, builder: TraceBuilder, lenient: boolean, figures: Omit<ImportFigures, 'skippedAllocs' | 'skippedFrees'>): RecordedHistory {
  const log = choice.log;
  const records = new Records();
  const idBuf = Buffer.alloc(24);
  const builderTag = new Int32Array(r.tags.strings.length).fill(-1);
  let skippedAllocs = 0;
  let skippedFrees = 0;
  for (let i = 0; log && i < log.n; i++) {
    const type = log.type[i] as number;
    const id = log.id[i] as number;
    const line = log.line[i] as number;
    if (isAllocation(type)) {
      if (id === 0) {
        if (lenient) skippedAllocs++;
        else builder.problem({ line, field: 'allocation_id', message: `${MESSAGE_NAMES[type]} of "${log.name}" without an allocation_id: its deallocation could not be matched to it; --lenient skips it` });
        continue;
      }
      const t = log.tag[i] as number;
      let tag = t === 0 ? 0 : (builderTag[t] as number);
      if (tag < 0) tag = builderTag[t] = builder.internTagString(r.tags.strings[t]);
      const a = builder.addAllocBytes(idBuf, 0, writeDecimal(idBuf, id), log.size[i] as number, log.step[i] as number, 0, tag, NaN, line);
      if (a >= 0) records.set(a, log.ptr[i] as number, log.allocated[i] as number);
    } else {
      if (id === 0) {
        if (!lenient) {
          builder.problem({
            line,
            field: 'allocation_id',
            message:
              `${MESSAGE_NAMES[type]} of "${log.name}" without an allocation_id (left out when 0: this TensorFlow version or allocator gave none), ` +
              'so it cannot be matched to an allocation; --lenient skips it',
          });
          continue;
        }
        // Handed on as a free of id 0, which is never live: the builder counts it with the other skipped frees.
        skippedFrees++;
      }
      builder.addFreeBytes(idBuf, 0, writeDecimal(idBuf, id), log.step[i] as number, -1, NaN, line);
    }
  }
  const name = log?.name ?? '';
  builder.meta = { source: 'TensorFlow __LOG_MEMORY__ log', ...(log ? { allocatorName: name } : {}) };
  const notes = describeLog(r, choice, { ...figures, skippedAllocs, skippedFrees });
  return {
    allocator: /bfc/i.test(name) ? 'tensorflow-bfc' : name === '' ? 'tensorflow' : name,
    address: records.address.slice(0, records.count),
    allocatedBytes: records.allocated.slice(0, records.count),
    segmentEvents: [],
    initialSegments: [],
    notes,
    extra: {
      allocatorName: log ? name : null,
      allocators: r.allocators().map((l) => ({ name: l.name, allocations: l.allocs, deallocations: l.frees, requestedBytes: l.requestedBytes, allocationsWithId: l.allocsWithId })),
      stepCount: r.stepCount,
      steps: r.steps,
    },
  };
}
