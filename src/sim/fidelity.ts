/**
 * How closely a simulated allocator placed a trace's allocations where the real allocator did, for
 * traces that carry a recorded history (TensorFlow memory logs, PyTorch snapshots): the share of
 * allocations given the recorded block size, and the share placed at the recorded offset.
 *
 * Offsets, not addresses: a simulation's device does not have the real one's addresses. Both sides
 * are measured from the first allocation that has a recorded address; in a log of a fresh process
 * that allocation opens the first region on both sides, so offsets agree for as long as the real
 * allocator stayed in that region (BFC places consecutive blocks next to each other). Allocators
 * with a comparison of their own (a `fidelity` report section) keep theirs.
 */
import { eventSource } from '../trace/location.js';
import type { RecordedHistory, RecordedOom, Trace } from '../trace/model.js';
import { formatHex } from '../util/bytes.js';
import { ratio } from './report.js';

/** An allocation the simulation placed otherwise than the real allocator. */
export interface PlacementMismatch {
  event: number;
  line: number | null;
  /** The entry of a file without lines (a snapshot), e.g. `device_traces[0][4]` (then `line` is null). */
  entry?: string;
  id: string;
  sizeBytes: number;
  recorded: { offsetBytes: number | null; allocatedBytes: number | null };
  simulated: { offsetBytes: number; allocatedBytes: number };
}

/** The `fidelity` section of a replay report on a trace with a recorded history. */
export interface PlacementFidelity {
  /** The allocator the history comes from (`tensorflow-bfc`, `pytorch-caching`, …). */
  recordedAllocator: string;
  /** Allocations the simulation served (reconstructed initial ones excluded). */
  allocations: number;
  /** Of those, the ones with a recorded block size, and the ones the simulation gave that size. */
  withAllocatedBytes: number;
  sameAllocatedBytes: number;
  sameAllocatedBytesRatio: number | null;
  /** Of those, the ones with a recorded address, and the ones at the recorded offset from the origin. */
  withAddress: number;
  sameOffset: number;
  sameOffsetRatio: number | null;
  /**
   * The ones at the very recorded address (the same fields as the caching allocator's own fidelity
   * section; a simulated device rarely has the real one's addresses, so offsets say more here).
   */
  sameAddress: number;
  sameAddressRatio: number | null;
  /** Reserved bytes at the end: the simulation's, and the recorded final segments' (null when unknown). */
  reservedBytesSimulated: number;
  reservedBytesRecorded: number | null;
  /** The first allocation with a recorded address: offsets on both sides are measured from it. */
  origin: { event: number; recordedAddress: string; simulatedAddress: string } | null;
  /**
   * The real run's OOMs (a snapshot's `oom` entries) and whether the simulation fails there too, as
   * far as its largest free block and reserved bytes tell: it does unless a free block of its own
   * holds the request or it can get the request from the device within what the real allocator
   * could hold then (its reserved bytes plus the free device memory the entry records).
   */
  recordedOoms?: RecordedOomEstimate[];
  /**
   * Present when the simulated allocator models a kind of allocator (bfc: `tensorflow-bfc`): whether
   * the recorded one is of that kind; when it is not, the figures compare unlike allocators.
   */
  simulatesRecordedKind?: boolean;
  /** The first mismatches (up to 20), to look into. */
  mismatches: PlacementMismatch[];
}

const MAX_MISMATCHES = 20;

/** One recorded OOM against a simulation (see {@link PlacementFidelity.recordedOoms}). */
export interface RecordedOomEstimate {
  beforeEvent: number;
  entry: string | null;
  sizeBytes: number;
  deviceFreeBytes: number | null;
  /** The real allocator's reserved bytes then plus the free device memory (null when not recorded). */
  limitBytes: number | null;
  liveBytes: number;
  simulatedReservedBytes: number;
  simulatedLargestFreeBlockBytes: number;
  /** The simulation fails there too (null when the free device memory is not recorded). */
  reproduced: boolean | null;
}

/** What an allocator shows of itself at a recorded OOM. */
export interface AllocatorView {
  readonly reservedBytes: number;
  largestFreeBlockBytes(): number;
  /** Its own verdict on a recorded OOM (see OnlineAllocator.realOomVerdict). */
  realOomVerdict?(o: RecordedOom): boolean | null | undefined;
}

/**
 * Whether a simulation, as it is now, fails the real run's OOM `o` too: its own verdict when it has
 * one (the caching allocator); else yes when it already holds more than the real allocator could
 * then (the capacity, or what it had reserved plus the device's free bytes, when recorded), not when
 * a free block of its holds the request, and yes when its reserved bytes and the request pass that
 * limit; unknown (null) without the device's free bytes.
 */
