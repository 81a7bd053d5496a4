import { formatBytes } from '../../util/bytes.js';
import type { Converter } from './converter.js';
import type { InitialState } from './reconstruct.js';
import type { DeviceTrace, Snapshot, SnapshotSegment } from './snapshot.js';

/** How the end of the converted history compares with the file's final segments. */
export interface FinalCheck {
  segmentsMatch: boolean;
  blocksMatch: number;
  blocksDiffer: number;
  liveNotInFinal: number;
}

/** Plain-language notes for the report. */
export function describe(
  snap: Snapshot,
  device: number,
  devices: number[],
  t: DeviceTrace,
  finals: SnapshotSegment[],
  initial: InitialState,
  conv: Converter,
  check: FinalCheck,
): string[] {
  const notes: string[] = [];
  const reserved = finals.reduce((s, x) => s + x.totalBytes, 0);
  const allocated = finals.reduce((s, x) => s + x.allocatedBytes, 0);
  const others = devices.filter((d) => d !== device);
  notes.push(
    `PyTorch memory snapshot, device ${device}${others.length > 0 ? ` (also in the file: device ${others.join(', ')}; pick one with --device)` : ''}: ` +
      `${finals.length} segments, ${formatBytes(reserved)} reserved and ${formatBytes(allocated)} allocated at the dump; ` +
      `${t.length} trace entries, ${conv.allocs} allocs and ${conv.frees} frees in the window.`,
  );
  if (snap.shape === 'segments') {
    notes.push(`the file is the oldest form (a bare list of segments, no trace): the replay shows the state at the dump, its ${conv.initialCount} live blocks as allocations.`);
  } else if (t.length === 0) {
    notes.push(`the snapshot has no trace for device ${device} (history recording was off): the replay shows the state at the dump, its ${conv.initialCount} live blocks as allocations.`);
  } else {
    const stillLive = initial.allocations.filter((x) => x.liveAtEnd).length;
    notes.push(
      `the window opened with ${conv.initialCount} allocations live (${formatBytes(conv.initialBytes)} requested), reconstructed from the final segments: ` +
        `they are the first ${conv.initialCount} events (${stillLive} still live at the dump, ${conv.initialCount - stillLive} freed in the window).`,
    );
  }
  const conf = snap.settings?.['PYTORCH_CUDA_ALLOC_CONF'];
  notes.push(
    snap.settings
      ? `recorded with PYTORCH_CUDA_ALLOC_CONF="${typeof conf === 'string' ? conf : ''}" (allocator_settings are in the trace's recorded history).`
      : 'the file has no allocator_settings: it was recorded with the default settings.',
  );
  for (const o of conv.ooms) {
    notes.push(
      `the real run hit an OOM before event ${o.beforeEvent} (${o.source}): a request of ${formatBytes(o.sizeBytes)} (as rounded by PyTorch) on stream ${o.stream} failed ` +
        `with ${formatBytes(o.deviceFreeBytes ?? 0)} free on the device; --allocator recorded counts it as an OOM, and a simulating allocator's fidelity says whether it fails there too.`,
    );
  }
  if (check.segmentsMatch && check.blocksDiffer === 0 && check.liveNotInFinal === 0 && conv.misplaced === 0 && conv.segmentMismatch === 0) {
    notes.push(
      t.length === 0
        ? `the live blocks and segments match the file's final segments (${check.blocksMatch} active blocks).`
        : `the trace replayed over the reconstructed start reproduces the final segments and their ${check.blocksMatch} active blocks exactly.`,
    );
  } else {
    const parts: string[] = [];
    if (!check.segmentsMatch) parts.push('the segment history does not lead to the final segments');
    if (conv.segmentMismatch > 0) parts.push(`${conv.segmentMismatch} segment events do not fit the segments`);
    if (check.blocksDiffer > 0) parts.push(`${check.blocksDiffer} live blocks differ in size from the final segments (their final size is used)`);
    if (check.liveNotInFinal > 0) parts.push(`${check.liveNotInFinal} allocations live at the end of the trace are not in the final segments`);
    if (conv.misplaced > 0) parts.push(`${conv.misplaced} allocations do not sit in a free range of a segment`);
    notes.push(`the snapshot is not fully consistent: ${parts.join('; ')}.`);
  }
  for (const p of initial.problems) notes.push(`reconstruction: ${p}.`);
  if (conv.timeFixes > 0) notes.push(`${conv.timeFixes} trace entries had a time_us earlier than the entry before; their time was raised to keep times non-decreasing.`);
  const pending = finals.reduce((n, s) => n + s.blocks.filter((b) => b.state === 'pending').length, 0);
  if (pending > 0) notes.push(`${pending} blocks were freed but still in use by another stream at the dump (active_pending_free): they count as live until free_completed.`);
  const other = [...t.otherActions].map(([k, v]) => `${v} ${k}`);
  if (other.length > 0) notes.push(`trace entries not used: ${other.join(', ')}.`);
  return notes;
}

