/**
 * The plain data a safe unpickler builds, and the helpers that read it. The same shapes come from
 * `JSON.parse`, so the snapshot importer reads pickles and JSON with one code path.
 */

/** A value read from a pickle (or JSON): nothing here has behaviour. */
export type PickleValue = null | boolean | number | bigint | string | Uint8Array | PickleValue[] | PickleDict;

/** A Python dict, as a plain object whose keys are own properties. */
export interface PickleDict {
  [key: string]: PickleValue;
}

/**
 * Sets `key` as an own property. Plain assignment of `__proto__` would replace the object's
 * prototype; defining the property keeps it data.
 */
export function dictSet(d: PickleDict, key: string, v: PickleValue): void {
  if (key === '__proto__') Object.defineProperty(d, key, { value: v, enumerable: true, writable: true, configurable: true });
  else d[key] = v;
}

/** True for a dict (a plain object that is not an array or bytes). */
export function isDict(v: unknown): v is PickleDict {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/** The value of an own key of a dict, or undefined (inherited names such as `constructor` never match). */
export function field(d: PickleDict, key: string): PickleValue | undefined {
  return Object.prototype.hasOwnProperty.call(d, key) ? d[key] : undefined;
}

/**
 * A deep copy as JSON-safe plain data (bigint -> decimal string, bytes -> array of numbers), with a
 * depth limit, so that a hostile file with shared or cyclic structures cannot hang a report.
 */
export function toPlain(v: PickleValue, depth = 0): unknown {
  if (depth > 32) return '…';
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return Array.from(v);
  if (Array.isArray(v)) return v.map((x) => toPlain(x, depth + 1));
  if (isDict(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      const x = toPlain(v[k] as PickleValue, depth + 1);
      if (k === '__proto__') Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
      else out[k] = x;
    }
    return out;
  }
  return v;
}
