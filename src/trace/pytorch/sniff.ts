/**
 * How a PyTorch snapshot is recognised, apart from how it is read: sniffing runs for every input,
 * the reader's code loads only for snapshots.
 */

/** JSON starts with `{` or `[` (after a byte-order mark and blanks); a pickle never does with protocol 2+. */
export function looksLikeJson(b: Buffer): boolean {
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i++;
  return b[i] === 0x7b || b[i] === 0x5b;
}

/** A pickle of protocol 2 to 5 starts with PROTO and its number. */
export function isPickle(head: Buffer): boolean {
  return head[0] === 0x80 && (head[1] ?? 0) >= 2 && (head[1] ?? 0) <= 5;
}

const SNAPSHOT_KEYS = /^\s*\{\s*"(?:segments|device_traces|allocator_settings|external_annotations)"\s*:/;
const SEGMENT_KEYS = /^\s*\[\s*\{\s*"(?:device|address|total_size|allocated_size|active_size|requested_size|stream|segment_type|segment_pool_id|is_expandable|frames|blocks)"\s*:/;

/** True for the JSON form of a snapshot: its first key is a snapshot key, or it is a list of segments. */
function isSnapshotJson(head: Buffer): boolean {
  let i = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3;
  const text = head.subarray(i, i + 4096).toString('utf8');
  if (SNAPSHOT_KEYS.test(text)) return true;
  return SEGMENT_KEYS.test(text) && head.includes('"total_size"');
}

/** The reader's name and description. */
export const SNAPSHOT_READER_INFO = {
  format: 'pytorch-snapshot',
  description: 'PyTorch memory snapshot (torch.cuda.memory._dump_snapshot): pickle, or the same structure as JSON',
} as const;

export const SNAPSHOT_EXTENSIONS: readonly string[] = ['.pickle', '.pkl'];

/** 3 for a pickle of protocol 2 to 5 or a snapshot's JSON, else 0 (see TraceReader.sniff). */
export function sniffSnapshot(head: Buffer): number {
  return isPickle(head) || isSnapshotJson(head) ? 3 : 0;
}
