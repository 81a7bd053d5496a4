/**
 * DeviceStats of the caching allocator: each StatArray has an aggregate and a per-pool value, each
 * with its current value and its peak (increase_stat / decrease_stat).
 */

export const ALLOCATION = 0;
export const SEGMENT = 1;
export const ACTIVE = 2;
export const INACTIVE_SPLIT = 3;
export const ALLOCATED_BYTES = 4;
export const RESERVED_BYTES = 5;
export const ACTIVE_BYTES = 6;
export const INACTIVE_SPLIT_BYTES = 7;
export const REQUESTED_BYTES = 8;

const NAMES = [
  'allocation',
  'segment',
  'active',
  'inactive_split',
  'allocated_bytes',
  'reserved_bytes',
  'active_bytes',
  'inactive_split_bytes',
  'requested_bytes',
] as const;

/**
 * Current and peak values, per stat: [aggregate, small pool, large pool]. `active` and
 * `active_bytes` are not kept apart: a block stays active after its free only while other streams
 * use it (record_stream), which a trace does not record, so they equal `allocation` and
 * `allocated_bytes`.
 */
export class DeviceStats {
  /** Index stat*3 + (0 aggregate, 1 small pool, 2 large pool). */
  readonly current = new Float64Array(NAMES.length * 3);
  readonly peak = new Float64Array(NAMES.length * 3);
  numAllocRetries = 0;
  numOoms = 0;
  numSyncAllStreams = 0;
  numDeviceAlloc = 0;
  numDeviceFree = 0;
  oversizeAllocations = 0;
  oversizeAllocationsPeak = 0;
  oversizeSegments = 0;
  oversizeSegmentsPeak = 0;

  /** increase_stat on the aggregate and on the block's pool. */
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

  /** decrease_stat on the aggregate and on the block's pool. */
  dec(stat: number, isSmall: boolean, amount: number): void {
    const a = stat * 3;
    this.current[a] = (this.current[a] as number) - amount;
    const p = a + (isSmall ? 1 : 2);
    this.current[p] = (this.current[p] as number) - amount;
  }

  /** A block handed out (alloc_found_block): allocation, allocated_bytes and requested_bytes. */
  allocated(isSmall: boolean, bytes: number, requested: number): void {
    const cur = this.current;
    const pk = this.peak;
    const p = isSmall ? 1 : 2;
    let k = ALLOCATION * 3;
    let v = (cur[k] as number) + 1;
    cur[k] = v;
    if (v > (pk[k] as number)) pk[k] = v;
    v = (cur[k + p] as number) + 1;
    cur[k + p] = v;
    if (v > (pk[k + p] as number)) pk[k + p] = v;
    k = ALLOCATED_BYTES * 3;
    v = (cur[k] as number) + bytes;
    cur[k] = v;
    if (v > (pk[k] as number)) pk[k] = v;
    v = (cur[k + p] as number) + bytes;
    cur[k + p] = v;
    if (v > (pk[k + p] as number)) pk[k + p] = v;
    k = REQUESTED_BYTES * 3;
    v = (cur[k] as number) + requested;
    cur[k] = v;
    if (v > (pk[k] as number)) pk[k] = v;
    v = (cur[k + p] as number) + requested;
    cur[k + p] = v;
    if (v > (pk[k + p] as number)) pk[k + p] = v;
  }

  /** A block given back (free and free_block): allocation, allocated_bytes and requested_bytes. */
  released(isSmall: boolean, bytes: number, requested: number): void {
    const cur = this.current;
    const p = isSmall ? 1 : 2;
    let k = ALLOCATION * 3;
    cur[k] = (cur[k] as number) - 1;
    cur[k + p] = (cur[k + p] as number) - 1;
    k = ALLOCATED_BYTES * 3;
    cur[k] = (cur[k] as number) - bytes;
    cur[k + p] = (cur[k + p] as number) - bytes;
    k = REQUESTED_BYTES * 3;
    cur[k] = (cur[k] as number) - requested;
    cur[k + p] = (cur[k + p] as number) - requested;
  }

  /** The aggregate current value of a stat. */
  get(stat: number): number {
    return this.current[stat * 3] as number;
  }

  /** PyTorch's names: `{allocated_bytes: {current, peak, small_pool: …, large_pool: …}, …}`. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    NAMES.forEach((name, stat) => {
      const s = stat === ACTIVE ? ALLOCATION : stat === ACTIVE_BYTES ? ALLOCATED_BYTES : stat;
      const at = (k: number): { current: number; peak: number } => ({ current: this.current[s * 3 + k] as number, peak: this.peak[s * 3 + k] as number });
      out[name] = { ...at(0), small_pool: at(1), large_pool: at(2) };
    });
    return out;
  }
}
