import { grown } from './typed-arrays.js';

/**
 * What a segment of a {@link SegmentLayout} is besides its range: its stream, pool and whether it
 * is expandable, by a small id that is reused once its segment is gone (typed arrays, grown by
 * doubling).
 */
export class SegmentAttributes {
  private streams = new Float64Array(64);
  private pools = new Int8Array(64);
  private expandable = new Uint8Array(64);
  private next = 0;
  private readonly unused: number[] = [];

  /** A new id with these attributes. */
  add(stream: number, pool: number, isExpandable: boolean): number {
    const id = this.unused.pop() ?? this.next++;
    if (id >= this.streams.length) this.grow(this.streams.length * 2);
    this.streams[id] = stream;
    this.pools[id] = pool;
    this.expandable[id] = isExpandable ? 1 : 0;
    return id;
  }

  /** The id's segment is gone: the id may be given again. */
  remove(id: number): void {
    this.unused.push(id);
  }

  stream(id: number): number {
    return this.streams[id] as number;
  }

  pool(id: number): number {
    return this.pools[id] as number;
  }

  isExpandable(id: number): boolean {
    return this.expandable[id] === 1;
  }

  private grow(n: number): void {
    this.streams = grown(this.streams, n);
    this.pools = grown(this.pools, n);
    this.expandable = grown(this.expandable, n);
  }
}
