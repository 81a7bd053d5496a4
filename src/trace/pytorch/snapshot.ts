import { TraceError } from '../../errors.js';
import { field, isDict, type PickleDict, type PickleValue } from './pickle-value.js';
import type { StackTable } from './stacks.js';

/** A block of a segment at the time of the dump. */
export interface SnapshotBlock {
  address: number;
  sizeBytes: number;
  requestedBytes: number;
  /** `allocated` (active_allocated), `pending` (active_pending_free: freed, waiting for streams), `free` (inactive). */
  state: 'allocated' | 'pending' | 'free';
  frames: PickleValue | undefined;
}

/** A segment at the time of the dump (one contiguous mapped range, for expandable segments). */
export interface SnapshotSegment {
  device: number;
  address: number;
  totalBytes: number;
  allocatedBytes: number;
  activeBytes: number;
  stream: number;
  pool: 'small' | 'large';
  isExpandable: boolean;
  blocks: SnapshotBlock[];
}

/** Trace actions (TraceEntry::Action), as small integers for the columns. */
export const A_ALLOC = 0;
export const A_FREE_REQUESTED = 1;
export const A_FREE_COMPLETED = 2;
export const A_SEGMENT_ALLOC = 3;
export const A_SEGMENT_FREE = 4;
export const A_SEGMENT_MAP = 5;
export const A_SEGMENT_UNMAP = 6;
export const A_SNAPSHOT = 7;
export const A_OOM = 8;
export const A_OTHER = 9;

const ACTIONS = new Map<string, number>(Object.entries({
  alloc: A_ALLOC,
  free_requested: A_FREE_REQUESTED,
  free_completed: A_FREE_COMPLETED,
  segment_alloc: A_SEGMENT_ALLOC,
  segment_free: A_SEGMENT_FREE,
  segment_map: A_SEGMENT_MAP,
  segment_unmap: A_SEGMENT_UNMAP,
  snapshot: A_SNAPSHOT,
  oom: A_OOM,
}));

/** The code of an action name (A_OTHER for names this reader does not use). */
export function actionCode(name: string): number {
  return ACTIONS.get(name) ?? A_OTHER;
}

/** One device's trace as columns (entry k of `device_traces[d]` is row k). */
export interface DeviceTrace {
  length: number;
  action: Uint8Array;
  /** `addr`, or `device_free` for an oom entry. */
  addr: Float64Array;
  size: Float64Array;
  stream: Float64Array;
  /** `time_us`, NaN where absent. */
  time: Float64Array;
  /**
   * The stack (in `stacks`) of entry k's frames. A trace read directly (snapshot-unpickler.ts) has its
   * stacks asked for by one table only (which may write them over its frames lists).
   */
  stackOf(k: number, stacks: StackTable): number;
  /** Entries with actions this reader does not use (e.g. `user_defined` annotations), by action. */
  otherActions: Map<string, number>;
  /** How many entries are allocs. */
  allocs: number;
  /** Whether an entry's stream is not 0 (false: `stream` is all 0, and need not be read). */
  hasStreams: boolean;
}

/** A snapshot as read, before any conversion. */
export interface Snapshot {
  /** `segments` for the oldest form (a bare list of segments), `dict` otherwise. */
  shape: 'segments' | 'dict';
  segments: SnapshotSegment[];
  /**
   * `device_traces[d]` as written (converted to columns only for the device imported), or already
   * in columns where the pickle was read straight into them (snapshot-unpickler.ts).
   */
  rawTraces: (PickleValue[] | DeviceTrace)[];
  settings: PickleDict | undefined;
  annotations: PickleValue | undefined;
}

/** Reads values out of the unpickled (or JSON-parsed) structure with located errors. */
class Fields {
  constructor(readonly file: string) {}

  fail(where: string, message: string): never {
    throw new TraceError([{ file: this.file, entry: where, message }]);
  }

  int(d: PickleDict, key: string, where: string, fallback?: number): number {
    const v = field(d, key);
    if (v === undefined && fallback !== undefined) return fallback;
    return this.intValue(v, `${where}.${key}`);
  }

  /** An integer field that must be >= `min` (a size, an address, a stream). */
  atLeast(d: PickleDict, key: string, where: string, min: number, fallback?: number): number {
    const v = this.int(d, key, where, fallback);
    if (v < min) this.fail(`${where}.${key}`, min === 0 ? `must not be negative, got ${v}` : `must be at least ${min}, got ${v}`);
    return v;
  }

  intValue(v: PickleValue | undefined, where: string): number {
    if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
    if (typeof v === 'bigint') this.fail(where, `${v} is beyond 2^53, which memsim cannot hold exactly`);
    if (v === undefined) this.fail(where, 'missing');
    return this.fail(where, `expected an integer, got ${describe(v)}`);
  }

