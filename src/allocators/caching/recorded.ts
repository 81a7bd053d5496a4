/**
 * Replaying a recorded PyTorch history (a memory snapshot): the allocator starts from the segments
 * and live blocks as they were when the recorded window opened, new segments take the addresses the
 * real allocator got, segments the real allocator released are released, and every allocation is
 * compared with the address the real allocator chose.
 */
import type { RecordedSegmentEvent, Trace } from '../../trace/model.js';
import { formatHex } from '../../util/bytes.js';
import type { CachingAllocator } from './allocator.js';
import type { SegmentPlacement } from './expandable.js';
import { InitialState } from './initial-state.js';

/** An allocation placed elsewhere than the real allocator placed it. */
export interface AddressMismatch {
  event: number;
  id: string;
  sizeBytes: number;
  recordedAddress: string;
  simulatedAddress: string | null;
}

/** The `fidelity` section of the report. */
export interface Fidelity {
  /** Allocations in the window (initial ones excluded) whose recorded address is known. */
  allocations: number;
  /** Of those, the ones the simulation placed at the recorded address. */
  sameAddress: number;
  sameAddressRatio: number | null;
  reservedBytesSimulated: number;
  reservedBytesRecorded: number;
  /** Allocations in the window whose recorded block size is known, and those given that size. */
  withAllocatedBytes: number;
  sameAllocatedBytes: number;
  /**
   * When the history states its final segments block by block: how many of those blocks the
   * simulation ends with at the same address, size and state (in use or free).
   */
  finalBlocks?: { recorded: number; identical: number };
  /** The first mismatches (up to 20), to look into. */
  mismatches: AddressMismatch[];
}

const MAX_MISMATCHES = 20;

/** The recorded history's side of a replay with the caching allocator. */
export class RecordedReplay implements SegmentPlacement {
  readonly initialEvents: number;
  private readonly trace: Trace;
  private readonly address: Float64Array;
  private readonly blockBytes: Float64Array;
  private readonly created: RecordedSegmentEvent[];
  private readonly createdUsed: Uint8Array;
  private createdCursor = 0;
  private readonly released: RecordedSegmentEvent[];
  private releasedCursor = 0;
  private event = -1;
  private readonly initial: InitialState;
  private releasedAsRecorded = 0;
  private allocations = 0;
  private same = 0;
  private withBytes = 0;
  private sameBytes = 0;
  private readonly mismatches: AddressMismatch[] = [];

  constructor(
    trace: Trace,
    private readonly alloc: CachingAllocator,
  ) {
    const rec = trace.recorded!;
    this.trace = trace;
    this.initialEvents = trace.initialEvents;
    this.address = rec.address;
    this.blockBytes = rec.allocatedBytes;
    const byEvent = (x: RecordedSegmentEvent, y: RecordedSegmentEvent): number => x.beforeEvent - y.beforeEvent;
    this.created = rec.segmentEvents.filter((e) => e.action === 'alloc' || e.action === 'map').sort(byEvent);
    this.createdUsed = new Uint8Array(this.created.length);
    this.released = rec.segmentEvents.filter((e) => e.action === 'free').sort(byEvent);
    this.initial = new InitialState(alloc, rec.initialSegments);
  }

  /**
   * An allocation live when the window opened, placed where it was recorded with its recorded
   * block size; -1 when it cannot be.
   */
  placeInitial(event: number, sizeBytes: number, streamIndex: number): number {
    const n = this.trace.alloc[event] as number;
    return this.initial.place(this.address[n] as number, this.blockBytes[n] as number, sizeBytes, streamIndex, event);
  }

  /** Called before each event: segments the recorded allocator released before it are released. */
  beforeEvent(event: number): void {
    this.event = event;
    const rel = this.released;
    while (this.releasedCursor < rel.length && (rel[this.releasedCursor] as RecordedSegmentEvent).beforeEvent <= event) {
      this.release(rel[this.releasedCursor++] as RecordedSegmentEvent);
    }
  }

  /** A recorded segment_free (empty_cache, or the real OOM retry): the same cached segment goes back. */
  private release(e: RecordedSegmentEvent): void {
    const a = this.alloc;
    for (let k = 0; k < a.setCount; k++) {
      const id = a.setLowerBound(k, e.sizeBytes, e.address);
      if (id < 0 || a.size[id] !== e.sizeBytes || a.ptr[id] !== e.address) continue;
      if (!a.isSplit(id) && (a.seg[id] as number) < 0) {
        a.releaseBlock(id);
        this.releasedAsRecorded++;
      }
      return;
    }
  }

