import type { EventSink } from '../trace/write.js';

/** Parameters of a synthetic workload. */
export interface WorkloadOptions {
  seed: number;
  steps: number;
  /** Model depth, for the workloads that have layers. */
  layers?: number;
  /**
   * Training: one sequence length for every step (static shapes, as fixed-shape training and
   * recommendation models run) instead of one drawn per step from 512–1024 tokens.
   */
  seqLen?: number;
}

/** A deterministic synthetic trace generator that looks like a real DNN workload. */
export interface Workload {
  name: string;
  description: string;
  defaultSteps: number;
  /** Approximate events per step (to size traces by event count). */
  eventsPerStep(o: Partial<WorkloadOptions>): number;
  generate(sink: EventSink, o: WorkloadOptions): void;
}

/** Short unique ids: a prefix and a counter. */
export class IdSource {
  private n = 0;
  next(prefix: string): string {
    return `${prefix}${this.n++}`;
  }
}
