/**
 * DeviceStats of the caching allocator: each stat has an aggregate and a per-pool value, each with
 * its current value and its peak (increase_stat / decrease_stat).
 *
 * The stats that change on every allocation and free are plain number fields (typed-array slots
 * cost several times more per update on this path); segment and reserved-byte stats, which change
 * only with device calls, use the generic `inc`/`dec`. `active` and `active_bytes` are not kept
 * apart: a block stays active after its free only while other streams use it (record_stream),
 * which a trace does not record, so they equal `allocation` and `allocated_bytes`.
 */

export const SEGMENT = 1;
export const RESERVED_BYTES = 5;

/** Current and peak of a stat, for the aggregate and each pool. */
interface StatValue {
  current: number;
  peak: number;
  small_pool: { current: number; peak: number };
  large_pool: { current: number; peak: number };
}

/** The counters of one device, as PyTorch names them. */
export class DeviceStats {
  // allocation (count), allocated_bytes, requested_bytes, inactive_split (count) and
  // inactive_split_bytes: Aggregate, Small and Large pool, each with its Peak.
  allocA = 0;
  allocAP = 0;
  allocS = 0;
  allocSP = 0;
  allocL = 0;
  allocLP = 0;
  bytesA = 0;
  bytesAP = 0;
  bytesS = 0;
  bytesSP = 0;
  bytesL = 0;
  bytesLP = 0;
  reqA = 0;
  reqAP = 0;
  reqS = 0;
  reqSP = 0;
  reqL = 0;
  reqLP = 0;
  splitA = 0;
  splitAP = 0;
  splitS = 0;
  splitSP = 0;
  splitL = 0;
  splitLP = 0;
  splitBytesA = 0;
  splitBytesAP = 0;
  splitBytesS = 0;
  splitBytesSP = 0;
  splitBytesL = 0;
  splitBytesLP = 0;
  /** segment and reserved_bytes: index stat*3 + (0 aggregate, 1 small pool, 2 large pool). */
  readonly current = new Float64Array(6 * 3);
  readonly peak = new Float64Array(6 * 3);
  numAllocRetries = 0;
  numOoms = 0;
  numSyncAllStreams = 0;
  numDeviceAlloc = 0;
  numDeviceFree = 0;
  oversizeAllocations = 0;
  oversizeAllocationsPeak = 0;
  oversizeSegments = 0;
  oversizeSegmentsPeak = 0;

  /** A block handed out (alloc_found_block): allocation, allocated_bytes and requested_bytes. */
  allocated(isSmall: boolean, bytes: number, requested: number): void {
    if (++this.allocA > this.allocAP) this.allocAP = this.allocA;
    if ((this.bytesA += bytes) > this.bytesAP) this.bytesAP = this.bytesA;
    if ((this.reqA += requested) > this.reqAP) this.reqAP = this.reqA;
    if (isSmall) {
      if (++this.allocS > this.allocSP) this.allocSP = this.allocS;
      if ((this.bytesS += bytes) > this.bytesSP) this.bytesSP = this.bytesS;
      if ((this.reqS += requested) > this.reqSP) this.reqSP = this.reqS;
    } else {
      if (++this.allocL > this.allocLP) this.allocLP = this.allocL;
      if ((this.bytesL += bytes) > this.bytesLP) this.bytesLP = this.bytesL;
      if ((this.reqL += requested) > this.reqLP) this.reqLP = this.reqL;
    }
  }

  /** A block given back (free and free_block): allocation, allocated_bytes and requested_bytes. */
  released(isSmall: boolean, bytes: number, requested: number): void {
    this.allocA--;
    this.bytesA -= bytes;
    this.reqA -= requested;
    if (isSmall) {
      this.allocS--;
      this.bytesS -= bytes;
      this.reqS -= requested;
    } else {
      this.allocL--;
      this.bytesL -= bytes;
      this.reqL -= requested;
    }
  }

  /** inactive_split and inactive_split_bytes change by (blocks, bytes), either sign. */
  inactiveSplit(isSmall: boolean, blocks: number, bytes: number): void {
    if ((this.splitA += blocks) > this.splitAP) this.splitAP = this.splitA;
    if ((this.splitBytesA += bytes) > this.splitBytesAP) this.splitBytesAP = this.splitBytesA;
    if (isSmall) {
      if ((this.splitS += blocks) > this.splitSP) this.splitSP = this.splitS;
      if ((this.splitBytesS += bytes) > this.splitBytesSP) this.splitBytesSP = this.splitBytesS;
    } else {
      if ((this.splitL += blocks) > this.splitLP) this.splitLP = this.splitL;
      if ((this.splitBytesL += bytes) > this.splitBytesLP) this.splitBytesLP = this.splitBytesL;
    }
  }

