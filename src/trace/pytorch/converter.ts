import { POOL_LARGE, POOL_SMALL, POOL_UNKNOWN, SegmentLayout, TAKE_OK } from '../../util/segment-layout.js';
import type { TraceBuilder } from '../builder.js';
import type { RecordedBlock, RecordedOom, RecordedSegment, RecordedSegmentEvent } from '../model.js';
import { AllocationRecords, IdWriter } from './ids.js';
import { grown } from '../../util/typed-arrays.js';
import type { LiveAddresses } from './live-addresses.js';
import { StackTable } from './stacks.js';
import type { FinalCheck } from './notes.js';
import { type InitialState, segmentPoolBySize } from './reconstruct.js';
import { blockBytesFromFree, type BlockRules, isSmallPool, roundSize } from './round-size.js';
import {
  A_ALLOC,
  A_FREE_COMPLETED,
  A_FREE_REQUESTED,
  A_OOM,
  A_SEGMENT_ALLOC,
  A_SEGMENT_FREE,
  A_SEGMENT_MAP,
  A_SEGMENT_UNMAP,
  type DeviceTrace,
  type SnapshotSegment,
} from './snapshot.js';

/**
 * The forward pass of a snapshot's import (see import.ts): events, block sizes, segment history.
 */
export class Converter {
  readonly records: AllocationRecords;
  readonly segmentEvents: RecordedSegmentEvent[] = [];
  readonly ooms: RecordedOom[] = [];
  initialSegments: RecordedSegment[] = [];
  /** Address -> the live allocation there, and the allocations made there so far (the `n` of the ids). */
  readonly live: LiveAddresses;
  /** The `n` of each allocation's id (its address is in `records`). */
  private occ: Uint32Array<ArrayBuffer>;
  private readonly idBytes = new IdWriter();
  /** Frame number (of `stacks`) -> 1 + the builder's tag index of its text (0: not yet known). */
  private tagOfFrame = new Int32Array(1024);
  private readonly layout = new SegmentLayout(false);
  /** The user stack of every allocation. */
  readonly stacks: StackTable;
  initialCount = 0;
  initialBytes = 0;
  allocs = 0;
  frees = 0;
  pendingFreeRequests = 0;
  /** Inconsistencies between the trace and the layout it implies. */
  misplaced = 0;
  sizeFixes = 0;
  timeFixes = 0;
  segmentMismatch = 0;
  private lastTime = -Infinity;

  constructor(
    private readonly b: TraceBuilder,
    private readonly t: DeviceTrace,
    private readonly rules: BlockRules,
    private readonly initial: InitialState,
  ) {
    // Every address the trace names (the table of them made already), and those of the allocations live at the start.
    this.live = initial.addresses;
    this.live.clear(initial.allocations.length);
    // Room for an allocation per entry (pages never written cost no memory), so that the tables per
    // allocation are not grown by copies, each into fresh memory.
    const room = initial.allocations.length + t.length + 1;
    this.records = new AllocationRecords(room);
    this.stacks = new StackTable(room);
    this.occ = new Uint32Array(room);
  }

  /** The tag of a stack: its innermost frame (the rule of `FrameTags`). */
  private tagOf(stack: number): number {
    if (stack === 0) return 0;
    const f = this.stacks.innermostFrame(stack);
    if (f >= this.tagOfFrame.length) {
      const t = new Int32Array(Math.max(f + 1, this.tagOfFrame.length * 2));
      t.set(this.tagOfFrame);
      this.tagOfFrame = t;
    }
    const known = this.tagOfFrame[f] as number;
    if (known > 0) return known - 1;
    const i = this.b.internTagString(this.stacks.frameText(f));
    this.tagOfFrame[f] = i + 1;
    return i;
  }

