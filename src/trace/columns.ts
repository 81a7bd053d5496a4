/**
 * Columns that grow in place. A trace's columns live in growable SharedArrayBuffers: growing one
 * copies nothing (the memory is reserved up front and committed as it grows), capacity not yet written
 * costs no memory, and another thread can read a column while a reader fills it (see
 * `trace/pipeline/`). Where the runtime refuses the reservation (a limit on address space), a column is
 * an ordinary typed array and grows by copying.
 */

export type Numeric = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

interface NumericCtor<T extends Numeric> {
  new (length: number): T;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/** A growable SharedArrayBuffer (ES2024; Node 20 has them, the TypeScript library in use does not). */
interface GrowableSharedArrayBuffer extends SharedArrayBuffer {
  readonly growable: boolean;
  readonly maxByteLength: number;
  grow(byteLength: number): void;
}
const GrowableShared = SharedArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => GrowableSharedArrayBuffer;

/** The most bytes one column reserves: the largest buffer the runtime makes. */
const MAX_RESERVED_BYTES = 2 ** 32;
/** The least a column reserves (reservations are address space, not memory). */
const MIN_RESERVED_BYTES = 2 ** 16;

function reservedBytes(bytesPerEntry: number, reserveLength: number): number {
  return Math.min(MAX_RESERVED_BYTES, Math.max(MIN_RESERVED_BYTES, Math.ceil(reserveLength) * bytesPerEntry));
}

/**
 * A column of `length` zeros that grows in place up to `reserveLength` entries (more then copies it
 * once into a larger reservation).
 */
export function newColumn<T extends Numeric>(Ctor: NumericCtor<T>, length: number, reserveLength: number = length): T {
  const bytes = length * Ctor.BYTES_PER_ELEMENT;
  const max = reservedBytes(Ctor.BYTES_PER_ELEMENT, Math.max(length, reserveLength));
  if (bytes <= max) {
    try {
      return new Ctor(new GrowableShared(bytes, { maxByteLength: max }), 0, length);
    } catch {
      // no reservation: an ordinary array below
    }
  }
  return new Ctor(length);
}

/** True when the column can grow to `length` entries without a copy. */
export function growsInPlace(col: Numeric, length: number): boolean {
  const b = col.buffer as GrowableSharedArrayBuffer;
  return b instanceof SharedArrayBuffer && b.growable && col.byteOffset === 0 && length * col.BYTES_PER_ELEMENT <= b.maxByteLength;
}

/**
 * The column with room for `length` entries, its first `keep` entries kept and the rest zero: the same
 * memory grown when its reservation allows (the returned array is a new view of it), else a copy into
 * a new column reserving `reserveLength` entries. Entries past `keep` that the old view held are
 * cleared only when the column shrinks and grows again, which builders never do.
 */
export function growColumn<T extends Numeric>(col: T, length: number, keep: number = col.length, reserveLength: number = length * 2): T {
  const Ctor = col.constructor as NumericCtor<T>;
  if (growsInPlace(col, length)) {
    const b = col.buffer as GrowableSharedArrayBuffer;
    const bytes = length * col.BYTES_PER_ELEMENT;
    if (bytes > b.byteLength) b.grow(bytes);
    return new Ctor(b, 0, length);
  }
  const next = newColumn(Ctor, length, Math.max(length, reserveLength));
  next.set(keep < col.length ? col.subarray(0, keep) : col);
  return next;
}

/** The first `length` entries of a column, without a copy. */
export function columnOf<T extends Numeric>(col: T, length: number): T {
  return length === col.length ? col : (col.subarray(0, length) as T);
}

/**
 * A typed array of `count` entries: a view when it grew in place or little is unused (room not
 * written costs nothing then), else a copy that frees the rest.
 */
export function fitted<T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(a: T, count: number): T {
  return growsInPlace(a, count) || (a.length - count) * 8 <= a.length ? columnOf(a, count) : (a.slice(0, count) as T);
}

/** Grows a column to at least `need` elements (1.5x steps), in place when it can (see columns.ts). */
export function grown<T extends Uint8Array | Uint32Array | Int32Array>(a: T, need: number, reserve: number): T {
  let cap = a.length;
  while (cap < need) cap = Math.ceil(cap * 1.5) + 16;
  return growColumn(a, cap, a.length, reserve);
}
