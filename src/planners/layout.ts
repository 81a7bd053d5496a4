import { alignUp } from './records.js';
import type { Assignment, ObjectsAssignment } from './types.js';

/** Where each object of an objects assignment starts when they are laid out in one arena. */
export interface ObjectLayout {
  /** Offset of each record (its object's base). */
  offsets: Float64Array;
  /** End of the last object: the arena this layout needs. */
  totalBytes: number;
}

/**
 * TFLite's ObjectsToOffsets (memory_management.cc): objects back to back in id order, every record
 * at its object's base. TFLite ignores alignment here; with `alignmentBytes` > 1 each base is
 * rounded up so that offsets are aligned as asked (the total grows by the padding). With alignment 1
 * the total is the sum of the object sizes.
 */
export function objectsToOffsets(a: ObjectsAssignment, alignmentBytes = 1): ObjectLayout {
  const base = new Float64Array(a.objectSizes.length);
  let end = 0;
  for (let o = 0; o < a.objectSizes.length; o++) {
    const at = alignUp(end, alignmentBytes);
    base[o] = at;
    end = at + (a.objectSizes[o] as number);
  }
  const offsets = new Float64Array(a.objectIds.length);
  for (let i = 0; i < a.objectIds.length; i++) offsets[i] = base[a.objectIds[i] as number] as number;
  return { offsets, totalBytes: end };
}

/** The total bytes of an assignment: the arena an offsets plan needs, or the laid-out objects. */
export function assignmentTotal(a: Assignment, alignmentBytes = 1): number {
  return a.kind === 'offsets' ? a.totalBytes : objectsToOffsets(a, alignmentBytes).totalBytes;
}
