/**
 * JSON for the binary trace's text sections (meta, string tables, recorded history): numbers JSON has
 * no literal for (NaN, ±Infinity, -0) are written as `{"$number":"NaN"}` and read back as numbers, so
 * that a trace comes back exactly as it went in.
 */

const KEY = '$number';

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) return { [KEY]: Object.is(value, -0) ? '-0' : String(value) };
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === KEY) {
      const text = (value as Record<string, unknown>)[KEY];
      if (text === '-0') return -0;
      if (text === 'NaN' || text === 'Infinity' || text === '-Infinity') return Number(text);
    }
  }
  return value;
}

/** JSON text of `value`, every number kept. */
export function stringifyExact(value: unknown): string {
  return JSON.stringify(value, replacer);
}

/** The value of a text made by {@link stringifyExact} (throws SyntaxError on invalid JSON). */
export function parseExact(text: string): unknown {
  return JSON.parse(text, reviver);
}