  dict(v: PickleValue | undefined, where: string): PickleDict {
    if (!isDict(v)) this.fail(where, `expected a dict, got ${describe(v)}`);
    return v;
  }

  list(v: PickleValue | undefined, where: string): PickleValue[] {
    if (!Array.isArray(v)) this.fail(where, `expected a list, got ${describe(v)}`);
    return v;
  }
}

function describe(v: PickleValue | undefined): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'None';
  if (Array.isArray(v)) return 'a list';
  if (v instanceof Uint8Array) return 'bytes';
  if (typeof v === 'object') return 'a dict';
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return String(v);
}

/** True when a value has the shape of a snapshot (a dict with segments/device_traces, or a list of segments). */
export function looksLikeSnapshot(root: PickleValue): boolean {
  if (isDict(root)) return field(root, 'segments') !== undefined || field(root, 'device_traces') !== undefined;
  if (Array.isArray(root)) return root.length === 0 || (isDict(root[0]) && field(root[0], 'total_size') !== undefined);
  return false;
}

/**
 * Checks the structure of a snapshot and reads its segments (memory_snapshot.cpp's layout).
 * `decoded`: the device traces when the pickle was read straight into columns (then the root's
 * `device_traces` is not read).
 */
export function parseSnapshot(root: PickleValue, file: string, decoded?: DeviceTrace[]): Snapshot {
  const f: Fields = new Fields(file);
  if (!looksLikeSnapshot(root)) {
    f.fail('top level', 'not a PyTorch memory snapshot (expected a dict with "segments" and "device_traces", or a list of segments)');
  }
  const isList = Array.isArray(root);
  const top = isList ? undefined : (root as PickleDict);
  const segs = isList ? (root as PickleValue[]) : f.list(field(top as PickleDict, 'segments') ?? [], 'segments');
  const segments = segs.map((s, i) => parseSegment(f, s, `segments[${i}]`));
  checkOverlaps(f, segments);
  const traces = decoded ?? (top ? f.list(field(top, 'device_traces') ?? [], 'device_traces') : []);
  const rawTraces = decoded ?? traces.map((t, d) => f.list(t as PickleValue, `device_traces[${d}]`));
  const settings = top ? field(top, 'allocator_settings') : undefined;
  return {
    shape: isList ? 'segments' : 'dict',
    segments,
    rawTraces,
    settings: settings === undefined ? undefined : f.dict(settings, 'allocator_settings'),
    annotations: top ? field(top, 'external_annotations') : undefined,
  };
}

const hex = (n: number): string => `0x${n.toString(16)}`;

/**
 * A segment as memory_snapshot.cpp writes it, checked as strictly as a CSV row: sizes positive,
 * blocks tiling the segment in address order, allocated and active sizes adding up.
 */
function parseSegment(f: Fields, v: PickleValue, where: string): SnapshotSegment {
  const s = f.dict(v, where);
  const address = f.atLeast(s, 'address', where, 0);
  const totalBytes = f.atLeast(s, 'total_size', where, 1);
  const type = field(s, 'segment_type');
  const blocksRaw = f.list(field(s, 'blocks') ?? [], `${where}.blocks`);
  const blocks: SnapshotBlock[] = [];
  // Block addresses follow from the segment's address and the sizes (older files omit them).
  let at = address;
  let allocated = 0;
  let active = 0;
  blocksRaw.forEach((bv, i) => {
    const w = `${where}.blocks[${i}]`;
    const b = f.dict(bv, w);
    const sizeBytes = f.atLeast(b, 'size', w, 1);
    const addr = f.atLeast(b, 'address', w, 0, at);
    if (addr !== at) {
      f.fail(`${w}.address`, `${hex(addr)} is not where the block before it ends (${hex(at)}): blocks must tile their segment in address order`);
    }
    const st = field(b, 'state');
    const state = st === 'active_allocated' ? 'allocated' : st === 'active_pending_free' ? 'pending' : st === 'inactive' ? 'free' : undefined;
    if (!state) f.fail(`${w}.state`, `expected active_allocated, active_pending_free or inactive, got ${describe(st)}`);
    const requestedBytes = f.atLeast(b, 'requested_size', w, 0, sizeBytes);
    if (state !== 'free' && requestedBytes > sizeBytes) f.fail(`${w}.requested_size`, `${requestedBytes} is more than the block's size ${sizeBytes}`);
    if (state === 'allocated') allocated += sizeBytes;
    if (state !== 'free') active += sizeBytes;
    blocks.push({ address: addr, sizeBytes, requestedBytes, state, frames: field(b, 'frames') });
    at = addr + sizeBytes;
  });
  const allocatedBytes = f.atLeast(s, 'allocated_size', where, 0, 0);
  const activeBytes = f.atLeast(s, 'active_size', where, 0, 0);
  if (blocks.length > 0) {
    if (at !== address + totalBytes) f.fail(`${where}.blocks`, `the blocks cover ${at - address} bytes, the segment's total_size is ${totalBytes}`);
    if (field(s, 'allocated_size') !== undefined && allocatedBytes !== allocated) {
      f.fail(`${where}.allocated_size`, `${allocatedBytes} is not the ${allocated} bytes of the segment's active_allocated blocks`);
    }
    if (field(s, 'active_size') !== undefined && activeBytes !== active) {
      f.fail(`${where}.active_size`, `${activeBytes} is not the ${active} bytes of the segment's active blocks`);
    }
  } else if (allocatedBytes > totalBytes || activeBytes > totalBytes) {
    f.fail(`${where}.${allocatedBytes > totalBytes ? 'allocated_size' : 'active_size'}`, `${Math.max(allocatedBytes, activeBytes)} is more than the segment's total_size ${totalBytes}`);
  }
  const stream = f.atLeast(s, 'stream', where, 0, 0);
  return {
    device: f.atLeast(s, 'device', where, 0, 0),
    address,
    totalBytes,
    allocatedBytes,
    activeBytes,
    stream,
    // Older files have no segment_type: a small-pool segment is one 2 MiB buffer.
    pool: type === 'small' || (type === undefined && totalBytes <= 2 * 1024 * 1024) ? 'small' : 'large',
    isExpandable: field(s, 'is_expandable') === true,
    blocks,
  };
}