  /** Adds an alloc with the id `b<address hex>_<n>`, written as bytes (no string per event). */
  private addAlloc(address: number, n: number, requested: number, step: number, stream: number, tag: number, time: number | undefined, line: number, fresh = true): number {
    const len = this.idBytes.write(address, n);
    // A new occurrence at an address: an id no allocation had before.
    const a = fresh ? this.b.addAllocNew(this.idBytes.buf, 0, len, requested, step, stream, tag, time ?? NaN, line) : this.b.addAllocBytes(this.idBytes.buf, 0, len, requested, step, stream, tag, time ?? NaN, line);
    if (a >= this.occ.length) this.occ = grown(this.occ, Math.max(a + 1, this.occ.length * 2));
    if (a >= 0) this.occ[a] = n;
    return a;
  }

  private addFree(address: number, n: number, stream: number, time: number | undefined, line: number): number {
    const len = this.idBytes.write(address, n);
    return this.b.addFreeBytes(this.idBytes.buf, 0, len, NaN, stream, time ?? NaN, line);
  }

  run(): void {
    for (const s of this.initial.segments) this.layout.addSegment(s.start, s.end - s.start, s.stream, s.pool, s.isExpandable);
    for (const x of this.initial.allocations) {
      const stack = this.stacks.of(x.frames);
      const tag = this.tagOf(stack);
      const i = this.live.slot(x.address);
      const a = this.addAlloc(x.address, this.live.bump(i), x.requestedBytes, 0, x.stream, tag, undefined, 0);
      if (a < 0) continue;
      this.stacks.set(a, stack);
      this.place(a, i, x.address, x.blockBytes);
      this.initialCount++;
      this.initialBytes += x.requestedBytes;
    }
    this.b.markInitialEvents();
    this.initialSegments = this.snapshotSegments();
    const t = this.t;
    for (let k = 0; k < t.length; k++) {
      switch (t.action[k]) {
        case A_ALLOC:
          this.alloc(k);
          break;
        case A_FREE_COMPLETED:
          this.free(k);
          break;
        case A_FREE_REQUESTED:
          this.pendingFreeRequests++;
          break;
        case A_SEGMENT_ALLOC:
        case A_SEGMENT_FREE:
        case A_SEGMENT_MAP:
        case A_SEGMENT_UNMAP:
          this.segment(k);
          break;
        case A_OOM:
          this.ooms.push({
            beforeEvent: this.b.length,
            sizeBytes: t.size[k] as number,
            deviceFreeBytes: t.addr[k] as number,
            stream: this.streamAt(k),
            source: `${this.entryList}[${k}]`,
            entry: k,
          });
          break;
        default:
      }
    }
  }

  /** Where the events come from (`device_traces[d]`), for problems and recorded entries. */
  private get entryList(): string {
    return this.b.entries?.list ?? 'device_traces';
  }

  /**
   * A trace entry that contradicts the segments and blocks before it: refused with its path, or,
   * under --lenient, counted (the notes say how many).
   */
  private inconsistent(k: number, message: string): void {
    if (!this.b.isLenient) this.b.problem({ line: k + 1, message });
  }

  /** Allocation `a` placed at `address` (in slot `i` of {@link live}), in a block of `bytes`. */
  private place(a: number, i: number, address: number, bytes: number): void {
    this.records.set(a, address, bytes);
    this.live.setLive(i, a);
    if (this.layout.take(address, bytes, a) !== TAKE_OK) this.misplaced++;
  }

  /** The alloc of entry `k` was placed where the layout had no free range for it. */
  private misplacedAlloc(k: number, address: number, bytes: number): void {
    this.misplaced++;
    this.inconsistent(k, `alloc of ${bytes} bytes at 0x${address.toString(16)} does not lie in a free range of a segment`);
  }

  /** The stream of entry `k` (the column is not read where every stream is 0: see DeviceTrace.hasStreams). */
  private streamAt(k: number): number {
    return this.t.hasStreams ? (this.t.stream[k] as number) : 0;
  }

