/** Growable typed-array columns, trimmed once when the trace is complete. */

type TypedArray = Uint8Array | Uint32Array | Int32Array | Float64Array;
type TypedArrayCtor<T extends TypedArray> = { new (length: number): T };

/** A typed array that grows by 1.5x; `trimmed()` returns an exact-length copy. */
export class Column<T extends TypedArray> {
  data: T;
  private readonly ctor: TypedArrayCtor<T>;

  constructor(ctor: TypedArrayCtor<T>, initialCapacity: number) {
    this.ctor = ctor;
    this.data = new ctor(Math.max(16, initialCapacity));
  }

  /** Makes room for index `i`. */
  ensure(i: number): void {
    if (i < this.data.length) return;
    let cap = this.data.length;
    while (cap <= i) cap = Math.ceil(cap * 1.5);
    const next = new this.ctor(cap);
    next.set(this.data as never);
    this.data = next;
  }

  /** An exact-length copy (the growth slack is released when the column is dropped). */
  trimmed(length: number): T {
    if (this.data.length === length) return this.data;
    const out = new this.ctor(length);
    out.set(this.data.subarray(0, length) as never);
    return out;
  }
}
