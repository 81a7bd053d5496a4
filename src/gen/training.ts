import type { EventSink } from '../trace/write.js';
import { Rng } from './rng.js';
import { type Workload, type WorkloadOptions, IdSource } from './workload.js';

const MiB = 1024 * 1024;

/**
 * A transformer training loop as PyTorch runs it: weights allocated once; each step loads a batch of
 * a random sequence length, keeps activations through the forward pass (with short-lived
 * temporaries), frees them through the backward pass while weight gradients appear, then the
 * optimizer creates its state on the first step and the gradients are released (zero_grad with
 * set_to_none). Varying sequence lengths give the size variety that fragments real caches.
 */
export const training: Workload = {
  name: 'training',
  description: 'transformer training steps: weights once, activations up the forward pass and down the backward pass, gradients, optimizer state',
  defaultSteps: 20,
  eventsPerStep: (o) => 40 * (o.layers ?? 12) + 20,
  generate(sink: EventSink, o: WorkloadOptions): void {
    const rng = new Rng(o.seed);
    const ids = new IdSource();
    const L = o.layers ?? 12;
    const h = 1024;
    const heads = 16;
    const vocab = 32000;
    const batch = 8;
    const maxSeq = 1024;
    const bytes = 2; // bf16 activations
    const paramBytes = 4; // fp32 master weights
    // Weights: per layer qkv (3h*h), proj (h*h), fc1 (4h*h), fc2 (4h*h), two layer norms; embeddings.
    const layerParams = [
      ['qkv.weight', 3 * h * h],
      ['proj.weight', h * h],
      ['fc1.weight', 4 * h * h],
      ['fc2.weight', 4 * h * h],
      ['ln1.weight', h],
      ['ln2.weight', h],
    ] as const;
    const weights: { id: string; size: number; tag: string }[] = [];
    const addWeight = (tag: string, n: number): void => {
      const w = { id: ids.next('w'), size: n * paramBytes, tag };
      weights.push(w);
      sink.alloc(w.id, w.size, 0, tag);
    };
    addWeight('embed.weight', vocab * h);
    for (let l = 0; l < L; l++) for (const [name, n] of layerParams) addWeight(`layer${l}.${name}`, n);
    addWeight('lm_head.weight', vocab * h);

    let optimizerState: string[] | null = null;
    for (let step = 0; step < o.steps; step++) {
      const drawn = 64 * rng.int(maxSeq / 128, maxSeq / 64); // 512..1024 tokens
      const seq = o.seqLen ?? drawn;
      const tok = batch * seq;
      const act = tok * h * bytes;
      const tokens = ids.next('x');
      sink.alloc(tokens, tok * 8, step, 'input.tokens');
      const emb = ids.next('a');
      sink.alloc(emb, act, step, 'embed.out');
      const saved: { id: string; tag: string }[] = [{ id: emb, tag: 'embed.out' }];
      // Forward: per layer the saved activations and a few temporaries.
      for (let l = 0; l < L; l++) {
        const p = `layer${l}`;
        const keep = (tag: string, size: number): void => {
          const id = ids.next('a');
          sink.alloc(id, size, step, `${p}.${tag}`);
          saved.push({ id, tag });
        };
        const temp = (tag: string, size: number): string => {
          const id = ids.next('t');
          sink.alloc(id, size, step, `${p}.${tag}`);
          return id;
        };
        keep('ln1.out', act);
        keep('qkv.out', 3 * act);
        const scores = temp('attn.scores', batch * heads * seq * seq * bytes);
        keep('attn.probs', batch * heads * seq * seq * bytes);
        sink.free(scores, step);
        keep('attn.out', act);
        keep('proj.out', act);
        keep('ln2.out', act);
        keep('fc1.out', 4 * act);
        const gelu = temp('gelu.tmp', 4 * act);
        keep('gelu.out', 4 * act);
        sink.free(gelu, step);
        keep('fc2.out', act);
      }
      const logits = ids.next('a');
      sink.alloc(logits, tok * vocab * bytes, step, 'lm_head.logits');
      const loss = ids.next('t');
      sink.alloc(loss, 512, step, 'loss');
      // Backward: the logits gradient, then layers in reverse; activations die, weight grads appear.
      const dlogits = ids.next('g');
      sink.alloc(dlogits, tok * vocab * bytes, step, 'lm_head.logits.grad');
      sink.free(logits, step);
      const grads: string[] = [];
      const weightGrad = (w: { size: number; tag: string }): void => {
        const g = ids.next('g');
        sink.alloc(g, w.size, step, `${w.tag}.grad`);
        grads.push(g);
      };
      weightGrad(weights[weights.length - 1] as { size: number; tag: string });
      let dx = ids.next('g');
      sink.alloc(dx, act, step, 'hidden.grad');
      sink.free(dlogits, step);
      for (let l = L - 1; l >= 0; l--) {
        const p = `layer${l}`;
        for (let k = 0; k < layerParams.length; k++) {
          weightGrad(weights[1 + l * layerParams.length + k] as { size: number; tag: string });
        }
        // Temporaries of the backward kernels.
        const t1 = ids.next('t');
        sink.alloc(t1, 4 * act, step, `${p}.fc1.grad_input`);
        const t2 = ids.next('t');
        sink.alloc(t2, batch * heads * seq * seq * bytes, step, `${p}.attn.probs.grad`);
        sink.free(t1, step);
        sink.free(t2, step);
        // This layer's saved activations are no longer needed.
        for (let k = 0; k < 9; k++) {
          const s = saved.pop();
          if (s) sink.free(s.id, step);
        }
        const ndx = ids.next('g');
        sink.alloc(ndx, act, step, 'hidden.grad');
        sink.free(dx, step);
        dx = ndx;
      }
      weightGrad(weights[0] as { size: number; tag: string });
      sink.free(dx, step);
      for (const s of saved.splice(0)) sink.free(s.id, step);
      sink.free(loss, step);
      sink.free(tokens, step);
      // Optimizer: Adam's two moments are created on the first step and kept.
      if (!optimizerState) {
        optimizerState = [];
        for (const w of weights) {
          for (const m of ['exp_avg', 'exp_avg_sq']) {
            const id = ids.next('o');
            sink.alloc(id, w.size, step, `${w.tag}.${m}`);
            optimizerState.push(id);
          }
        }
      }
      const flat = ids.next('t');
      sink.alloc(flat, 32 * MiB, step, 'optimizer.foreach_tmp');
      sink.free(flat, step);
      for (const g of grads) sink.free(g, step);
    }
  },
};
