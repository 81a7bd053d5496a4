import type { SimDevice } from '../device.js';
import { binIndex } from './bins.js';
import type { LifetimePolicy } from './policy.js';

/** `RoundedBytes(chunk, alignment)`: a chunk rounded up to a multiple of the alignment. */
function stride(chunkBytes: number, alignBytes: number): number {
  return Math.ceil(chunkBytes / alignBytes) * alignBytes;
}

/**
 * The pools built from the chosen policy (DeepRec's `TensorPoolAllocator::Bin`, `Buffer` and
 * `VirtualBuffer`), in typed arrays. A "slot" is one pool bin; slots are numbered in creation
 * order, largest bin first, so the first slot with a free chunk holds the largest free chunk.
 */
export class Pools {
  readonly intervalBytes: number;
  /** Bytes of all pool device allocations. */
  readonly poolBytes: number;
  /** Bins with their own chunks (one device allocation each). */
  readonly binsWithBlocks: number;
  /** Device calls that made the pools: one per planned bin, zero-byte ones included. */
  readonly calls: number;
  /** Chunks in all pools. */
  readonly chunkCount: number;
  /** Bin index per slot. */
  readonly binOfSlot: Int32Array;
  /** Chunk bytes per slot. */
  readonly chunkBytes: Float64Array;
  /** Distance between the slot's chunks: the chunk rounded up to the largest alignment its bin saw. */
  readonly strideBytes: Float64Array;
  /** Device address of each slot's allocation (NaN for a slot that only borrows). */
  readonly baseAddress: Float64Array;
  readonly firstChunk: Int32Array;
  readonly chunksOfSlot: Int32Array;
  private readonly freeTop: Int32Array;
  private readonly freeStack: Int32Array;
  private readonly vOffset: Int32Array;
  private readonly vTop: Int32Array;
  private readonly vStack: Int32Array;
  /** Slot owning each chunk. */
  readonly chunkSlot: Int32Array;
  readonly chunkAddress: Float64Array;
  private readonly regularSlot: Int32Array;
  private readonly largeSlot = new Map<number, number>();
  /** Chunks not handed out. */
  freeChunks: number;
  /** Bytes of the chunks handed out. */
  usedBytes = 0;

  /**
   * The device bytes the pools of `policy` take: per planned bin, its blocks times its chunk rounded
   * up to the bin's alignment (DeepRec's `Buffer`: `RoundedBytes(chunk_size, alignment) * len`).
   */
  static bytesOf(policy: LifetimePolicy): number {
    let total = 0;
    for (const b of policy.plannedBins()) total += b.blocks.length * stride(b.chunkBytes, b.maxAlignBytes);
    return total;
  }

