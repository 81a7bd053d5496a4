import { SimDevice } from '../device.js';
import { NaiveAllocator, type NaiveOptions } from '../naive.js';
import { DEFAULT_ALIGN_BYTES, type Trace } from '../../trace/model.js';
import { type AllocationFailure, type AllocatorState, FAILED, type OnlineAllocator, type SegmentState } from '../types.js';
import { MemoryPlanner } from './planner.js';
import { Pools } from './pools.js';
import { describeRun, type RunFacts } from './notes.js';

/** Options of `lifetime-pool` (names as on the command line). */
export interface LifetimePoolOptions {
  start_step: number;
  stable_steps: number;
  max_steps: number;
  small_threshold: number;
  header_bytes: number;
}

/**
 * Where the allocator is: before `start_step`; collecting statistics; serving from the pools;
 * collection over with the trace's last step (nothing left to serve); pools too big for the device.
 */
export type Phase = 'waiting' | 'collecting' | 'built' | 'ended' | 'build-failed';

// What a handle holds: a small request or a big one at the device, or a pool chunk.
const SMALL = 0;
const BIG_FALLBACK = 1;
const POOLED = 2;
/** DeepRec's `sizeof(LightHeader)`: the header of a small request (`max(8, alignment)` bytes). */
const LIGHT_HEADER_BYTES = 8;

/**
 * DeepRec's TensorPoolAllocator with its MemoryPlanner, driven by the trace's step ids: requests up
 * to `small_threshold` always go to the device (the fallback, a {@link NaiveAllocator} on the shared
 * {@link SimDevice}); big ones too until the pools are built, while their lifetimes are recorded in
 * the collected steps; afterwards big ones are served from the pools when a chunk is free.
 */
export class LifetimePoolAllocator implements OnlineAllocator {
  private readonly opts: LifetimePoolOptions;
  private readonly device: SimDevice;
  private readonly fallback: NaiveAllocator;
  private readonly fallbackOpts: NaiveOptions;
  readonly planner: MemoryPlanner;
  pools: Pools | null = null;
  phase: Phase = 'waiting';
  private curStep = NaN;
  /**
   * DeepRec's session-run counter (`MemoryPlanner::counter_`): the run of the current events; each
   * change of step id is a new run, and the first run is run 0.
   */
  private run = -1;
  /** Alignment asked for by each alloc event, when the trace has an align column. */
  private readonly aligns: Uint32Array | null;
  private readonly facts: RunFacts;
  // Handle table: kind, the fallback handle or chunk, the requesting slot, alloc event, size, header.
  private hKind = new Uint8Array(1024);
  private hRef = new Int32Array(1024);
  private hSlot = new Int32Array(1024);
  private hEvent = new Int32Array(1024);
  private hSize = new Float64Array(1024);
  private hHeader = new Uint32Array(1024);
  private freeHandles = new Int32Array(1024);
  private freeTop = 0;
  private nextHandle = 0;
  private failure: AllocationFailure = { roundedBytes: 0, native: '' };
  /** Block bytes of the pool chunks handed out (each chunk less its header). */
  private pooledBytes = 0;
  /** Headers inside the device blocks of the fallback (a block is the user's from its user pointer on). */
  private fallbackHeaderBytes = 0;

  constructor(opts: LifetimePoolOptions, capacityBytes: number, fallbackOpts: NaiveOptions, trace?: Trace) {
    this.opts = opts;
    this.aligns = trace?.align ?? null;
    this.device = new SimDevice(capacityBytes);
    this.fallbackOpts = fallbackOpts;
    this.fallback = new NaiveAllocator(fallbackOpts, capacityBytes, this.device);
    this.planner = new MemoryPlanner(opts.stable_steps, opts.max_steps);
    this.facts = {
      opts,
      firstStep: NaN,
      lastStep: NaN,
      runs: 0,
      collectionStartStep: null,
      poolsBuiltAfterStep: null,
      collectionEndStep: null,
      hits: 0,
      borrowedHits: 0,
      misses: 0,
      missesWithoutBin: 0,
      smallRequests: 0,
      fallbackPeakBytes: 0,
      fallbackPeakAfterBuildBytes: null,
      failedPoolBytes: 0,
    };
  }

  get allocatedBytes(): number {
    return this.fallback.allocatedBytes - this.fallbackHeaderBytes + this.pooledBytes;
  }
  get reservedBytes(): number {
    return this.fallback.reservedBytes + (this.pools ? this.pools.poolBytes : 0);
  }
  get deviceAllocCalls(): number {
    return this.device.allocCalls;
  }
  get deviceFreeCalls(): number {
    return this.device.freeCalls;
  }

