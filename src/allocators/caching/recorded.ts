/**
 * Replaying a recorded PyTorch history (a memory snapshot): the allocator starts from the segments
 * and live blocks as they were when the recorded window opened, new segments take the addresses the
 * real allocator got, segments the real allocator released are released, and every allocation is
 * compared with the address the real allocator chose.
 */
import type { RecordedOom, RecordedSegmentEvent, Trace } from '../../trace/model.js';
import { formatBytes, formatHex } from '../../util/bytes.js';
import type { CachingAllocator } from './allocator.js';
import type { ExpandableSegment } from './blocks.js';
import type { SegmentPlacement } from './expandable.js';
import { InitialState } from './initial-state.js';
import { checkRecordedOom, type RecordedOomCheck } from './recorded-oom.js';

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
  /**
   * The device total that expandable segments reserve address space for (totalGlobalMem), and where
   * it comes from: `inferred` from the recorded reservations, else `capacity` or `default`.
   */
  deviceTotal?: { bytes: number; source: 'inferred' | 'capacity' | 'default' };
  /** Recorded segment_unmap events, and those the simulation replayed (the others found no such free pages). */
  unmaps?: { recorded: number; replayed: number; alreadyUnmapped: number };
  /** The real run's OOMs, and whether the simulation fails there too. */
  recordedOoms?: RecordedOomCheck[];
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
  /** Every segment event, in the order of the source (for the recorded reserved bytes, frees and unmaps). */
  private readonly changes: RecordedSegmentEvent[];
  private changesCursor = 0;
  private readonly ooms: RecordedOom[];
  private oomsCursor = 0;
  private readonly oomChecks: RecordedOomCheck[] = [];
  /** Reserved bytes of the recorded allocator as of the changes applied so far. */
  private recordedReserved = 0;
  /** The most the recorded allocator reserved so far. */
  private recordedReservedPeak = 0;
  private event = -1;
  /** The device the history was recorded on (a snapshot's device_traces index). */
  private readonly device: number;
  private readonly initial: InitialState;
  private releasedAsRecorded = 0;
  private unmapsRecorded = 0;
  private unmapsReplayed = 0;
  private unmapsAlready = 0;
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
    this.device = typeof rec.extra?.['device'] === 'number' ? (rec.extra['device'] as number) : 0;
    this.initialEvents = trace.initialEvents;
    this.address = rec.address;
    this.blockBytes = rec.allocatedBytes;
    const byEvent = (x: RecordedSegmentEvent, y: RecordedSegmentEvent): number => x.beforeEvent - y.beforeEvent;
    this.created = rec.segmentEvents.filter((e) => e.action === 'alloc' || e.action === 'map').sort(byEvent);
    this.createdUsed = new Uint8Array(this.created.length);
    const bySource = <T extends { beforeEvent: number; entry?: number }>(x: T, y: T): number => x.beforeEvent - y.beforeEvent || (x.entry ?? 0) - (y.entry ?? 0);
    this.changes = [...rec.segmentEvents].sort(bySource);
    this.unmapsRecorded = this.changes.filter((e) => e.action === 'unmap').length;
    this.ooms = [...(rec.ooms ?? [])].sort(bySource);
    this.recordedReserved = rec.initialSegments.reduce((sum, x) => sum + x.sizeBytes, 0);
    this.recordedReservedPeak = this.recordedReserved;
    this.initial = new InitialState(alloc, rec.initialSegments);
  }

  /** The real run's OOMs checked so far that the simulation fails at too. */
  reproduced(): number {
    return this.oomChecks.filter((c) => c.reproduced === true).length;
  }

  /**
   * An allocation live when the window opened, placed where it was recorded with its recorded
   * block size; -1 when it cannot be.
   */
  placeInitial(event: number, sizeBytes: number, streamIndex: number): number {
    const n = this.trace.alloc[event] as number;
    return this.initial.place(this.address[n] as number, this.blockBytes[n] as number, sizeBytes, streamIndex, event);
  }

  /**
   * Called before each event: what the recorded allocator gave back before it (segment_free,
   * segment_unmap) is given back, and each OOM of the real run before it is checked, in the order
   * of the source.
   */
  beforeEvent(event: number): void {
    this.event = event;
    const ch = this.changes;
    const oo = this.ooms;
    for (;;) {
      const c = ch[this.changesCursor];
      const o = oo[this.oomsCursor];
      const cDue = c !== undefined && c.beforeEvent <= event;
      const oDue = o !== undefined && o.beforeEvent <= event;
      if (!cDue && !oDue) return;
      if (cDue && (!oDue || c.beforeEvent < o.beforeEvent || (c.beforeEvent === o.beforeEvent && (c.entry ?? 0) < (o.entry ?? 0)))) {
        this.changesCursor++;
        this.applyChange(c);
      } else {
        this.oomsCursor++;
        this.oomChecks.push(checkRecordedOom(this.alloc, o as RecordedOom, this.recordedReserved, this.alloc.device.capacityBytes, this.device));
      }
    }
  }

  private applyChange(e: RecordedSegmentEvent): void {
    const grows = e.action === 'alloc' || e.action === 'map';
    this.recordedReserved += grows ? e.sizeBytes : -e.sizeBytes;
    if (this.recordedReserved > this.recordedReservedPeak) this.recordedReservedPeak = this.recordedReserved;
    if (e.action === 'free') this.release(e);
    else if (e.action === 'unmap') this.unmap(e);
  }

  /**
   * A recorded segment_unmap (an expandable segment giving pages back: the OOM retry, empty_cache):
   * the same free pages of the simulation are unmapped; a segment left with no page is released.
   */
  private unmap(e: RecordedSegmentEvent): void {
    const a = this.alloc;
    const end = e.address + e.sizeBytes;
    for (let k = 0; k < a.setCount; k++) {
      for (const id of a.setBlocks(k)) {
        const seg = a.seg[id] as number;
        const start = a.ptr[id] as number;
        if (seg < 0 || start > e.address || start + (a.size[id] as number) < end) continue;
        const es = a.expandable[seg] as ExpandableSegment;
        if ((e.address - es.base) % es.pageBytes !== 0 || e.sizeBytes % es.pageBytes !== 0) return;
        a.unmapRange(id, e.address, e.sizeBytes);
        this.unmapsReplayed++;
        if (!a.isSplit(id)) a.releaseExpandableSegment(id);
        return;
      }
    }
    // Pages the simulation had unmapped already (its own OOM retry under a capacity) are no mismatch.
    for (let k = 0; k < a.unmappedSets.length; k++) {
      const set = a.unmappedSets[k];
      for (let node = set ? set.first() : -1; set && node >= 0; node = set.next(node)) {
        const id = set.payload(node);
        const start = a.ptr[id] as number;
        if (start <= e.address && start + (a.size[id] as number) >= end) {
          this.unmapsAlready++;
          return;
        }
      }
    }
  }

  /** A recorded segment_free (empty_cache, or the real OOM retry): the same cached segment goes back. */
  private release(e: RecordedSegmentEvent): void {
    const a = this.alloc;
    // The recorded stream's two sets first (one probe each), then every set.
    const stream = a.knownStreamIndex(e.stream);
    if (stream >= 0 && (this.releaseFrom(e, stream * 2) || this.releaseFrom(e, stream * 2 + 1))) return;
    for (let k = 0; k < a.setCount; k++) if (this.releaseFrom(e, k)) return;
  }

  /** Releases the cached segment of set `k` at the event's address and size; false when the set has no such block. */
  private releaseFrom(e: RecordedSegmentEvent, k: number): boolean {
    const a = this.alloc;
    const id = a.setLowerBound(k, e.sizeBytes, e.address);
    if (id < 0 || a.size[id] !== e.sizeBytes || a.ptr[id] !== e.address) return false;
    if (!a.isSplit(id) && (a.seg[id] as number) < 0) {
      a.releaseBlock(id);
      this.releasedAsRecorded++;
    }
    return true;
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
      ...(this.alloc.expandableMode || this.alloc.inferredTotal ? { deviceTotal: this.deviceTotal() } : {}),
      ...(this.unmapsRecorded > 0 ? { unmaps: { recorded: this.unmapsRecorded, replayed: this.unmapsReplayed, alreadyUnmapped: this.unmapsAlready } } : {}),
      ...(this.ooms.length > 0 ? { recordedOoms: this.oomChecks } : {}),
      mismatches: this.mismatches,
    };
  }

  private deviceTotal(): { bytes: number; source: 'inferred' | 'capacity' | 'default' } {
    const a = this.alloc;
    const source = a.inferredTotal ? 'inferred' : Number.isFinite(a.device.capacityBytes) ? 'capacity' : 'default';
    return { bytes: a.deviceTotalBytes, source };
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
    const t = this.alloc.inferredTotal;
    if (t) {
      out.push(
        `expandable segments reserve address space for a device of ${formatBytes(t.totalBytes)} (${t.totalBytes} bytes), the most the recorded ` +
          `reservations leave room for: the one at ${formatHex(t.base)} reaches at most to ${formatHex(t.nextAddress)}` +
          (Number.isFinite(this.alloc.device.capacityBytes) ? ` (the capacity ${formatBytes(this.alloc.device.capacityBytes)} still limits the memory)` : ''),
      );
    }
    if (this.releasedAsRecorded > 0) out.push(`${this.releasedAsRecorded} cached segments released where the recorded allocator released them`);
    if (this.unmapsRecorded > 0) {
      out.push(
        `${this.unmapsReplayed} of ${this.unmapsRecorded} recorded segment_unmap events replayed where the recorded allocator unmapped pages` +
          (this.unmapsAlready > 0 ? ` (${this.unmapsAlready} more the simulation had unmapped itself)` : ''),
      );
    }
    for (const c of this.oomChecks) out.push(describeOomCheck(c));
    const limit = this.unrecordedLimit();
    if (limit) out.push(limit);
    const pct = this.allocations > 0 ? ` (${((100 * this.same) / this.allocations).toFixed(2)}%)` : '';
    out.push(`${this.same} of ${this.allocations} allocations in the window placed at the address the real allocator chose${pct}`);
    return out;
  }

  /**
   * When the real run failed with room to spare on the device and no memory fraction is simulated:
   * a limit the snapshot does not record was in force (torch.cuda.set_per_process_memory_fraction
   * sets one), and the history bounds it: at least the most the run reserved, below the least a
   * failed request would have brought the reservation to.
   */
  private unrecordedLimit(): string | undefined {
    if (this.alloc.setFraction) return undefined;
    const roomy = this.oomChecks.filter((c) => c.reproduced === false && !c.servedFromCache);
    if (roomy.length === 0) return undefined;
    const below = Math.min(...roomy.map((c) => c.simulatedReservedBytes - c.releasableBytes + c.neededBytes));
    const n = roomy.length;
    return (
      `the real run failed ${n === 1 ? 'once' : `${n} times`} with room left on the device: a limit the snapshot does not record was in force, ` +
      `such as a memory fraction (torch.cuda.set_per_process_memory_fraction), of at least ${formatBytes(this.recordedReservedPeak)} ` +
      `(${this.recordedReservedPeak} bytes, the most the run reserved) and below ${formatBytes(below)} (${below} bytes); ` +
      "--capacity with the device's total and --option per_process_memory_fraction=<limit ÷ total> simulate it"
    );
  }
}

/** One sentence on whether the simulation fails where the real run did. */
function describeOomCheck(c: RecordedOomCheck): string {
  const head = `the real run's OOM before event ${c.beforeEvent}${c.entry ? ` (${c.entry})` : ''}, a request of ${formatBytes(c.sizeBytes)}:`;
  if (c.servedFromCache) return `${head} NOT reproduced: a cached block of the simulation serves it`;
  const need = `needs ${formatBytes(c.neededBytes)} more from the device with ${formatBytes(c.simulatedReservedBytes)} reserved (${formatBytes(c.releasableBytes)} of it could be given back)`;
  if (c.reproduced === null) return `${head} the snapshot does not record the free device memory; the simulation ${need}`;
  const limit =
    c.limitBytes === null
      ? ''
      : c.deviceHadRoom
        ? `, and the device had ${formatBytes(c.deviceFreeBytes ?? 0)} free (the real run stopped at a cap of its own)`
        : `, and the real allocator could hold at most ${formatBytes(c.limitBytes)}`;
  return `${head} ${c.reproduced ? 'reproduced' : 'NOT reproduced'}: the simulation ${need}${limit}`;
}
