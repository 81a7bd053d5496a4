/**
 * The allocations and deallocations one TensorFlow allocator logged, kept in typed arrays in log
 * order until the reader knows which allocator to import (by default the one with the most bytes,
 * known only at the end of the file), with the figures the notes report.
 */
import { type LogMessage, MSG_RAW_ALLOCATION, MSG_RAW_DEALLOCATION, MSG_TENSOR_ALLOCATION, MSG_TENSOR_DEALLOCATION } from './messages.js';
import type { EventFeed } from './feed.js';
import { SPECIAL_STEP_MIN } from './steps.js';

/** True for the `MSG_*` codes of allocations (the others kept are deallocations). */
export const isAllocation = (type: number): boolean => type === MSG_TENSOR_ALLOCATION || type === MSG_RAW_ALLOCATION;

function grow<T extends Float64Array | Uint32Array | Uint8Array>(a: T, cap: number): T {
  const b = new (a.constructor as { new (n: number): T })(cap);
  b.set(a);
  return b;
}

/** A deallocation queued by GPU Eigen code, waiting for the one logged when the stream gets there. */
interface PendingDeferred {
  tag: number;
  stepId: number;
}

/** One allocator's part of the log. */
export class AllocatorLog {
  /** Events, in log order (only when `keepsEvents`). */
  n = 0;
  /** The message (`MSG_*` code) of each event. */
  type = new Uint8Array(256);
  /** allocation_id (0: none logged). */
  id = new Float64Array(256);
  size = new Float64Array(256);
  /** Step id, NaN for a tensor deallocation (the message has none: the previous event's step). */
  step = new Float64Array(256);
  tag = new Uint32Array(256);
  line = new Uint32Array(256);
  ptr = new Float64Array(256);
  allocated = new Float64Array(256);

  tensorAllocs = 0;
  rawAllocs = 0;
  tensorFrees = 0;
  rawFrees = 0;
  requestedBytes = 0;
  allocsWithId = 0;
  freesWithoutId = 0;
  allocsWithoutId = 0;
  /** Raw deallocations logged with `deferred: true`: the block is released when queued. */
  deferredFrees = 0;
  /** The later, non-deferred line for a deferred deallocation (same id, or a stale one): not a second free. */
  deferredConfirmations = 0;
  staleConfirmations = 0;
  private readonly pending = new Map<number, PendingDeferred>();
  /** Allocations whose ptr is beyond 2^53 (kept as unknown). */
  inexactPtrs = 0;
  /** Allocations without allocated_bytes (raw ones never have it). */
  withoutAllocatedBytes = 0;
  minPtr = Infinity;
  maxEnd = -Infinity;
  /** Allocations and requested bytes under each special step id (-1 … -6), at index -step. */
  readonly specialAllocs = new Float64Array(1 - SPECIAL_STEP_MIN);
  readonly specialBytes = new Float64Array(1 - SPECIAL_STEP_MIN);
  /** Allocations under other negative step ids. */
  otherNegativeAllocs = 0;

  /**
   * @param keepsEvents whether to hold the events (the allocator may be the one imported).
   * @param feed when given, events go straight to it instead (the allocator asked for by name).
   */
  constructor(
    readonly name: string,
    private readonly keepsEvents: boolean,
    private readonly feed?: EventFeed,
  ) {}

  /** True when the events went to the feed as they were read. */
  get isStreamed(): boolean {
    return this.feed !== undefined;
  }

  /** Drops the held events (once fed). */
  release(): void {
    this.n = 0;
    this.type = new Uint8Array(0);
    this.id = this.size = this.step = this.ptr = this.allocated = new Float64Array(0);
    this.tag = this.line = new Uint32Array(0);
  }

  get allocs(): number {
    return this.tensorAllocs + this.rawAllocs;
  }

  get frees(): number {
    return this.tensorFrees + this.rawFrees;
  }