  /**
   * TensorPoolAllocator::AllocateRaw. A small request (up to `small_threshold`) goes to the device
   * with its light header (`size + max(8, alignment)`: a zero-byte one too); a big one carries a
   * header of `max(header_bytes, alignment)` that its bin is chosen by, and is served by its bin
   * once the pools exist, else by the device for its size plus header.
   */
  allocate(sizeBytes: number, _stream: number, step: number, event: number): number {
    if (step !== this.curStep) this.changeStep(step);
    const f = this.facts;
    const align = this.aligns !== null ? (this.aligns[event] as number) : DEFAULT_ALIGN_BYTES;
    if (sizeBytes <= this.opts.small_threshold) {
      f.smallRequests++;
      return this.viaFallback(sizeBytes, align > LIGHT_HEADER_BYTES ? align : LIGHT_HEADER_BYTES, align, event, SMALL);
    }
    const header = align > this.opts.header_bytes ? align : this.opts.header_bytes;
    const total = sizeBytes + header;
    const pools = this.pools;
    if (pools !== null) {
      const slot = pools.slotFor(total);
      if (slot >= 0) {
        const chunk = pools.take(slot);
        if (chunk >= 0) {
          f.hits++;
          const owner = pools.chunkSlot[chunk] as number;
          if (owner !== slot) f.borrowedHits++;
          this.pooledBytes += (pools.chunkBytes[owner] as number) - header;
          const h = this.newHandle();
          this.hKind[h] = POOLED;
          this.hRef[h] = chunk;
          this.hSlot[h] = slot;
          this.hEvent[h] = event;
          this.hSize[h] = sizeBytes;
          this.hHeader[h] = header;
          return h;
        }
      } else {
        f.missesWithoutBin++;
      }
      f.misses++;
    } else if (this.phase === 'collecting') {
      this.planner.trackAllocate(total, align);
    }
    return this.viaFallback(sizeBytes, header, align, event, BIG_FALLBACK);
  }

  /** The sub-allocator's call for a request and its header (DeepRec asks it for both). */
  private viaFallback(sizeBytes: number, header: number, align: number, event: number, kind: number): number {
    const r = this.fallback.allocateAligned(sizeBytes + header, align, event);
    if (r === FAILED) {
      this.failure = this.fallback.lastFailure();
      return FAILED;
    }
    const used = this.fallback.allocatedBytes;
    const f = this.facts;
    if (used > f.fallbackPeakBytes) f.fallbackPeakBytes = used;
    if (f.fallbackPeakAfterBuildBytes !== null && used > f.fallbackPeakAfterBuildBytes) f.fallbackPeakAfterBuildBytes = used;
    const h = this.newHandle();
    this.hKind[h] = kind;
    this.hRef[h] = r;
    this.hEvent[h] = event;
    this.hSize[h] = sizeBytes;
    this.hHeader[h] = header;
    this.fallbackHeaderBytes += header;
    return h;
  }

  free(handle: number, step: number, event: number): void {
    if (step !== this.curStep) this.changeStep(step);
    const kind = this.hKind[handle] as number;
    if (kind === POOLED) {
      const pools = this.pools as Pools;
      const chunk = this.hRef[handle] as number;
      this.pooledBytes -= (pools.chunkBytes[pools.chunkSlot[chunk] as number] as number) - (this.hHeader[handle] as number);
      pools.give(chunk, this.hSlot[handle] as number);
    } else {
      this.fallback.free(this.hRef[handle] as number);
      this.fallbackHeaderBytes -= this.hHeader[handle] as number;
      // DeepRec's TrackDeallocate: a big lifetime is recorded when it ends in a collected run.
      if (kind === BIG_FALLBACK && this.phase === 'collecting') {
        this.planner.record(this.hEvent[handle] as number, event, (this.hSize[handle] as number) + (this.hHeader[handle] as number));
      }
    }
    this.freeHandles[this.freeTop++] = handle;
  }

  /**
   * The step id changed: a session run ends (DeepRec's StopCollect) and the next one starts
   * (StartCollect, which counts it): collection starts at run `start_step`, whatever the ids say.
   */
  private changeStep(step: number): void {
    if (!Number.isNaN(this.curStep)) this.endStep(false);
    this.curStep = step;
    this.run++;
    const f = this.facts;
    f.runs = this.run + 1;
    if (Number.isNaN(f.firstStep)) f.firstStep = step;
    if (!(step <= f.lastStep)) f.lastStep = step;
    if (this.phase === 'waiting' && this.run === this.opts.start_step) {
      this.phase = 'collecting';
      f.collectionStartStep = step;
    }
  }

  private endStep(atTraceEnd: boolean): void {
    if (this.phase !== 'collecting' || !this.planner.endStep()) return;
    this.facts.collectionEndStep = this.curStep;
    if (atTraceEnd) {
      // Building now would add reserved memory after the last event that nothing uses.
      this.phase = 'ended';
      return;
    }
    const policy = this.planner.bestPolicy();
    const bytes = Pools.bytesOf(policy);
    if (bytes > this.device.freeBytes) {
      this.phase = 'build-failed';
      this.facts.failedPoolBytes = bytes;
      return;
    }
    this.pools = new Pools(policy, this.device, (size) => (size > this.fallbackOpts.large_threshold ? this.fallbackOpts.page : this.fallbackOpts.alignment));
    this.phase = 'built';
    this.facts.poolsBuiltAfterStep = this.curStep;
    this.facts.fallbackPeakAfterBuildBytes = this.fallback.allocatedBytes;
  }

