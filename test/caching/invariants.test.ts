import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CachingAllocator } from '../../src/allocators/caching/allocator.js';
import { getAllocator, resolveOptions, FAILED, NO_BLOCK } from '../../src/allocators/index.js';
import { OP_ALLOC, type Trace } from '../../src/trace/model.js';
import { traceFromEvents, type EventObject, MiB } from '../helpers.js';

/** Random traces: mixed sizes over both pools, two streams, frees of random live allocations. */
const traceArb = fc
  .array(
    fc.record({
      free: fc.boolean(),
      pick: fc.nat(),
      size: fc.oneof(fc.integer({ min: 0, max: 8192 }), fc.integer({ min: 8193, max: 3 * MiB }), fc.integer({ min: 3 * MiB, max: 80 * MiB })),
      stream: fc.constantFrom(0, 0, 0, 7),
    }),
    { minLength: 1, maxLength: 120 },
  )
  .map((ops) => {
    const events: EventObject[] = [];
    const live: string[] = [];
    let n = 0;
    for (const o of ops) {
      if (o.free && live.length > 0) {
        const [id] = live.splice(o.pick % live.length, 1);
        events.push({ op: 'free', id: id as string });
      } else {
        const id = `a${n++}`;
        live.push(id);
        events.push({ op: 'alloc', id, size: o.size, stream: o.stream });
      }
    }
    // Everything freed at the end, to check that it all comes back.
    for (const id of live) events.push({ op: 'free', id });
    return traceFromEvents(events);
  });

const optionsArb = fc.record(
  {
    expandable_segments: fc.boolean(),
    max_split_size_mb: fc.constantFrom(null, 20, 40, 64),
    roundup_power2_divisions: fc.constantFrom('', '4', '[1:2,4:8,>:4]'),
    garbage_collection_threshold: fc.constantFrom(0, 0.3, 0.8),
    per_process_memory_fraction: fc.constantFrom(null, 0.5, 0.9),
  },
  { requiredKeys: [] },
);
const capacityArb = fc.constantFrom(Infinity, 64 * MiB, 160 * MiB, 512 * MiB);

/** The blocks tile every segment, free lists match the blocks, and the stats match both. */
function checkStructure(a: CachingAllocator, capacity: number): void {
  const state = a.state();
  let reserved = 0;
  let allocated = 0;
  let inactiveSplit = 0;
  const freeBlocks: string[] = [];
  for (const s of state.segments) {
    let at = s.address;
    for (const [k, b] of s.blocks.entries()) {
      expect(b.address).toBe(at);
      at += b.sizeBytes;
      if (b.isFree) {
        freeBlocks.push(`${b.address}+${b.sizeBytes}`);
        // Free neighbours are always merged.
        if (k > 0) expect(s.blocks[k - 1]!.isFree).toBe(false);
        if (s.blocks.length > 1 && !s.kind.endsWith('expandable')) inactiveSplit += b.sizeBytes;
      } else {
        allocated += b.sizeBytes;
      }
    }
    expect(at).toBe(s.address + s.sizeBytes);
    reserved += s.sizeBytes;
  }
  const listed: string[] = [];
  for (let k = 0; k < a.setCount; k++) for (const id of a.setBlocks(k)) listed.push(`${a.ptr[id]}+${a.size[id]}`);
  expect(listed.sort()).toEqual(freeBlocks.sort());
  expect(a.allocatedBytes).toBe(allocated);
  expect(a.reservedBytes).toBe(reserved);
  expect(a.device.usedBytes).toBe(reserved);
  const stats = a.stats() as Record<string, number>;
  expect(stats.inactive_split_bytes).toBe(inactiveSplit);
  expect(stats.active_bytes).toBe(allocated);
  expect(a.reservedBytes).toBeLessThanOrEqual(capacity);
  // alloc_block checks the fraction against the segment size; expandable segments then map whole
  // pages, which can end above the allowed memory, as in PyTorch.
  if (!a.settings.expandableSegments) expect(a.reservedBytes).toBeLessThanOrEqual(a.limitBytes ?? Infinity);
}