export function judgeRealOom(rec: RecordedHistory, o: RecordedOom, allocator: AllocatorView, capacityBytes: number): { limitBytes: number | null; largestFreeBlockBytes: number; reproduced: boolean | null } {
  // The recorded reserved bytes just before the failure: the segment changes before its entry.
  let reserved = rec.initialSegments.reduce((sum, x) => sum + x.sizeBytes, 0);
  for (const e of rec.segmentEvents) {
    if (e.beforeEvent > o.beforeEvent || (e.beforeEvent === o.beforeEvent && (e.entry ?? -1) >= (o.entry ?? Infinity))) break;
    reserved += e.action === 'alloc' || e.action === 'map' ? e.sizeBytes : -e.sizeBytes;
  }
  const free = o.deviceFreeBytes;
  const limit = free === undefined ? null : Math.min(capacityBytes, reserved + free);
  const largest = allocator.largestFreeBlockBytes();
  const own = allocator.realOomVerdict?.(o);
  // A simulation that holds more than the device could then fails there, whatever it has free.
  const over = limit !== null && allocator.reservedBytes > limit;
  const reproduced = own !== undefined ? own : over ? true : largest >= o.sizeBytes ? false : limit === null ? null : allocator.reservedBytes + o.sizeBytes > limit;
  return { limitBytes: limit, largestFreeBlockBytes: largest, reproduced };
}

/** What people call each kind of recorded allocator. */
const KIND_NAMES: Record<string, string> = {
  'tensorflow-bfc': 'a BFC allocator',
  'pytorch-caching': "PyTorch's CUDA caching allocator",
};

/**
 * When an allocator that models some kinds of allocators is compared with a history of another
 * kind: a note that says so, and which allocators of the same source are of a simulated kind
 * (a TensorFlow log lists every allocator it logged in `recorded.extra.allocators`).
 */
export function kindMismatchNote(simulator: string, simulates: readonly string[], trace: Trace): string | undefined {
  const rec = trace.recorded;
  if (!rec || simulates.includes(rec.allocator)) return undefined;
  const want = simulates.map((k) => KIND_NAMES[k] ?? k).join(' or ');
  const listed = rec.extra?.['allocators'];
  const others = Array.isArray(listed)
    ? (listed as { name?: unknown; kind?: unknown }[]).filter((a) => typeof a.kind === 'string' && simulates.includes(a.kind)).map((a) => String(a.name))
    : [];
  const name = typeof rec.extra?.['allocatorName'] === 'string' ? `"${rec.extra['allocatorName'] as string}"` : rec.allocator;
  const instead =
    others.length > 0
      ? `; the trace's ${others.length === 1 ? 'one' : 'ones'} of that kind: ${others.map((o) => `"${o}"`).join(', ')} (pick with --allocator-name ${others[0]})`
      : '; the trace has none of that kind';
  return `fidelity compares unlike allocators: the recorded allocator ${name} is not ${want}, which ${simulator} simulates${instead}.`;
}

/** Collects the comparison during a replay, from the engine's placement callback. */
export class PlacementComparison {
  private readonly recordedAddress: Float64Array;
  private readonly recordedBytes: Float64Array;
  private allocations = 0;
  private withBytes = 0;
  private sameBytes = 0;
  private withAddress = 0;
  private sameOffset = 0;
  private sameAddress = 0;
  private originEvent = -1;
  private recordedOrigin = 0;
  private simulatedOrigin = 0;
  private readonly mismatches: PlacementMismatch[] = [];
  private readonly oomEstimates: RecordedOomEstimate[] = [];

  constructor(private readonly trace: Trace) {
    const rec = trace.recorded;
    if (!rec) throw new Error('PlacementComparison needs a trace with a recorded history');
    this.recordedAddress = rec.address;
    this.recordedBytes = rec.allocatedBytes;
  }

  /** Whether the history records anything to compare with. */
  static applies(trace: Trace): boolean {
    const rec = trace.recorded;
    if (!rec) return false;
    return rec.address.some((x) => Number.isFinite(x)) || rec.allocatedBytes.some((x) => Number.isFinite(x));
  }

  /** Wraps an engine placement callback so that the comparison sees every placement too. */
  chain(next?: (event: number, allocation: number, address: number, sizeBytes: number, allocatedBytes: number) => void) {
    return (event: number, allocation: number, address: number, sizeBytes: number, allocatedBytes: number): void => {
      this.place(event, allocation, address, allocatedBytes);
      next?.(event, allocation, address, sizeBytes, allocatedBytes);
    };
  }

