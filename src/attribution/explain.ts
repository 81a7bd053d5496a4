import { formatBytes, formatCount as count, formatPercent } from '../util/bytes.js';
import type { MomentHolders } from './types.js';

/** The figures of a failed request that its explanation reads (the replay's OOM record has them). */
export interface OomFigures {
  event: number;
  id: string;
  tag: string | null;
  sizeBytes: number;
  roundedBytes: number;
  liveBytes: number;
  allocatedBytes: number;
  reservedBytes: number;
  capacityBytes: number | null;
  deviceFreeBytes: number | null;
  largestFreeBlockBytes: number;
  freeBlocks: number;
  /** `capacity`: no allocator could have served it; `fragmentation`: a perfect one would have. */
  kind: 'capacity' | 'fragmentation';
  /**
   * True for the real run's own failure, from the recorded history (`--allocator recorded`): it
   * happened before `event`, and `id` is empty (the trace has no request for it).
   */
  recorded?: true;
  /** The real run's failure only: the limit its verdict is made against (see RecordedFailure). */
  limitBytes?: number;
  /** The real run's failure only, when the device had room: the unrecorded cap was below this. */
  capBelowBytes?: number;
  /** Why the allocator failed, when it says so itself (in place of the verdict's usual reason). */
  reason?: string;
}


/**
 * One paragraph that says why a request failed: what was asked, what was live, what the allocator
 * held free and its largest free block, the verdict (capacity: no allocator can serve it at this
 * capacity; fragmentation: a perfect allocator would have), and the three largest holders.
 */
export function explainOom(o: OomFigures, allocatorName: string, holders?: MomentHolders): string {
  const parts: string[] = [];
  const rounded = o.roundedBytes !== o.sizeBytes && o.roundedBytes > 0 ? ` (${formatBytes(o.roundedBytes)} after ${allocatorName}'s rounding)` : '';
  const liveCount = holders ? ` in ${count(holders.liveCount)} allocation${holders.liveCount === 1 ? '' : 's'}` : '';
  if (o.recorded) {
    parts.push(`Before event ${count(o.event)} the real run's request for ${formatBytes(o.sizeBytes)} failed (recorded in the history) with ${formatBytes(o.liveBytes)} live${liveCount}.`);
  } else {
    const what = `alloc "${o.id}"${o.tag ? ` (${o.tag})` : ''}`;
    parts.push(`At event ${count(o.event)} the request of ${what} for ${formatBytes(o.sizeBytes)}${rounded} failed with ${formatBytes(o.liveBytes)} live${liveCount}.`);
  }
  const free = o.reservedBytes - o.allocatedBytes;
  const capped = o.capBelowBytes !== undefined;
  const device =
    o.deviceFreeBytes === null
      ? ''
      : `; the device had ${formatBytes(Math.max(0, o.deviceFreeBytes))} more` +
        (capped ? `, so a cap the snapshot does not record (such as a memory fraction) stopped the run below ${formatBytes(o.capBelowBytes as number)}` : '');
  parts.push(
    `${allocatorName} held ${formatBytes(o.reservedBytes)} from the device: ${formatBytes(o.allocatedBytes)} in blocks handed out and ` +
      (free > 0 ? `${formatBytes(free)} free in ${count(o.freeBlocks)} block${o.freeBlocks === 1 ? '' : 's'}, the largest ${formatBytes(o.largestFreeBlockBytes)}` : 'nothing free') +
      `${device}.`,
  );
  const need = formatBytes(o.liveBytes + o.sizeBytes);
  const limitBytes = o.recorded && o.limitBytes !== undefined ? o.limitBytes : o.capacityBytes;
  const limit =
    limitBytes === null ? 'no limit' : capped && limitBytes === o.reservedBytes ? `the ${formatBytes(limitBytes)} it held under that cap` : `the limit of ${formatBytes(limitBytes)}`;
  if (o.reason !== undefined) {
    parts.push(`Verdict: ${o.kind}. ${o.reason}`);
  } else if (o.kind === 'capacity') {
    parts.push(
      capped
        ? `Verdict: capacity, unless the cap was above ${need}. Live plus the request, ${need}, exceeds ${limit}: only holding less, or a higher cap, can serve it.`
        : `Verdict: capacity. Live plus the request, ${need}, exceeds ${limit}: no allocator can serve it at this capacity; only holding less, or a larger device, can.`,
    );
  } else {
    parts.push(
      `Verdict: fragmentation. Live plus the request, ${need}, fits in ${limit}: a perfect allocator would have served it, ` +
        `but ${allocatorName} had no free block for it and could not get one from the device${capped ? ' under the cap' : ''}; another allocator or setting can.`,
    );
  }
  if (holders && holders.top.length > 0) {
    const top = holders.top.slice(0, 3).map((h) => `${h.key} ${formatBytes(h.bytes)} (${formatPercent(h.share)})`);
    parts.push(`Largest holders of the live bytes: ${top.join('; ')}.`);
  }
  return parts.join(' ');
}

/**
 * Why an offline plan failed: its arena, laid out before the first event, exceeds the capacity. The
 * verdict reads the trace's peak live bytes: above the capacity, no plan or allocator fits the trace
 * (capacity); within it, the plan's gaps took the rest and a tighter plan can (fragmentation).
 */
export function explainPlanOom(planName: string, arenaBytes: number, capacityBytes: number, peakLiveBytes: number): string {
  const head = `${planName} lays out an arena of ${formatBytes(arenaBytes)} before the first event; the capacity is ${formatBytes(capacityBytes)}.`;
  return peakLiveBytes > capacityBytes
    ? `${head} Verdict: capacity. The trace's peak live, ${formatBytes(peakLiveBytes)}, exceeds the capacity: no plan or allocator can serve the trace at this capacity; only holding less, or a larger device, can.`
    : `${head} Verdict: fragmentation. The trace's peak live, ${formatBytes(peakLiveBytes)}, fits in the capacity: the rest is the plan's own waste (room that tensors with disjoint lifetimes could have shared); a tighter plan, or an allocator, can.`;
}
