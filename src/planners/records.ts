import { OP_ALLOC, type Trace } from '../trace/model.js';
import type { RecordIds, UsageRecords } from './types.js';

/**
 * Usage records from a memsim trace, one per allocation, in allocation order. Logical time advances
 * at each alloc event: allocation k is made at time k (its `first`), and its `last` is the time of
 * the last alloc before its free, so that a block freed before another is allocated never conflicts
 * with it. Allocations never freed live to the end (the time of the trace's last alloc).
 */
export function recordsFromTrace(trace: Trace): UsageRecords {
  const n = trace.allocCount;
  const size = new Float64Array(n);
  const first = new Float64Array(n);
  const last = new Float64Array(n).fill(n - 1);
  let allocsSoFar = 0;
  for (let e = 0; e < trace.length; e++) {
    const a = trace.alloc[e] as number;
    if (trace.op[e] === OP_ALLOC) {
      size[a] = trace.size[e] as number;
      first[a] = a;
      allocsSoFar++;
    } else {
      // The free happens after `allocsSoFar` allocs: the record's last time is that of the latest one.
      last[a] = allocsSoFar - 1;
    }
  }
  return { count: n, size, first, last, ids: trace.ids, source: { path: trace.path, format: `trace:${trace.format}`, ...(trace.sourceFormat !== undefined ? { sourceFormat: trace.sourceFormat } : {}) }, notes: [] };
}

/** A record as plain data (for tests and library callers). */
export interface RecordObject {
  size: number;
  first: number;
  last: number;
  id?: string;
}

/**
 * Usage records from plain `(size, first, last)` objects (closed intervals), as TFLite's tests
 * write them. Throws a RangeError on a malformed record (this is for callers, not for user files:
 * files go through the validating readers).
 */
export function makeRecords(records: readonly RecordObject[], path = '<records>'): UsageRecords {
  const n = records.length;
  const size = new Float64Array(n);
  const first = new Float64Array(n);
  const last = new Float64Array(n);
  const hasIds = records.some((r) => r.id !== undefined);
  records.forEach((r, i) => {
    if (!Number.isSafeInteger(r.size) || r.size < 0) throw new RangeError(`record ${i}: size must be a non-negative integer`);
    if (!Number.isSafeInteger(r.first) || !Number.isSafeInteger(r.last) || r.last < r.first) {
      throw new RangeError(`record ${i}: first and last must be integers with first <= last`);
    }
    size[i] = r.size;
    first[i] = r.first;
    last[i] = r.last;
  });
  return {
    count: n,
    size,
    first,
    last,
    ids: hasIds ? idList(records.map((r, i) => r.id ?? String(i))) : null,
    source: { path, format: 'records' },
    notes: [],
  };
}

/** Whether records i and j are live at a common time (their closed intervals intersect). */
export function conflict(r: UsageRecords, i: number, j: number): boolean {
  return (r.first[i] as number) <= (r.last[j] as number) && (r.first[j] as number) <= (r.last[i] as number);
}

/** The id of record i as the user knows it. */
export function recordId(r: UsageRecords, i: number): string {
  return r.ids ? r.ids.get(i) : String(i);
}

/** Ids held in an array. */
export function idList(ids: readonly string[]): RecordIds {
  return { get: (i) => ids[i] as string };
}

/** Rounds `n` up to a multiple of `alignment` (TFLite's AlignByN, XLA's RoundUpToNearest). */
export function alignUp(n: number, alignment: number): number {
  if (alignment <= 1) return n;
  return Math.ceil(n / alignment) * alignment;
}