  /**
   * Lays out the pools of `policy` on `device`, as `TensorPoolAllocator::Init`: one device call per
   * planned bin (every large bin, each regular bin with blocks or borrowed blocks), largest bin
   * first, of `blocks · stride` bytes — zero bytes for a bin without blocks, which still makes its
   * call. The caller checked that the total fits in the device's free capacity.
   */
  constructor(policy: LifetimePolicy, device: SimDevice, alignFor: (sizeBytes: number) => number) {
    const planned = policy.plannedBins();
    const n = planned.length;
    this.intervalBytes = policy.intervalBytes;
    this.calls = n;
    this.binOfSlot = new Int32Array(n);
    this.chunkBytes = new Float64Array(n);
    this.strideBytes = new Float64Array(n);
    this.baseAddress = new Float64Array(n).fill(NaN);
    this.firstChunk = new Int32Array(n);
    this.chunksOfSlot = new Int32Array(n);
    this.freeTop = new Int32Array(n);
    this.vOffset = new Int32Array(n + 1);
    this.vTop = new Int32Array(n);
    this.regularSlot = new Int32Array(policy.regularBins).fill(-1);
    const slotOfBin = new Map<number, number>();
    let chunks = 0;
    let borrows = 0;
    planned.forEach((b, s) => {
      this.binOfSlot[s] = b.index;
      slotOfBin.set(b.index, s);
      this.chunkBytes[s] = b.chunkBytes;
      this.strideBytes[s] = stride(b.chunkBytes, b.maxAlignBytes);
      this.firstChunk[s] = chunks;
      this.chunksOfSlot[s] = b.blocks.length;
      chunks += b.blocks.length;
      this.vOffset[s] = borrows;
      borrows += b.borrowedFrom.length;
      if (b.index < policy.regularBins) this.regularSlot[b.index] = s;
      else this.largeSlot.set(b.index, s);
    });
    this.vOffset[n] = borrows;
    this.chunkCount = chunks;
    this.freeChunks = chunks;
    this.freeStack = new Int32Array(chunks);
    this.chunkSlot = new Int32Array(chunks);
    this.chunkAddress = new Float64Array(chunks);
    this.vStack = new Int32Array(borrows);
    let poolBytes = 0;
    let withBlocks = 0;
    planned.forEach((b, s) => {
      const count = b.blocks.length;
      const first = this.firstChunk[s] as number;
      const step = this.strideBytes[s] as number;
      if (count > 0) {
        const size = count * step;
        const align = alignFor(size);
        const base = device.malloc(size, b.maxAlignBytes > align ? b.maxAlignBytes : align);
        if (base < 0) throw new Error(`pool of ${size} bytes did not fit after the capacity check`);
        this.baseAddress[s] = base;
        poolBytes += size;
        withBlocks++;
        // DeepRec's Buffer pushes chunks in address order onto a stack: the last one is taken first.
        for (let i = 0; i < count; i++) {
          this.chunkSlot[first + i] = s;
          this.chunkAddress[first + i] = base + i * step;
          this.freeStack[first + i] = first + i;
        }
        this.freeTop[s] = count;
      } else {
        device.mallocNothing();
      }
      // DeepRec's VirtualBuffer: a stack of the bins lent to, one entry per borrowed block.
      const v = this.vOffset[s] as number;
      b.borrowedFrom.forEach((owner, k) => {
        this.vStack[v + k] = slotOfBin.get(owner) as number;
      });
      this.vTop[s] = b.borrowedFrom.length;
    });
    this.poolBytes = poolBytes;
    this.binsWithBlocks = withBlocks;
  }

  /** The slot serving a tracked size, or -1 when the policy has no bin for it. */
  slotFor(totalBytes: number): number {
    const i = binIndex(totalBytes, this.intervalBytes);
    if (i < 0) return -1;
    if (i < this.regularSlot.length) return this.regularSlot[i] as number;
    return this.largeSlot.get(i) ?? -1;
  }

  /**
   * A chunk for a request of `slot`, as `Bin::Allocate`: the bin's own free chunk, else a chunk of
   * the bin on top of its borrow stack (only the top one is tried, as DeepRec's
   * `VirtualBuffer::Allocate`); -1 when neither has one.
   */
  take(slot: number): number {
    const top = this.freeTop[slot] as number;
    if (top > 0) return this.pop(slot, top);
    const vt = this.vTop[slot] as number;
    if (vt === 0) return -1;
    const owner = this.vStack[(this.vOffset[slot] as number) + vt - 1] as number;
    const ownerTop = this.freeTop[owner] as number;
    if (ownerTop === 0) return -1;
    this.vTop[slot] = vt - 1;
    return this.pop(owner, ownerTop);
  }

  private pop(slot: number, top: number): number {
    const c = this.freeStack[(this.firstChunk[slot] as number) + top - 1] as number;
    this.freeTop[slot] = top - 1;
    this.freeChunks--;
    this.usedBytes += this.chunkBytes[slot] as number;
    return c;
  }

  /** Returns a chunk taken for a request of `slot` (`Bin::Deallocate`). */
  give(chunk: number, slot: number): void {
    const owner = this.chunkSlot[chunk] as number;
    const top = this.freeTop[owner] as number;
    this.freeStack[(this.firstChunk[owner] as number) + top] = chunk;
    this.freeTop[owner] = top + 1;
    this.freeChunks++;
    this.usedBytes -= this.chunkBytes[owner] as number;
    if (owner !== slot) {
      const vt = this.vTop[slot] as number;
      this.vStack[(this.vOffset[slot] as number) + vt] = owner;
      this.vTop[slot] = vt + 1;
    }
  }

  /** Chunk bytes of the largest free chunk (0 when none is free). */
  largestFreeChunkBytes(): number {
    for (let s = 0; s < this.freeTop.length; s++) if ((this.freeTop[s] as number) > 0) return this.chunkBytes[s] as number;
    return 0;
  }
}