  private push(type: number, id: number, size: number, step: number, tag: number, line: number, ptr: number, allocated: number): void {
    if (this.feed) {
      this.feed.event(this.name, type, id, size, step, tag, line, ptr, allocated);
      return;
    }
    if (!this.keepsEvents) return;
    const i = this.n++;
    if (i >= this.type.length) {
      const cap = Math.ceil(this.type.length * 1.5);
      this.type = grow(this.type, cap);
      this.id = grow(this.id, cap);
      this.size = grow(this.size, cap);
      this.step = grow(this.step, cap);
      this.tag = grow(this.tag, cap);
      this.line = grow(this.line, cap);
      this.ptr = grow(this.ptr, cap);
      this.allocated = grow(this.allocated, cap);
    }
    this.type[i] = type;
    this.id[i] = id;
    this.size[i] = size;
    this.step[i] = step;
    this.tag[i] = tag;
    this.line[i] = line;
    this.ptr[i] = ptr;
    this.allocated[i] = allocated;
  }

  /** A MemoryLogTensorAllocation or MemoryLogRawAllocation. */
  allocation(m: LogMessage, line: number): void {
    if (m.type === MSG_TENSOR_ALLOCATION) this.tensorAllocs++;
    else if (m.type === MSG_RAW_ALLOCATION) this.rawAllocs++;
    this.requestedBytes += m.sizeBytes;
    const id = m.allocationId > 0 ? m.allocationId : 0;
    if (id > 0) this.allocsWithId++;
    else this.allocsWithoutId++;
    if (m.stepId < 0) {
      if (m.stepId >= SPECIAL_STEP_MIN) {
        this.specialAllocs[-m.stepId] = (this.specialAllocs[-m.stepId] as number) + 1;
        this.specialBytes[-m.stepId] = (this.specialBytes[-m.stepId] as number) + m.sizeBytes;
      } else {
        this.otherNegativeAllocs++;
      }
    }
    // ptr 0 is a null pointer (the field left out): no address.
    if (Number.isNaN(m.ptr)) this.inexactPtrs++;
    if (Number.isNaN(m.allocatedBytes)) this.withoutAllocatedBytes++;
    const ptr = m.ptr > 0 ? m.ptr : NaN;
    if (ptr === ptr) {
      if (ptr < this.minPtr) this.minPtr = ptr;
      const end = ptr + (m.allocatedBytes === m.allocatedBytes ? m.allocatedBytes : m.sizeBytes);
      if (end > this.maxEnd) this.maxEnd = end;
    }
    this.push(m.type, id, m.sizeBytes, m.stepId, m.tag, line, ptr, m.allocatedBytes);
  }

  /** A MemoryLogTensorDeallocation (no step in the message). */
  tensorDeallocation(m: LogMessage, line: number): void {
    this.tensorFrees++;
    this.free(MSG_TENSOR_DEALLOCATION, m.allocationId, NaN, line);
  }

  /**
   * A MemoryLogRawDeallocation. GPU Eigen scratch memory is logged twice (gpu_device.cc,
   * EigenGpuStreamDevice::deallocate and its stream callback): `deferred: true` when the free is
   * queued, with the id read while the block was still allocated, and again without `deferred` once
   * the stream reaches it. Depending on the TensorFlow version the allocator releases the block at
   * the first or at the second; the second's id is read from the pointer after the release (-1, or
   * the id of a newer block at the same address). So the deferred line is the free, and the later
   * line of the same operation and step is its confirmation, whatever id it carries.
   */
  rawDeallocation(m: LogMessage, line: number): void {
    const id = m.allocationId;
    if (m.deferred) {
      this.rawFrees++;
      this.deferredFrees++;
      if (id > 0) this.pending.set(id, { tag: m.tag, stepId: m.stepId });
      this.free(MSG_RAW_DEALLOCATION, id, m.stepId, line);
      return;
    }
    if (id > 0 && this.pending.delete(id)) {
      this.deferredConfirmations++;
      return;
    }
    for (const [key, p] of this.pending) {
      if (p.tag === m.tag && p.stepId === m.stepId) {
        this.pending.delete(key);
        this.staleConfirmations++;
        return;
      }
    }
    this.rawFrees++;
    this.free(MSG_RAW_DEALLOCATION, id, m.stepId, line);
  }

  private free(type: number, allocationId: number, step: number, line: number): void {
    const id = allocationId > 0 ? allocationId : 0;
    if (id === 0) this.freesWithoutId++;
    this.push(type, id, 0, step, 0, line, NaN, NaN);
  }

  /** Deferred deallocations never confirmed (the log ended first, or an older TensorFlow). */
  get unconfirmedDeferred(): number {
    return this.pending.size;
  }
}
