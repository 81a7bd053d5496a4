import type { RecordedHistory, RecordedOom, RecordedSegmentEvent, Trace } from '../../trace/model.js';
import type { CachingAllocator } from './allocator.js';
import { checkRecordedOom, type RecordedOomCheck } from './recorded-oom.js';

/**
 * The real run's OOMs for a caching allocator that starts fresh on a recorded history (a what-if of
 * another setting or card): at each request that failed on the device, whether this allocator fails
 * there too ({@link checkRecordedOom}, releasing its cache first as PyTorch does), against what the
 * real allocator could hold then. The recorded reserved bytes are followed through the history's
 * segment events, which this allocator does not replay.
 */
export class RealOomProbe {
  private readonly changes: RecordedSegmentEvent[];
  private readonly ooms: RecordedOom[];
  private changesCursor = 0;
  private oomsCursor = 0;
  private recordedReserved: number;
  private readonly checks: RecordedOomCheck[] = [];

  /** The probe of a trace's recorded PyTorch history, or null when it has no OOM to check. */
  static of(trace: Trace | undefined, alloc: CachingAllocator): RealOomProbe | null {
    const h = trace?.recorded;
    if (h?.allocator !== 'pytorch-caching' || (h.ooms?.length ?? 0) === 0) return null;
    return new RealOomProbe(h, alloc, typeof h.extra?.['device'] === 'number' ? (h.extra['device'] as number) : 0);
  }

  constructor(
    rec: RecordedHistory,
    private readonly alloc: CachingAllocator,
    private readonly device: number,
  ) {
    const bySource = <T extends { beforeEvent: number; entry?: number }>(x: T, y: T): number => x.beforeEvent - y.beforeEvent || (x.entry ?? 0) - (y.entry ?? 0);
    this.changes = [...rec.segmentEvents].sort(bySource);
    this.ooms = [...(rec.ooms ?? [])].sort(bySource);
    this.recordedReserved = rec.initialSegments.reduce((sum, x) => sum + x.sizeBytes, 0);
  }

  /** Checks each of the real run's OOMs before `event`, the recorded segment changes before it applied first. */
  beforeEvent(event: number): void {
    for (;;) {
      const o = this.ooms[this.oomsCursor];
      if (o === undefined || o.beforeEvent > event) return;
      for (;;) {
        const c = this.changes[this.changesCursor];
        if (c === undefined || c.beforeEvent > o.beforeEvent || (c.beforeEvent === o.beforeEvent && (c.entry ?? 0) >= (o.entry ?? 0))) break;
        this.recordedReserved += c.action === 'alloc' || c.action === 'map' ? c.sizeBytes : -c.sizeBytes;
        this.changesCursor++;
      }
      this.oomsCursor++;
      this.checks.push(checkRecordedOom(this.alloc, o, this.recordedReserved, this.alloc.device.capacityBytes, this.device));
    }
  }

  /** Whether this allocator fails at the real run's OOM `o` (one of the history's), checked now if it was not yet. */
  verdict(o: RecordedOom): boolean | null | undefined {
    this.beforeEvent(o.beforeEvent);
    const k = this.ooms.indexOf(o);
    return k >= 0 && k < this.checks.length ? (this.checks[k] as RecordedOomCheck).reproduced : undefined;
  }

  /** The real run's OOMs checked so far that this allocator fails at too. */
  reproduced(): number {
    return this.checks.filter((c) => c.reproduced === true).length;
  }
}