function drive(trace: Trace, options: Record<string, unknown>, capacity: number, checkEvery = 1): void {
  const def = getAllocator('caching');
  const a = def.create(resolveOptions(def, options).values as never, { capacityBytes: capacity, trace }) as CachingAllocator;
  const handles = new Int32Array(trace.allocCount);
  const live = new Map<number, [number, number]>();
  for (let i = 0; i < trace.length; i++) {
    const n = trace.alloc[i]!;
    if (trace.op[i] === OP_ALLOC) {
      const size = trace.size[i]!;
      const h = a.allocate(size, trace.stream ? trace.stream[i]! : 0, 0, i);
      handles[n] = h;
      if (h === FAILED) {
        expect(a.lastFailure().native).toMatch(/^CUDA out of memory\. Tried to allocate /);
      } else if (h !== NO_BLOCK) {
        const start = a.address(h);
        const bytes = a.blockBytes(h);
        expect(bytes).toBeGreaterThanOrEqual(Math.max(size, 512));
        for (const [s, b] of live.values()) expect(start + bytes <= s || s + b <= start).toBe(true);
        live.set(n, [start, bytes]);
      }
    } else {
      const h = handles[n]!;
      if (h >= 0) {
        const before = a.allocatedBytes;
        const bytes = a.blockBytes(h);
        a.free(h, 0, i);
        expect(before - a.allocatedBytes).toBe(bytes);
        live.delete(n);
      }
    }
    if (i % checkEvery === 0 || i === trace.length - 1) checkStructure(a, capacity);
  }
  // Everything freed: nothing allocated, every cached block free.
  expect(a.allocatedBytes).toBe(0);
  expect(a.state().segments.every((s) => s.blocks.every((b) => b.isFree))).toBe(true);
}

const handlesOf = new Map<number, number>();

/** Hundreds of small blocks, every other one freed, then more requests: long free lists. */
const fragmentedArb = fc
  .record({
    count: fc.integer({ min: 280, max: 400 }),
    sizes: fc.array(fc.integer({ min: 1, max: 6000 }), { minLength: 20, maxLength: 60 }),
    keep: fc.constant(2),
  })
  .map(({ count, sizes, keep }) => {
    const events: EventObject[] = [];
    for (let k = 0; k < count; k++) events.push({ op: 'alloc', id: `s${k}`, size: 512 + (k % 7) * 512 });
    for (let k = 0; k < count; k++) if (k % keep !== 0) events.push({ op: 'free', id: `s${k}` });
    sizes.forEach((size, k) => events.push({ op: 'alloc', id: `r${k}`, size }));
    for (let k = 0; k < count; k++) if (k % keep === 0) events.push({ op: 'free', id: `s${k}` });
    sizes.forEach((_, k) => events.push({ op: 'free', id: `r${k}` }));
    return traceFromEvents(events);
  });

describe('caching allocator invariants', () => {
  it('no overlap, allocated <= reserved <= limit, frees give back, blocks tile segments, stats agree', () => {
    fc.assert(fc.property(traceArb, optionsArb, capacityArb, (t, o, cap) => drive(t, o, cap)), { numRuns: 300 });
  });

  it('keeps them with free lists long enough to be kept as trees', () => {
    fc.assert(
      fc.property(fragmentedArb, (t) => {
        drive(t, {}, Infinity, 37);
        // Every other block free and unmerged: well past the 128 blocks kept in an array.
        const a = getAllocator('caching').create(resolveOptions(getAllocator('caching'), {}).values as never, { capacityBytes: Infinity, trace: t }) as CachingAllocator;
        let peak = 0;
        for (let i = 0; i < t.length; i++) {
          if (t.op[i] === OP_ALLOC) handlesOf.set(t.alloc[i]!, a.allocate(t.size[i]!, 0, 0, i));
          else a.free(handlesOf.get(t.alloc[i]!)!, 0, i);
          peak = Math.max(peak, a.count(0));
        }
        expect(peak).toBeGreaterThan(128);
      }),
      { numRuns: 5 },
    );
  });
});
