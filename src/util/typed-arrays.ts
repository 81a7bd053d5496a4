/** The typed arrays the columnar stores grow. */
export type GrowableArray = Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array | Int8Array;

/** A copy of `a` in a new array of the same kind with `n` elements (`n` ≥ its length; the rest zero). */
export function grown<T extends GrowableArray>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  (b as Float64Array).set(a as Float64Array);
  return b;
}
