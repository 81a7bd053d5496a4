import { Chalk, type ChalkInstance } from 'chalk';

import { formatCount } from '../util/bytes.js';
export { formatBytes, formatCount, formatPercent, formatHex } from '../util/bytes.js';

/** Options every human-readable reporter takes. */
export interface RenderOptions {
  /** Use ANSI colours (the CLI decides: TTY, NO_COLOR, --no-color). */
  color?: boolean;
  /** How much of each OOM's native text to show: `compact` (default), `full`, `none`. */
  oomDump?: 'compact' | 'full' | 'none';
  /** Columns of the terminal that text reports keep to (default 100; see layout.ts). */
  width?: number;
}

/** A chalk instance with colours on or off, never decided by the environment here. */
export function painter(color: boolean | undefined): ChalkInstance {
  return new Chalk({ level: color ? 1 : 0 });
}

const BARS = '▁▂▃▄▅▆▇█';

/**
 * A one-line chart of a series, `width` characters, scaled to `max` (each column shows the
 * maximum of the samples that fall in it).
 */
export function sparkline(xs: readonly number[], ys: readonly number[], width: number, max: number, xMax: number): string {
  if (xs.length === 0 || max <= 0) return ''.padEnd(width, ' ');
  const cols = new Array<number>(width).fill(-1);
  for (let k = 0; k < xs.length; k++) {
    const c = Math.min(width - 1, Math.floor(((xs[k] as number) / Math.max(1, xMax)) * width));
    if ((ys[k] as number) > (cols[c] as number)) cols[c] = ys[k] as number;
  }
  // Columns with no sample repeat the previous value (the curve is a step function).
  let prev = 0;
  let out = '';
  for (let c = 0; c < width; c++) {
    const v = (cols[c] as number) >= 0 ? (cols[c] as number) : prev;
    prev = v;
    const idx = Math.min(BARS.length - 1, Math.max(0, Math.ceil((v / max) * BARS.length) - 1));
    out += v <= 0 ? ' ' : BARS[idx];
  }
  return out;
}

/**
 * Splits a native OOM text for display: the whole of it, or (compact) the allocator's own summary
 * when it gives one, else the first lines, and a count of what is left out.
 */
export function nativeLines(text: string, mode: 'compact' | 'full' | 'none', compactLines = 12, summary?: string): string[] {
  if (mode === 'none' || text === '') return [];
  const lines = text.split('\n');
  if (mode === 'full' || lines.length <= compactLines + 2) return lines;
  if (summary !== undefined) return [...summary.split('\n'), `… a summary of ${formatCount(lines.length)} lines (--oom-dump full shows them)`];
  return [...lines.slice(0, compactLines), `… ${formatCount(lines.length - compactLines)} more lines (--oom-dump full shows them)`];
}
