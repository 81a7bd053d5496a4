import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdersAt } from '../../src/attribution/index.js';
import { replay } from '../../src/sim/run.js';
import type { Trace } from '../../src/trace/model.js';
import { type EventObject, MiB, traceFromEvents } from '../helpers.js';

/** Random traces with a few tags (some allocations untagged), frees of random live ones. */
const traceArb = fc
  .array(
    fc.record({ free: fc.boolean(), pick: fc.nat(), size: fc.integer({ min: 0, max: 24 * MiB }), tag: fc.constantFrom('', 'a', 'b', 'c', 'd') }),
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
        const id = `x${n++}`;
        live.push(id);
        events.push({ op: 'alloc', id, size: o.size, ...(o.tag ? { tag: o.tag } : {}) });
      }
    }
    return traceFromEvents(events);
  });

/** Live bytes, count and largest by tag after event `e`, by the definition, allocation by allocation. */
function bruteForce(trace: Trace, e: number, failed: Set<number>): Map<string, { bytes: number; count: number; largest: number }> {
  const out = new Map<string, { bytes: number; count: number; largest: number }>();
  for (let a = 0; a < trace.allocCount; a++) {
    const at = trace.allocEvent[a]!;
    const freed = trace.freeEvent[a]!;
    if (at > e || (freed >= 0 && freed <= e) || failed.has(a)) continue;
    const tag = trace.tag && trace.tag[at]! > 0 ? trace.tags[trace.tag[at]!]! : '(no tag)';
    const size = trace.size[at]!;
    const g = out.get(tag) ?? { bytes: 0, count: 0, largest: 0 };
    g.bytes += size;
    g.count++;
    g.largest = Math.max(g.largest, size);
    out.set(tag, g);
  }
  return out;
}

describe('attribution against the definition', () => {
  it('at the peaks and every OOM, the groups are exactly the live allocations then (dropped ones excluded)', () => {
    fc.assert(
      fc.property(traceArb, fc.constantFrom(Infinity, 32 * MiB, 64 * MiB), fc.constantFrom('stop', 'continue') as fc.Arbitrary<'stop' | 'continue'>, (trace, capacity, onOom) => {
        const { report, outcome } = replay(trace, { allocator: 'naive', capacityBytes: capacity, onOom, attribution: { top: 1000 } });
        const a = report.attribution!;
        const failed = new Set(outcome.ooms.map((o) => trace.alloc[o.event]!));
        const moments = [a.peakLive, a.peakReserved, ...a.ooms].filter((m) => m !== null);
        expect(a.ooms.map((m) => m.event)).toEqual(report.ooms.map((o) => o.event));
        for (const m of moments) {
          const want = bruteForce(trace, m!.event, failed);
          const got = new Map(m!.top.map((h) => [h.key, { bytes: h.bytes, count: h.count, largest: h.largestBytes }]));
          expect(got).toEqual(want);
          expect(m!.liveBytes).toBe([...want.values()].reduce((s, g) => s + g.bytes, 0));
          // Largest first, ties by key.
          const order = [...m!.top].sort((x, y) => y.bytes - x.bytes || (x.key < y.key ? -1 : 1)).map((h) => h.key);
          expect(m!.top.map((h) => h.key)).toEqual(order);
        }
        if (a.peakLive) expect(a.peakLive.liveBytes).toBe(report.summary.peakLiveBytes);
        for (const [k, o] of report.ooms.entries()) expect(a.ooms[k]!.liveBytes).toBe(o.liveBytes);
      }),
      { numRuns: 150 },
    );
  });

  it('top N and "everything else" always add up to the live bytes and allocations', () => {
    fc.assert(
      fc.property(traceArb, fc.integer({ min: 1, max: 4 }), (trace, top) => {
        const events = Array.from({ length: trace.length }, (_, e) => e);
        for (const m of holdersAt(trace, events, [], { top })) {
          expect(m.top.length).toBeLessThanOrEqual(top);
          expect(m.top.reduce((s, h) => s + h.bytes, 0) + m.otherBytes).toBe(m.liveBytes);
          expect(m.top.reduce((s, h) => s + h.count, 0) + m.otherCount).toBe(m.liveCount);
          expect(m.groups - m.top.length).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 100 },
    );
  });
});