  /**
   * Times must not decrease in a memsim trace: a snapshot's rare out-of-order stamps are raised, in
   * the trace's own column, as each alloc or free entry is taken (once). The events then take their
   * time from the column (TraceBuilder.setTimeFrom): no time is passed to a call as a double.
   */
  private raiseTime(k: number): void {
    const time = this.t.time;
    const v = time[k] as number;
    if (v < this.lastTime) {
      this.timeFixes++;
      time[k] = this.lastTime;
    } else if (v === v) {
      this.lastTime = v;
    }
  }

  /** The time of entry `k` (raised already: see {@link raiseTime}), or undefined. */
  private time(k: number): number | undefined {
    const v = this.t.time[k] as number;
    return v === v ? v : undefined;
  }

  private alloc(k: number): void {
    this.raiseTime(k);
    const t = this.t;
    const address = t.addr[k] as number;
    const requested = t.size[k] as number;
    const stream = this.streamAt(k);
    const i = this.live.slot(address);
    const liveThere = this.live.liveIn(i);
    if (liveThere >= 0) {
      // An alloc over a live block: let the builder report it (or count it under --lenient).
      this.addAlloc(address, this.occ[liveThere] as number, requested, NaN, stream, 0, this.time(k), k + 1, false);
      return;
    }
    const rounded = roundSize(requested, this.rules);
    const free = this.layout.freeBytesFrom(address);
    const bytes = free >= rounded ? blockBytesFromFree(rounded, free, this.rules) : rounded;
    const stack = t.stackOf(k, this.stacks);
    // addAlloc and place, written out: the address and time, doubles, are passed to no call of this
    // importer's own (each such call, unless V8 inlines it, takes them as numbers on the heap).
    const n = this.live.bump(i);
    const len = this.idBytes.write(address, n);
    const tag = this.tagOf(stack);
    const a = this.b.addAllocNew(this.idBytes.buf, 0, len, requested, NaN, stream, tag, NaN, k + 1);
    if (a < 0) return;
    this.b.setTimeFrom(t.time, k);
    if (a >= this.occ.length) this.occ = grown(this.occ, Math.max(a + 1, this.occ.length * 2));
    this.occ[a] = n;
    this.allocs++;
    this.stacks.set(a, stack);
    this.records.set(a, address, bytes);
    this.live.setLive(i, a);
    if (this.layout.take(address, bytes, a) !== TAKE_OK) this.misplacedAlloc(k, address, bytes);
  }

  private free(k: number): void {
    this.raiseTime(k);
    const t = this.t;
    const address = t.addr[k] as number;
    const i = this.live.find(address);
    const a = i < 0 ? -1 : this.live.liveIn(i);
    if (a < 0) {
      // Not live: a second free of the same block. The builder names it (or counts it).
      const n = i < 0 ? 0 : this.live.madeIn(i);
      this.addFree(address, n === 0 ? 0 : n - 1, this.streamAt(k), this.time(k), k + 1);
      return;
    }
    // Live here and in the builder: freed by its number (its id is that allocation's alone).
    let freed: number;
    if (this.b.isLive(a)) {
      freed = this.b.addFreeOf(a, NaN, this.streamAt(k), NaN, k + 1);
      this.b.setTimeFrom(t.time, k);
    } else {
      freed = this.addFree(address, this.occ[a] as number, this.streamAt(k), this.time(k), k + 1);
    }
    if (freed < 0) return;
    this.frees++;
    this.live.setLive(i, -1);
    this.layout.release(address);
  }

  /** The pool a new segment serves: that of the next alloc (a segment is created for it), else by size. */
  private poolOfNewSegment(k: number, sizeBytes: number, isExpandable: boolean): number {
    const t = this.t;
    for (let j = k + 1; j < t.length && j < k + 64; j++) {
      if (t.action[j] === A_ALLOC) return isSmallPool(roundSize(t.size[j] as number, this.rules)) ? POOL_SMALL : POOL_LARGE;
    }
    return segmentPoolBySize(sizeBytes, isExpandable);
  }