  /** One served allocation: where the simulation put it and the block size it gave. */
  place(event: number, a: number, address: number, allocatedBytes: number): void {
    if (event < this.trace.initialEvents) return;
    this.allocations++;
    const recBytes = a < this.recordedBytes.length ? (this.recordedBytes[a] as number) : NaN;
    const recAddress = a < this.recordedAddress.length ? (this.recordedAddress[a] as number) : NaN;
    let bytesDiffer = false;
    if (Number.isFinite(recBytes)) {
      this.withBytes++;
      if (recBytes === allocatedBytes) this.sameBytes++;
      else bytesDiffer = true;
    }
    let offsetDiffers = false;
    if (Number.isFinite(recAddress)) {
      if (this.originEvent < 0) {
        this.originEvent = event;
        this.recordedOrigin = recAddress;
        this.simulatedOrigin = address;
      }
      this.withAddress++;
      if (recAddress === address) this.sameAddress++;
      if (recAddress - this.recordedOrigin === address - this.simulatedOrigin) this.sameOffset++;
      else offsetDiffers = true;
    }
    if ((bytesDiffer || offsetDiffers) && this.mismatches.length < MAX_MISMATCHES) {
      const at = eventSource(this.trace, event);
      this.mismatches.push({
        event,
        line: at.line,
        ...(at.entry !== null ? { entry: at.entry } : {}),
        id: this.trace.ids.get(a),
        sizeBytes: this.trace.size[event] as number,
        recorded: {
          offsetBytes: Number.isFinite(recAddress) ? recAddress - this.recordedOrigin : null,
          allocatedBytes: Number.isFinite(recBytes) ? recBytes : null,
        },
        simulated: { offsetBytes: address - this.simulatedOrigin, allocatedBytes },
      });
    }
  }

  /**
   * The real run's OOM `k` reached (see ReplayOptions.onRecordedOom): whether the simulation, as it
   * is now, fails there too, within the capacity and what the real allocator could hold then.
   */
  recordedOom(k: number, liveBytes: number, allocator: AllocatorView, capacityBytes: number): void {
    const rec = this.trace.recorded;
    const o = rec?.ooms?.[k];
    if (!rec || !o) return;
    const v = judgeRealOom(rec, o, allocator, capacityBytes);
    this.oomEstimates.push({
      beforeEvent: o.beforeEvent,
      entry: o.source ?? null,
      sizeBytes: o.sizeBytes,
      deviceFreeBytes: o.deviceFreeBytes ?? null,
      limitBytes: v.limitBytes,
      liveBytes,
      simulatedReservedBytes: allocator.reservedBytes,
      simulatedLargestFreeBlockBytes: v.largestFreeBlockBytes,
      reproduced: v.reproduced,
    });
  }

  /** The report section, given the simulation's reserved bytes at the end. */
  result(reservedBytesSimulated: number): PlacementFidelity {
    const share = (n: number, of: number): number | null => (of > 0 ? ratio(n / of) : null);
    const finalSegments = this.trace.recorded?.finalSegments;
    return {
      recordedAllocator: this.trace.recorded?.allocator ?? '',
      allocations: this.allocations,
      withAllocatedBytes: this.withBytes,
      sameAllocatedBytes: this.sameBytes,
      sameAllocatedBytesRatio: share(this.sameBytes, this.withBytes),
      withAddress: this.withAddress,
      sameOffset: this.sameOffset,
      sameOffsetRatio: share(this.sameOffset, this.withAddress),
      sameAddress: this.sameAddress,
      sameAddressRatio: share(this.sameAddress, this.withAddress),
      reservedBytesSimulated,
      reservedBytesRecorded: finalSegments ? finalSegments.reduce((sum, seg) => sum + seg.sizeBytes, 0) : null,
      origin:
        this.originEvent < 0
          ? null
          : { event: this.originEvent, recordedAddress: formatHex(this.recordedOrigin), simulatedAddress: formatHex(this.simulatedOrigin) },
      ...(this.oomEstimates.length > 0 ? { recordedOoms: this.oomEstimates } : {}),
      mismatches: this.mismatches,
    };
  }

  /** One line for the report's notes. */
  note(): string {
    const pct = (n: number, of: number): string => (of > 0 ? ` (${((100 * n) / of).toFixed(2)}%)` : '');
    const parts: string[] = [];
    if (this.withBytes > 0) parts.push(`${this.sameBytes} of ${this.withBytes} allocations got the recorded block size${pct(this.sameBytes, this.withBytes)}`);
    if (this.withAddress > 0) {
      parts.push(
        `${this.sameOffset} of ${this.withAddress} sit at the recorded offset from the first one${pct(this.sameOffset, this.withAddress)} ` +
          '(offsets agree only where the real allocator started fresh and stayed in its first region)',
      );
    }
    const ooms = this.oomEstimates.map(
      (o) =>
        `; the real run's OOM before event ${o.beforeEvent}${o.entry ? ` (${o.entry})` : ''} ` +
        (o.reproduced === null ? 'cannot be checked (no free device memory recorded)' : o.reproduced ? 'is reproduced' : 'is NOT reproduced'),
    );
    return `fidelity against the recorded ${this.trace.recorded?.allocator ?? ''} history: ${parts.join('; ')}${ooms.join('')}.`;
  }
}
