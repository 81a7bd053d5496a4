import type { EventSink } from '../trace/write.js';
import { Rng } from './rng.js';
import { IdSource, type Workload } from './workload.js';

/**
 * A convolutional network serving requests: weights once, then per request (one step) an input of a
 * random batch size and layer-by-layer activations that live only until the next layer has run
 * (plus a workspace per convolution), as an inference runtime without a static plan does.
 */
export const inference: Workload = {
  name: 'inference',
  description: 'layer-by-layer inference requests of varying batch size: short-lived activations and workspaces',
  defaultSteps: 50,
  // Per request: its input, 4 events a layer (workspace and output allocated, workspace and input freed), the logits' alloc and the last two frees.
  eventsPerStep: (o) => 4 * (o.layers ?? 16) + 4,
  generate(sink: EventSink, o): void {
    const rng = new Rng(o.seed);
    const ids = new IdSource();
    const L = o.layers ?? 16;
    const bytes = 2; // fp16
    // Stages like a ResNet: spatial size halves and channels double every few layers.
    const shapes: { c: number; hw: number }[] = [];
    for (let l = 0; l < L; l++) {
      const stage = Math.min(3, Math.floor((l * 4) / L));
      shapes.push({ c: 64 << stage, hw: 112 >> stage });
    }
    let prevC = 3;
    for (let l = 0; l < L; l++) {
      const s = shapes[l] as { c: number; hw: number };
      sink.alloc(ids.next('w'), s.c * prevC * 9 * bytes, 0, `conv${l}.weight`);
      sink.alloc(ids.next('w'), s.c * 4 * 4, 0, `bn${l}.params`);
      prevC = s.c;
    }
    sink.alloc(ids.next('w'), prevC * 1000 * bytes, 0, 'fc.weight');
    for (let step = 0; step < o.steps; step++) {
      const batch = rng.pick([1, 2, 4, 8, 16, 32]);
      let x = ids.next('x');
      sink.alloc(x, batch * 3 * 224 * 224 * bytes, step, 'input');
      for (let l = 0; l < L; l++) {
        const s = shapes[l] as { c: number; hw: number };
        const ws = ids.next('t');
        sink.alloc(ws, rng.int(1, 8) * 1024 * 1024, step, `conv${l}.workspace`);
        const y = ids.next('a');
        sink.alloc(y, batch * s.c * s.hw * s.hw * bytes, step, `conv${l}.out`);
        sink.free(ws, step);
        sink.free(x, step);
        x = y;
      }
      const logits = ids.next('a');
      sink.alloc(logits, batch * 1000 * 4, step, 'fc.out');
      sink.free(x, step);
      sink.free(logits, step);
    }
  },
};
