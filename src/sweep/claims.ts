/**
 * Who runs each job of a {@link WorkerPool}: every job is offered to every thread of the pool, and
 * the first to claim it runs it. A claim is one compare-and-swap on shared memory, so that no thread
 * waits for another to hand out work (this thread, busy with a job of its own, answers no messages).
 */

/** Jobs per block of claims: one SharedArrayBuffer each, made as jobs are offered. */
const BLOCK = 1024;

/** Where a job's claim is: a block every thread shares and the job's slot in it. */
export interface ClaimSlot {
  claims: Int32Array;
  slot: number;
}

/** Claims job `slot` of `claims` for the calling thread: true for the first caller only. */
export function claim(at: ClaimSlot): boolean {
  return Atomics.compareExchange(at.claims, at.slot, 0, 1) === 0;
}

/** The claims of a pool's jobs, numbered from 0. */
export class ClaimBoard {
  private readonly blocks: Int32Array[] = [];

  /** The claim of job `index` (its block is made on first use). */
  at(index: number): ClaimSlot {
    const b = Math.floor(index / BLOCK);
    while (this.blocks.length <= b) this.blocks.push(new Int32Array(new SharedArrayBuffer(BLOCK * Int32Array.BYTES_PER_ELEMENT)));
    return { claims: this.blocks[b] as Int32Array, slot: index % BLOCK };
  }
}
