/**
 * Durations typed by users: `10s`, `500ms`, `1.5s`, `2m`; a bare number is seconds.
 * @returns milliseconds, or an error message.
 */
export function parseDuration(text: string): { ok: true; ms: number } | { ok: false; message: string } {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?\s*$/i.exec(text);
  if (!m) return { ok: false, message: `"${text}" is not a duration (examples: 10s, 500ms, 2m)` };
  const value = Number(m[1]);
  const unit = (m[2] ?? 's').toLowerCase();
  const scale = unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'h' ? 3_600_000 : 60_000;
  return { ok: true, ms: Math.round(value * scale) };
}