  finish(): void {
    if (!Number.isNaN(this.curStep)) this.endStep(true);
  }

  private newHandle(): number {
    if (this.freeTop > 0) return this.freeHandles[--this.freeTop] as number;
    const h = this.nextHandle++;
    if (h === this.hKind.length) {
      const grow = <T extends Uint8Array | Int32Array | Uint32Array | Float64Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.hKind = grow(this.hKind);
      this.hRef = grow(this.hRef);
      this.hSlot = grow(this.hSlot);
      this.hEvent = grow(this.hEvent);
      this.hSize = grow(this.hSize);
      this.hHeader = grow(this.hHeader);
      this.freeHandles = grow(this.freeHandles);
    }
    return h;
  }

  /** A block's address is DeepRec's user pointer: the chunk's (or the device block's) start plus the header. */
  address(handle: number): number {
    const header = this.hHeader[handle] as number;
    if (this.hKind[handle] === POOLED) return ((this.pools as Pools).chunkAddress[this.hRef[handle] as number] as number) + header;
    return this.fallback.address(this.hRef[handle] as number) + header;
  }

  /** A block runs from the user pointer to the chunk's (or the device block's) end; the header is the allocator's. */
  blockBytes(handle: number): number {
    const header = this.hHeader[handle] as number;
    if (this.hKind[handle] === POOLED) {
      const p = this.pools as Pools;
      return (p.chunkBytes[p.chunkSlot[this.hRef[handle] as number] as number] as number) - header;
    }
    return this.fallback.blockBytes(this.hRef[handle] as number) - header;
  }

  largestFreeBlockBytes(): number {
    return this.pools ? this.pools.largestFreeChunkBytes() : 0;
  }

  freeBlockCount(): number {
    return this.pools ? this.pools.freeChunks : 0;
  }

  lastFailure(): AllocationFailure {
    return this.failure;
  }

  state(): AllocatorState {
    const segments: SegmentState[] = [];
    const p = this.pools;
    if (p) {
      // Which handle holds each chunk: the state is rare, so a scan of the live handles is fine.
      const holder = new Int32Array(p.chunkCount).fill(-1);
      const isFreeHandle = new Uint8Array(this.nextHandle);
      for (let k = 0; k < this.freeTop; k++) isFreeHandle[this.freeHandles[k] as number] = 1;
      for (let h = 0; h < this.nextHandle; h++) if (!isFreeHandle[h] && this.hKind[h] === POOLED) holder[this.hRef[h] as number] = h;
      for (let s = 0; s < p.binOfSlot.length; s++) {
        const count = p.chunksOfSlot[s] as number;
        if (count === 0) continue;
        const chunk = p.chunkBytes[s] as number;
        const first = p.firstChunk[s] as number;
        const blocks = [];
        for (let c = first; c < first + count; c++) {
          const h = holder[c] as number;
          const address = p.chunkAddress[c] as number;
          blocks.push(h < 0 ? { address, sizeBytes: chunk, isFree: true } : { address, sizeBytes: chunk, requestedBytes: this.hSize[h] as number, allocEvent: this.hEvent[h] as number, isFree: false });
        }
        segments.push({ address: p.baseAddress[s] as number, sizeBytes: count * chunk, kind: 'pool', blocks });
      }
    }
    for (const seg of this.fallback.state().segments) segments.push({ ...seg, kind: 'fallback' });
    segments.sort((x, y) => x.address - y.address);
    return { segments };
  }

  stats(): Record<string, unknown> {
    const f = this.facts;
    const p = this.pools;
    return {
      policyIntervalBytes: p ? p.intervalBytes : null,
      poolBytes: p ? p.poolBytes : 0,
      bins: p ? p.binsWithBlocks : 0,
      blocks: p ? p.chunkCount : 0,
      poolCalls: p ? p.calls : 0,
      hits: f.hits,
      misses: f.misses,
      smallRequests: f.smallRequests,
      poolsBuiltAfterStep: f.poolsBuiltAfterStep,
      fallbackPeakBytes: f.fallbackPeakBytes,
      // Further figures that explain the ones above.
      phase: this.phase,
      borrowedHits: f.borrowedHits,
      missesWithoutBin: f.missesWithoutBin,
      fallbackPeakAfterBuildBytes: f.fallbackPeakAfterBuildBytes,
      collectionStartStep: f.collectionStartStep,
      collectedSteps: this.planner.collectedSteps,
      stableStepsInARow: this.planner.stableInARow,
      recordedLifetimes: this.planner.recordedLifetimes,
      policyTotalBytes: Object.fromEntries(this.planner.policies.map((q) => [String(q.intervalBytes), q.totalBytes])),
    };
  }

  notes(): string[] {
    return describeRun(this.facts, this.phase, this.planner, this.pools);
  }
}
