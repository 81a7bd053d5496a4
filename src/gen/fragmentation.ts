import type { EventSink } from '../trace/write.js';
import { Rng } from './rng.js';
import { IdSource, type Workload } from './workload.js';

const MiB = 1024 * 1024;

/**
 * Interleaved sizes that defeat best fit: each round allocates alternating small long-lived and large
 * short-lived blocks, frees the large ones (leaving holes pinned between small survivors), then asks
 * for blocks a little larger than the holes, which no hole can hold. Over rounds the survivors age
 * out, so live memory stays bounded while a non-moving allocator's footprint keeps growing.
 */
export const fragmentation: Workload = {
  name: 'fragmentation',
  description: 'interleaved small survivors and large short-lived blocks, then slightly larger requests: holes no request fits',
  defaultSteps: 30,
  eventsPerStep: () => 4 * 24 + 24,
  generate(sink: EventSink, o): void {
    const rng = new Rng(o.seed);
    const ids = new IdSource();
    const pairs = 24;
    const survivors: string[][] = [];
    for (let step = 0; step < o.steps; step++) {
      const hole = (rng.int(8, 40) * MiB) / 2;
      const pins: string[] = [];
      const large: string[] = [];
      for (let k = 0; k < pairs; k++) {
        const pin = ids.next('s');
        sink.alloc(pin, rng.int(1, 16) * 64 * 1024, step, 'pinned.small');
        pins.push(pin);
        const big = ids.next('b');
        sink.alloc(big, hole, step, 'scratch.large');
        large.push(big);
      }
      for (const b of large) sink.free(b, step);
      // Slightly larger than each hole: none of them fits where a large block was.
      const grown: string[] = [];
      for (let k = 0; k < pairs / 2; k++) {
        const g = ids.next('g');
        sink.alloc(g, hole + rng.int(1, 4) * MiB, step, 'scratch.grown');
        grown.push(g);
      }
      for (const g of grown) sink.free(g, step);
      survivors.push(pins);
      // Survivors live for three rounds.
      if (survivors.length > 3) for (const p of survivors.shift() as string[]) sink.free(p, step);
    }
  },
};