  private segment(k: number): void {
    const t = this.t;
    const action = t.action[k];
    const address = t.addr[k] as number;
    const sizeBytes = t.size[k] as number;
    const stream = this.streamAt(k);
    let ok: boolean;
    let name: RecordedSegmentEvent['action'];
    let pool = POOL_UNKNOWN;
    if (action === A_SEGMENT_ALLOC) {
      name = 'alloc';
      pool = this.poolOfNewSegment(k, sizeBytes, false);
      ok = this.layout.addSegment(address, sizeBytes, stream, pool, false);
    } else if (action === A_SEGMENT_FREE) {
      name = 'free';
      ok = this.layout.removeSegment(address, sizeBytes);
    } else if (action === A_SEGMENT_MAP) {
      name = 'map';
      // A range that extends a mapped one belongs to its pool; a new expandable segment to the next alloc's.
      const joined = this.layout.segmentAt(address - 1);
      pool = joined && joined.isExpandable && joined.stream === stream ? joined.pool : this.poolOfNewSegment(k, sizeBytes, true);
      ok = this.layout.map(address, sizeBytes, stream, pool);
    } else {
      name = 'unmap';
      ok = this.layout.unmap(address, sizeBytes);
    }
    if (!ok) {
      this.segmentMismatch++;
      this.inconsistent(k, `segment_${name} of ${sizeBytes} bytes at 0x${address.toString(16)} does not fit the segments before it`);
    }
    const ev: RecordedSegmentEvent = { beforeEvent: this.b.length, action: name, address, sizeBytes, stream, entry: k };
    if (pool !== POOL_UNKNOWN) ev.pool = pool === POOL_SMALL ? 'small' : 'large';
    this.segmentEvents.push(ev);
  }

  /** The layout's segments now, with their blocks (used right after the initial allocations). */
  private snapshotSegments(): RecordedSegment[] {
    const out: RecordedSegment[] = [];
    this.layout.forEachSegment((s) => {
      const blocks: RecordedBlock[] = [];
      this.layout.forEachBlockIn(s.start, s.end, (start, end, id) => {
        blocks.push(id < 0 ? { address: start, sizeBytes: end - start, state: 'free' } : { address: start, sizeBytes: end - start, state: 'allocated', allocation: id });
      });
      out.push({
        address: s.start,
        sizeBytes: s.end - s.start,
        stream: s.stream,
        pool: s.pool === POOL_SMALL ? 'small' : 'large',
        isExpandable: s.isExpandable,
        blocks,
      });
    });
    return out;
  }

  /** Compares the end of the replayed layout with the final segments; the final block sizes win. */
  checkAgainst(finals: SnapshotSegment[]): FinalCheck {
    const finalStarts = new Map<number, number>();
    for (const s of finals) finalStarts.set(s.address, s.totalBytes);
    let segmentsMatch = finalStarts.size === this.layout.segmentCount;
    this.layout.forEachSegment((s) => {
      if (finalStarts.get(s.start) !== s.end - s.start) segmentsMatch = false;
    });
    let blocksMatch = 0;
    let blocksDiffer = 0;
    // Addresses of the final active blocks, and how many of them have an allocation live.
    const activeFinal = new Set<number>();
    let liveInFinal = 0;
    for (const s of finals) {
      for (const blk of s.blocks) {
        if (blk.state === 'free') continue;
        const a = this.live.liveAt(blk.address);
        if (!activeFinal.has(blk.address)) {
          activeFinal.add(blk.address);
          if (a >= 0) liveInFinal++;
        }
        if (a < 0) continue;
        if (this.records.allocated[a] === blk.sizeBytes) {
          blocksMatch++;
        } else {
          blocksDiffer++;
          this.records.allocated[a] = blk.sizeBytes;
        }
      }
    }
    return { segmentsMatch, blocksMatch, blocksDiffer, liveNotInFinal: this.live.liveCount - liveInFinal };
  }
}