/** Segments of one device must not overlap: each names the one it runs into. */
function checkOverlaps(f: Fields, segments: SnapshotSegment[]): void {
  const order = segments.map((_, i) => i).sort((x, y) => {
    const a = segments[x] as SnapshotSegment;
    const b = segments[y] as SnapshotSegment;
    return a.device - b.device || a.address - b.address || x - y;
  });
  for (let k = 1; k < order.length; k++) {
    const i = order[k - 1] as number;
    const j = order[k] as number;
    const a = segments[i] as SnapshotSegment;
    const b = segments[j] as SnapshotSegment;
    if (a.device === b.device && b.address < a.address + a.totalBytes) {
      const [first, second] = i < j ? [i, j] : [j, i];
      const [sa, sb] = i < j ? [a, b] : [b, a];
      f.fail(
        `segments[${second}]`,
        `[${hex(sb.address)}, ${hex(sb.address + sb.totalBytes)}) overlaps segments[${first}] [${hex(sa.address)}, ${hex(sa.address + sa.totalBytes)}) on device ${a.device}`,
      );
    }
  }
}

/** Converts `device_traces[d]` to columns, checking each entry. */
export function traceColumns(snap: Snapshot, device: number, file: string): DeviceTrace {
  const f: Fields = new Fields(file);
  const given = snap.rawTraces[device] ?? [];
  if (!Array.isArray(given)) return given;
  const raw: PickleValue[] = given;
  const n = raw.length;
  const frames = new Array<PickleValue | undefined>(n);
  const t: DeviceTrace = {
    length: n,
    action: new Uint8Array(n),
    addr: new Float64Array(n),
    size: new Float64Array(n),
    stream: new Float64Array(n),
    time: new Float64Array(n),
    stackOf: (k, stacks) => stacks.of(frames[k]),
    otherActions: new Map(),
    allocs: 0,
    hasStreams: false,
  };
  for (let k = 0; k < n; k++) {
    const where = `device_traces[${device}][${k}]`;
    const e = f.dict(raw[k], where);
    const name = field(e, 'action');
    if (typeof name !== 'string') f.fail(`${where}.action`, `expected a string, got ${describe(name)}`);
    const a = ACTIONS.get(name) ?? A_OTHER;
    t.action[k] = a;
    if (a === A_ALLOC) t.allocs++;
    if (a === A_OTHER || a === A_SNAPSHOT) {
      if (a === A_OTHER) t.otherActions.set(name, (t.otherActions.get(name) ?? 0) + 1);
      t.time[k] = NaN;
      continue;
    }
    t.addr[k] = a === A_OOM ? f.atLeast(e, 'device_free', where, 0, 0) : f.atLeast(e, 'addr', where, 0);
    // Segment changes are of whole segments or pages; an allocation or a free may be of 0 bytes.
    t.size[k] = f.atLeast(e, 'size', where, a >= A_SEGMENT_ALLOC && a <= A_SEGMENT_UNMAP ? 1 : 0);
    t.stream[k] = f.atLeast(e, 'stream', where, 0, 0);
    if (t.stream[k] !== 0) t.hasStreams = true;
    const time = field(e, 'time_us');
    t.time[k] = typeof time === 'number' ? time : NaN;
    frames[k] = field(e, 'frames');
  }
  return t;
}