  take(kind: 'alloc' | 'map', sizeBytes: number): number {
    const c = this.created;
    while (this.createdCursor < c.length && (c[this.createdCursor] as RecordedSegmentEvent).beforeEvent < this.event) this.createdCursor++;
    for (let k = this.createdCursor; k < c.length && (c[k] as RecordedSegmentEvent).beforeEvent === this.event; k++) {
      const e = c[k] as RecordedSegmentEvent;
      if (this.createdUsed[k] || e.action !== kind || (kind === 'alloc' && e.sizeBytes !== sizeBytes)) continue;
      this.createdUsed[k] = 1;
      return e.address;
    }
    return NaN;
  }

  /** Compares an allocation in the window with the recorded one (NaN: it failed). */
  check(event: number, simulated: number, simulatedBytes: number): void {
    const n = this.trace.alloc[event] as number;
    const bytes = this.blockBytes[n] as number;
    if (Number.isFinite(bytes)) {
      this.withBytes++;
      if (bytes === simulatedBytes) this.sameBytes++;
    }
    const recorded = this.address[n] as number;
    if (!Number.isFinite(recorded)) return;
    this.allocations++;
    if (simulated === recorded) {
      this.same++;
    } else if (this.mismatches.length < MAX_MISMATCHES) {
      this.mismatches.push({
        event,
        id: this.trace.ids.get(n),
        sizeBytes: this.trace.size[event] as number,
        recordedAddress: formatHex(recorded),
        simulatedAddress: Number.isFinite(simulated) ? formatHex(simulated) : null,
      });
    }
  }

  /** Reserved bytes at the end of the recorded history. */
  recordedFinalReservedBytes(): number {
    const rec = this.trace.recorded!;
    if (rec.finalSegments) return rec.finalSegments.reduce((s, x) => s + x.sizeBytes, 0);
    let bytes = rec.initialSegments.reduce((s, x) => s + x.sizeBytes, 0);
    for (const e of rec.segmentEvents) bytes += e.action === 'alloc' || e.action === 'map' ? e.sizeBytes : -e.sizeBytes;
    return bytes;
  }

  fidelity(): Fidelity {
    const finalBlocks = this.compareFinalBlocks();
    return {
      allocations: this.allocations,
      sameAddress: this.same,
      sameAddressRatio: this.allocations > 0 ? Math.round((this.same / this.allocations) * 1e6) / 1e6 : null,
      reservedBytesSimulated: this.alloc.reservedBytes,
      reservedBytesRecorded: this.recordedFinalReservedBytes(),
      withAllocatedBytes: this.withBytes,
      sameAllocatedBytes: this.sameBytes,
      ...(finalBlocks ? { finalBlocks } : {}),
      mismatches: this.mismatches,
    };
  }

  /** The simulation's blocks now against the recorded final blocks (a pending free is in use). */
  private compareFinalBlocks(): { recorded: number; identical: number } | undefined {
    const final = this.trace.recorded!.finalSegments;
    if (!final || !final.some((s) => s.blocks && s.blocks.length > 0)) return undefined;
    const simulated = new Set<string>();
    for (const seg of this.alloc.state().segments) for (const b of seg.blocks) simulated.add(`${b.address}+${b.sizeBytes}${b.isFree ? 'f' : 'u'}`);
    let recorded = 0;
    let identical = 0;
    for (const seg of final) {
      for (const b of seg.blocks ?? []) {
        recorded++;
        if (simulated.has(`${b.address}+${b.sizeBytes}${b.state === 'free' ? 'f' : 'u'}`)) identical++;
      }
    }
    return { recorded, identical };
  }

  notes(): string[] {
    const out = this.initial.notes();
    if (this.releasedAsRecorded > 0) out.push(`${this.releasedAsRecorded} cached segments released where the recorded allocator released them`);
    const pct = this.allocations > 0 ? ` (${((100 * this.same) / this.allocations).toFixed(2)}%)` : '';
    out.push(`${this.same} of ${this.allocations} allocations in the window placed at the address the real allocator chose${pct}`);
    return out;
  }
}
