/**
 * Types shared by the offline planners: usage records (what a planner sees), the two kinds of
 * assignment (shared objects, or offsets in one arena), and the planner interface.
 *
 * Mirrors `tensorflow/lite/delegates/gpu/common/memory_management/types.h`: TensorUsageRecord
 * (size, first_task, last_task: a closed interval), ObjectsAssignment (object_ids + object_sizes) and
 * OffsetsAssignment (offsets + total_size).
 */

import type { PlanLimits } from './limits.js';

/** Where a set of records came from. */
export interface RecordsSource {
  /** The file as the user named it (`<records>` for records built in memory). */
  path: string;
  /** `minimalloc-csv`, `records-csv`, or `trace:<reader format>` for a memsim trace. */
  format: string;
  /** For a binary trace (`trace:mst`): the format it was read from before it was written so. */
  sourceFormat?: string;
}

/**
 * Usage records, columnar: record i lives over the closed interval of logical time
 * `[first[i], last[i]]` and needs `size[i]` bytes. Two records conflict when their intervals
 * intersect.
 */
export interface UsageRecords {
  count: number;
  size: Float64Array;
  first: Float64Array;
  last: Float64Array;
  /** The id of each record as the input names it (`ids.get(i)`), or null when records have no ids. */
  ids: RecordIds | null;
  source: RecordsSource;
  /** Things the importer wants the user to know (ignored columns and the like). */
  notes: string[];
}

/** Ids by record index; a trace's IdTable is one (ids are made only when asked for). */
export interface RecordIds {
  get(i: number): string;
  /**
   * Optional, together: the id of record i written as UTF-8 into `out` at `pos` (room for
   * `bytesOf(i)` bytes), returning the position after it, and that room: ids written without a
   * string made (IdTable has them).
   */
  writeId?(i: number, out: Uint8Array, pos: number): number;
  bytesOf?(i: number): number;
  /**
   * Optional: while every id is a plain decimal number, the ids as numbers, indexed by record (to
   * read, not to change), else null. IdTable has it.
   */
  plainNumbers?(): ArrayLike<number> | null;
}

/** `objects`: records share whole objects; `offsets`: records get offsets in one arena. */
export type PlanKind = 'objects' | 'offsets';

/** A shared-objects assignment: record i uses object `objectIds[i]` of size `objectSizes[id]`. */
export interface ObjectsAssignment {
  kind: 'objects';
  objectIds: Int32Array;
  objectSizes: number[];
  /** What the report should say about how this plan was made (e.g. a fallback). */
  notes?: string[];
}

/** An offsets assignment: record i lives at `[offsets[i], offsets[i] + size[i])`. */
export interface OffsetsAssignment {
  kind: 'offsets';
  offsets: Float64Array;
  /** End of the highest record: the arena the plan needs. */
  totalBytes: number;
  /** What the report should say about how this plan was made. */
  notes?: string[];
}

/** What a planner returns. */
export type Assignment = ObjectsAssignment | OffsetsAssignment;

/** Options every planner receives. */
export interface PlanOptions {
  /** Offsets are multiples of this (TFLite's base_addr_align_bytes, XLA's alignment). Default 1. */
  alignmentBytes: number;
  /** The run's deadline and memory budget (default: none). */
  limits?: PlanLimits;
}

/** A planner: one strategy producing one kind of assignment. */
export interface PlannerDefinition {
  /** The strategy name users type (`greedy-by-size`); two planners may share it with different kinds. */
  name: string;
  kind: PlanKind;
  description: string;
  /** The real function it mirrors, for help and reports. */
  source: string;
  /**
   * Largest number of records it accepts: above it the planner is skipped (its cost grows faster than
   * n log n). Undefined: no limit.
   */
  maxRecords?: number;
  /**
   * About how many bytes it allocates for `records` (its own structures and its assignment; the
   * records themselves not included), checked against the run's memory budget before it starts.
   * Undefined: DEFAULT_BYTES_PER_RECORD per record.
   */
  memoryBytes?(records: UsageRecords): number;
  /** Whether `best` includes it among the candidates it compares. */
  inBest: boolean;
  plan(records: UsageRecords, options: PlanOptions): Assignment;
}
