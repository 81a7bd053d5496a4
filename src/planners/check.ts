import { recordId } from './records.js';
import { orderBy } from './time-index.js';
import type { ObjectsAssignment, UsageRecords } from './types.js';

/** The first problem found in an assignment, or null when it is valid. */
export type CheckResult = string | null;

/**
 * Checks an offsets assignment: every offset a non-negative multiple of the alignment, no record
 * past `totalBytes`, and no two records that conflict in time overlapping in memory (zero-sized
 * records occupy nothing). A sweep over records by first time keeps the ones still live: O(n log n +
 * Σ k) for k records live together.
 */
export function checkOffsets(r: UsageRecords, offsets: ArrayLike<number>, totalBytes: number, alignmentBytes = 1): CheckResult {
  if (offsets.length !== r.count) return `${offsets.length} offsets for ${r.count} records`;
  let top = 0;
  for (let i = 0; i < r.count; i++) {
    const o = offsets[i] as number;
    if (!Number.isSafeInteger(o) || o < 0) return `record ${recordId(r, i)}: offset ${o} is not a non-negative integer`;
    if (o % alignmentBytes !== 0) return `record ${recordId(r, i)}: offset ${o} is not a multiple of ${alignmentBytes}`;
    top = Math.max(top, o + (r.size[i] as number));
  }
  if (top > totalBytes) return `records reach ${top}, past the total of ${totalBytes}`;
  const order = orderBy(r.count, (i) => r.first[i] as number);
  let live: number[] = [];
  for (let k = 0; k < r.count; k++) {
    const i = order[k] as number;
    const first = r.first[i] as number;
    live = live.filter((j) => (r.last[j] as number) >= first);
    const lo = offsets[i] as number;
    const hi = lo + (r.size[i] as number);
    for (const j of live) {
      const lo2 = offsets[j] as number;
      const hi2 = lo2 + (r.size[j] as number);
      if (lo < hi && lo2 < hi2 && lo < hi2 && lo2 < hi) {
        return `records ${recordId(r, j)} and ${recordId(r, i)} are live together and overlap: [${lo2}, ${hi2}) and [${lo}, ${hi})`;
      }
    }
    live.push(i);
  }
  return null;
}

/**
 * Checks a shared-objects assignment: every record has an object at least its size, and no two
 * records that conflict in time share an object.
 */
export function checkObjects(r: UsageRecords, a: Pick<ObjectsAssignment, 'objectIds' | 'objectSizes'>): CheckResult {
  if (a.objectIds.length !== r.count) return `${a.objectIds.length} object ids for ${r.count} records`;
  const users: number[][] = a.objectSizes.map(() => []);
  for (let i = 0; i < r.count; i++) {
    const obj = a.objectIds[i] as number;
    const list = users[obj];
    if (!Number.isInteger(obj) || !list) return `record ${recordId(r, i)}: object ${obj} does not exist`;
    if ((a.objectSizes[obj] as number) < (r.size[i] as number)) {
      return `record ${recordId(r, i)} (${r.size[i]} bytes) is in object ${obj} of ${a.objectSizes[obj]} bytes`;
    }
    list.push(i);
  }
  for (let obj = 0; obj < users.length; obj++) {
    const list = (users[obj] as number[]).sort((x, y) => (r.first[x] as number) - (r.first[y] as number) || x - y);
    for (let k = 1; k < list.length; k++) {
      const prev = list[k - 1] as number;
      const cur = list[k] as number;
      if ((r.last[prev] as number) >= (r.first[cur] as number)) {
        return `records ${recordId(r, prev)} and ${recordId(r, cur)} are live together and share object ${obj}`;
      }
    }
  }
  return null;
}
