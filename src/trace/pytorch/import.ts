import type { TraceBuilder } from '../builder.js';
import type { RecordedBlock, RecordedHistory, RecordedSegment } from '../model.js';
import { Converter } from './converter.js';
import { chooseDevice } from './device.js';
import { fitted } from '../columns.js';
import type { LiveAddresses } from './live-addresses.js';
import { describe } from './notes.js';
import { toPlain } from './pickle-value.js';
import { reconstructInitialState } from './reconstruct.js';
import { rulesFromSettings } from './round-size.js';
import { type Snapshot, type SnapshotSegment, traceColumns } from './snapshot.js';

/**
 * Converts one device of a snapshot into events (written to `builder`) and the recorded history:
 * allocations live when the window opened first (then `markInitialEvents`), then `alloc` and
 * `free_completed` of the trace in order, with stable ids (`b<address hex>_<n>`, n counting the
 * allocations at that address, as the viewer's versions do), the stream, `time_us`, and a tag from
 * the innermost useful frame. The block size of each allocation follows from the layout it was
 * placed in (the free block at its address and should_split), checked against the final segments.
 */
export function importSnapshot(snap: Snapshot, file: string, builder: TraceBuilder, requestedDevice: number | undefined): RecordedHistory {
  const { device, devices } = chooseDevice(snap, requestedDevice);
  const rules = rulesFromSettings(snap.settings);
  const t = traceColumns(snap, device, file);
  // Events name their entry of device_traces[device] (a pickle has no lines).
  builder.entries = { list: `device_traces[${device}]`, fields: { id: 'addr', time: 'time_us' } };
  const finals = snap.segments.filter((s) => s.device === device).sort((a, b) => a.address - b.address);
  const initial = reconstructInitialState(finals, t, rules);
  const conv = new Converter(builder, t, rules, initial);
  conv.run();
  const check = conv.checkAgainst(finals);
  const notes = describe(snap, device, devices, t, finals, initial, conv, check);
  builder.meta = { source: 'PyTorch memory snapshot', device };
  builder.stacks = conv.stacks.build(conv.records.count);
  const recorded: RecordedHistory = {
    allocator: 'pytorch-caching',
    address: fitted(conv.records.address, conv.records.count),
    allocatedBytes: fitted(conv.records.allocated, conv.records.count),
    segmentEvents: conv.segmentEvents,
    initialSegments: conv.initialSegments,
    finalSegments: finals.map((s) => finalSegment(s, conv.live)),
    otherSegments: snap.segments.filter((s) => s.device !== device).map((s) => ({
      address: s.address,
      sizeBytes: s.totalBytes,
      stream: s.stream,
      pool: s.pool,
      isExpandable: s.isExpandable,
      device: s.device,
    })),
    ooms: conv.ooms,
    notes,
    extra: { device, devices, shape: snap.shape, initialAllocations: initial.allocations.length },
  };
  if (snap.settings) recorded.settings = toPlain(snap.settings) as Record<string, unknown>;
  return recorded;
}

function finalSegment(s: SnapshotSegment, live: LiveAddresses): RecordedSegment {
  return {
    address: s.address,
    sizeBytes: s.totalBytes,
    stream: s.stream,
    pool: s.pool,
    isExpandable: s.isExpandable,
    allocatedBytes: s.allocatedBytes,
    activeBytes: s.activeBytes,
    blocks: s.blocks.map((b) => {
      const r: RecordedBlock = { address: b.address, sizeBytes: b.sizeBytes, state: b.state };
      if (b.state !== 'free') {
        r.requestedBytes = b.requestedBytes;
        const a = live.liveAt(b.address);
        if (a >= 0) r.allocation = a;
      }
      return r;
    }),
  };
}
