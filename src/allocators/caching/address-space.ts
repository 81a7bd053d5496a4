/**
 * How much address space an expandable segment reserves, and the device total a recorded history
 * implies for it. PyTorch's ExpandableSegment reserves `totalGlobalMem + totalGlobalMem / 8` bytes,
 * in whole pages (2 MiB in the small pool, 20 MiB in the large pool), and the driver hands out one
 * reservation after another in the process's address space, so a recorded reservation reaches at
 * most to the next recorded segment or reservation. The largest device total whose reservations all
 * fit there is what a replay of that history must assume: a larger one (memsim's default for an
 * unlimited device, or a nominal `--capacity 80GiB` where the card reports 79.15 GiB) makes a
 * reservation cover the place where the real allocator put the next one.
 */
import type { RecordedHistory, RecordedSegment } from '../../trace/model.js';
import { kLargeBuffer, kSmallBuffer } from './sizes.js';

/** Device memory assumed for the reservation when nothing says more (an unlimited device). */
export const UNLIMITED_DEVICE_BYTES = 2 ** 40;

/** Address space of one expandable segment for a device of `totalBytes`: `total + total / 8`, in whole pages. */
export function expandableSpaceBytes(totalBytes: number, pageBytes: number): number {
  return Math.ceil((totalBytes + Math.floor(totalBytes / 8)) / pageBytes) * pageBytes;
}

/** The device total a recorded history bounds, and the reservation that bounds it most. */
export interface InferredTotal {
  totalBytes: number;
  /** The reservation whose room is the tightest: its first address, its page, and what follows it. */
  base: number;
  pageBytes: number;
  nextAddress: number;
}

interface Group {
  base: number;
  top: number;
  /** The page of an expandable group; 0 for a plain (cudaMalloc) segment. */
  pageBytes: number;
}

/** The largest `t` with `t + floor(t / 8) <= limit`. */
function largestTotalWithin(limit: number): number {
  let t = Math.floor((limit * 8) / 9) + 8;
  while (t > 0 && t + Math.floor(t / 8) > limit) t--;
  return t;
}

/**
 * The largest device total whose expandable-segment reservations all fit between the recorded
 * segments, or null when the history bounds none (no expandable segment has anything after it).
 * Groups: one per device, stream and pool of expandable segments (from their lowest recorded
 * address), one per plain segment.
 */
export function inferDeviceTotal(rec: RecordedHistory): InferredTotal | null {
  const groups = new Map<string, Group>();
  let plain = 0;
  const add = (device: number, s: { address: number; sizeBytes: number; stream: number; pool?: string | undefined; isExpandable?: boolean | undefined }): void => {
    const end = s.address + s.sizeBytes;
    if (!s.isExpandable) {
      groups.set(`plain ${plain++}`, { base: s.address, top: end, pageBytes: 0 });
      return;
    }
    const small = s.pool === undefined ? s.sizeBytes % kLargeBuffer !== 0 : s.pool === 'small';
    const key = `${device}/${s.stream}/${small ? 's' : 'l'}`;
    const g = groups.get(key);
    if (!g) groups.set(key, { base: s.address, top: end, pageBytes: small ? kSmallBuffer : kLargeBuffer });
    else {
      g.base = Math.min(g.base, s.address);
      g.top = Math.max(g.top, end);
    }
  };
  const own = (s: RecordedSegment): void => add(-1, s);
  rec.initialSegments.forEach(own);
  (rec.finalSegments ?? []).forEach(own);
  for (const e of rec.segmentEvents) {
    if (e.action === 'alloc') add(-1, { ...e, isExpandable: false });
    else if (e.action === 'map') add(-1, { ...e, isExpandable: true });
  }
  for (const s of rec.otherSegments ?? []) add(s.device ?? -2, s);

  const all = [...groups.values()].sort((x, y) => x.base - y.base);
  let best: InferredTotal | null = null;
  let bestLimit = Infinity;
  for (let k = 0; k < all.length; k++) {
    const g = all[k] as Group;
    const next = all[k + 1];
    if (g.pageBytes === 0 || !next) continue;
    // Another segment inside the recorded extent: not one reservation; it bounds nothing.
    if (next.base < g.top) continue;
    const limit = Math.floor((next.base - g.base) / g.pageBytes) * g.pageBytes;
    if (limit < bestLimit) {
      bestLimit = limit;
      best = { totalBytes: largestTotalWithin(limit), base: g.base, pageBytes: g.pageBytes, nextAddress: next.base };
    }
  }
  return best;
}
