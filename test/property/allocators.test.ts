import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FAILED, listAllocators, NO_BLOCK, resolveOptions } from '../../src/allocators/index.js';
import type { Trace } from '../../src/trace/model.js';
import { OP_ALLOC } from '../../src/trace/model.js';
import { replay } from '../../src/sim/run.js';
import { traceFromEvents, type EventObject, MiB } from '../helpers.js';

/** Random traces: allocations of mixed sizes, frees of random live ones, steps every few events. */
const traceArb = fc
  .array(
    fc.record({
      free: fc.boolean(),
      pick: fc.nat(),
      size: fc.oneof(fc.integer({ min: 0, max: 4096 }), fc.integer({ min: 4097, max: 4 * MiB }), fc.integer({ min: 4 * MiB, max: 96 * MiB })),
      stream: fc.constantFrom(0, 0, 0, 1),
    }),
    { minLength: 1, maxLength: 160 },
  )
  .map((ops) => {
    const events: EventObject[] = [];
    const live: string[] = [];
    let n = 0;
    ops.forEach((o, k) => {
      const step = Math.floor(k / 10);
      if (o.free && live.length > 0) {
        const [id] = live.splice(o.pick % live.length, 1);
        events.push({ op: 'free', id: id as string, step });
      } else {
        const id = `a${n++}`;
        live.push(id);
        events.push({ op: 'alloc', id, size: o.size, step, stream: o.stream });
      }
    });
    return traceFromEvents(events);
  });

const capacityArb = fc.constantFrom(Infinity, 64 * MiB, 256 * MiB, 1024 * MiB);

/** Drives an allocator event by event and checks the rules every allocator must keep. */
function checkInvariants(name: string, trace: Trace, capacity: number): void {
  const def = listAllocators().find((d) => d.name === name)!;
  const opts = resolveOptions(def, {}, trace).values;
  const a = def.create(opts as never, { capacityBytes: capacity, trace });
  const handle = new Map<number, number>();
  const blocks = new Map<number, [number, number]>();
  let live = 0;
  for (let i = 0; i < trace.length; i++) {
    const alloc = trace.alloc[i]!;
    if (trace.op[i] === OP_ALLOC) {
      const size = trace.size[i]!;
      const h = a.allocate(size, trace.stream ? trace.stream[i]! : 0, trace.step[i]!, i);
      handle.set(alloc, h);
      if (h === FAILED) {
        expect(a.lastFailure().native.length).toBeGreaterThan(0);
        continue;
      }
      live += size;
      if (h === NO_BLOCK) continue;
      const start = a.address(h);
      const bytes = a.blockBytes(h);
      expect(bytes).toBeGreaterThanOrEqual(size);
      for (const [s, b] of blocks.values()) {
        // No two live blocks overlap.
        expect(start + bytes <= s || s + b <= start).toBe(true);
      }
      blocks.set(alloc, [start, bytes]);
    } else {
      const h = handle.get(alloc)!;
      if (h === FAILED) continue;
      if (h !== NO_BLOCK) {
        const before = a.allocatedBytes;
        const bytes = a.blockBytes(h);
        a.free(h, trace.step[i]!, i);
        // Every free gives back what its alloc took.
        expect(before - a.allocatedBytes).toBe(bytes);
        blocks.delete(alloc);
      }
      live -= trace.size[i]!;
    }
    expect(live).toBeLessThanOrEqual(a.allocatedBytes + 0);
    expect(a.allocatedBytes).toBeLessThanOrEqual(a.reservedBytes);
    expect(a.reservedBytes).toBeLessThanOrEqual(capacity);
    expect(a.largestFreeBlockBytes()).toBeLessThanOrEqual(a.reservedBytes - a.allocatedBytes);
  }
  let sum = 0;
  for (const [, b] of blocks.values()) sum += b;
  expect(a.allocatedBytes).toBe(sum);
}

const runnable = listAllocators().filter((d) => !d.needsRecordedHistory);

describe.each(runnable.map((d) => d.name))('every allocator keeps the rules: %s', (name) => {
  it('live <= allocated <= reserved <= capacity; blocks never overlap; frees give back what allocs took', () => {
    fc.assert(fc.property(traceArb, capacityArb, (t, cap) => checkInvariants(name, t, cap)), { numRuns: 150 });
  });

  it('the replay report is deterministic and consistent', () => {
    fc.assert(
      fc.property(traceArb, capacityArb, (t, cap) => {
        const r1 = replay(t, { allocator: name, capacityBytes: cap, onOom: 'continue' }).report;
        const r2 = replay(t, { allocator: name, capacityBytes: cap, onOom: 'continue' }).report;
        expect(JSON.stringify(r1)).toBe(JSON.stringify(r2));
        const s = r1.summary;
        expect(s.peakLiveBytes).toBeLessThanOrEqual(s.peakAllocatedBytes);
        expect(s.peakAllocatedBytes).toBeLessThanOrEqual(s.peakReservedBytes);
        expect(s.peakReservedBytes).toBeLessThanOrEqual(cap);
        if (s.oomCount === 0) expect(s.peakLiveBytes).toBe(t.summary.peakLiveBytes);
        for (const o of r1.ooms) {
          expect(o.kind).toBe(o.liveBytes + o.sizeBytes > cap ? 'capacity' : 'fragmentation');
        }
        expect(r1.timeline.points.length).toBeLessThanOrEqual(1000);
      }),
      { numRuns: 60 },
    );
  });
});