  /** increase_stat of `segment` or `reserved_bytes`, on the aggregate and on the block's pool. */
  inc(stat: number, isSmall: boolean, amount: number): void {
    const a = stat * 3;
    const p = a + (isSmall ? 1 : 2);
    const cur = this.current;
    const pk = this.peak;
    const ca = (cur[a] as number) + amount;
    cur[a] = ca;
    if (ca > (pk[a] as number)) pk[a] = ca;
    const cp = (cur[p] as number) + amount;
    cur[p] = cp;
    if (cp > (pk[p] as number)) pk[p] = cp;
  }

  /** decrease_stat of `segment` or `reserved_bytes`. */
  dec(stat: number, isSmall: boolean, amount: number): void {
    const a = stat * 3;
    this.current[a] = (this.current[a] as number) - amount;
    const p = a + (isSmall ? 1 : 2);
    this.current[p] = (this.current[p] as number) - amount;
  }

  /** The aggregate current value of `segment` or `reserved_bytes`. */
  get(stat: number): number {
    return this.current[stat * 3] as number;
  }

  /** PyTorch's names: `{allocated_bytes: {current, peak, small_pool: …, large_pool: …}, …}`. */
  toJSON(): Record<string, StatValue> {
    const v = (c: number, p: number, cs: number, ps: number, cl: number, pl: number): StatValue => ({
      current: c,
      peak: p,
      small_pool: { current: cs, peak: ps },
      large_pool: { current: cl, peak: pl },
    });
    const arr = (stat: number): StatValue => {
      const c = (k: number): number => this.current[stat * 3 + k] as number;
      const p = (k: number): number => this.peak[stat * 3 + k] as number;
      return v(c(0), p(0), c(1), p(1), c(2), p(2));
    };
    const allocation = v(this.allocA, this.allocAP, this.allocS, this.allocSP, this.allocL, this.allocLP);
    const allocatedBytes = v(this.bytesA, this.bytesAP, this.bytesS, this.bytesSP, this.bytesL, this.bytesLP);
    return {
      allocation,
      segment: arr(SEGMENT),
      active: allocation,
      inactive_split: v(this.splitA, this.splitAP, this.splitS, this.splitSP, this.splitL, this.splitLP),
      allocated_bytes: allocatedBytes,
      reserved_bytes: arr(RESERVED_BYTES),
      active_bytes: allocatedBytes,
      inactive_split_bytes: v(this.splitBytesA, this.splitBytesAP, this.splitBytesS, this.splitBytesSP, this.splitBytesL, this.splitBytesLP),
      requested_bytes: v(this.reqA, this.reqAP, this.reqS, this.reqSP, this.reqL, this.reqLP),
    };
  }
}

/**
 * The allocator's own figures for a report: PyTorch's memory_stats (`torch.cuda.memory_stats`) and
 * the counters of its OOM and device paths, with its effective settings.
 */
export function statsReport(s: DeviceStats, maxSplitBytes: number, allocatorSettings: Record<string, unknown>): Record<string, unknown> {
  const cur = (stat: number): number => s.current[stat * 3] as number;
  return {
    allocated_bytes: s.bytesA,
    reserved_bytes: cur(RESERVED_BYTES),
    active_bytes: s.bytesA,
    inactive_split_bytes: s.splitBytesA,
    requested_bytes: s.reqA,
    segments: cur(SEGMENT),
    num_alloc_retries: s.numAllocRetries,
    num_ooms: s.numOoms,
    num_device_alloc: s.numDeviceAlloc,
    num_device_free: s.numDeviceFree,
    num_sync_all_streams: s.numSyncAllStreams,
    oversize_allocations: { current: s.oversizeAllocations, peak: s.oversizeAllocationsPeak },
    oversize_segments: { current: s.oversizeSegments, peak: s.oversizeSegmentsPeak },
    max_split_size: Number.isFinite(maxSplitBytes) ? maxSplitBytes : -1,
    memory_stats: s.toJSON(),
    allocator_settings: allocatorSettings,
  };
}
