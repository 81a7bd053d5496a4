/**
 * The one layout of every text table: columns declared once (head, alignment, how a cell may break,
 * which column goes first when space runs out), fitted to the terminal's width. A table that is too
 * wide first breaks the cells that may break (words, configurations at their commas, keys cut at
 * their middle or start) and the heads at their spaces; when even that is too wide, it leaves out
 * columns, least important first, and says which under the table. JSON reports keep every figure.
 */
import { createRequire } from 'node:module';

/** The width text reports keep to when nothing else is known (not a terminal, no --width). */
export const DEFAULT_WIDTH = 100;

/** The narrowest width a report is laid out for. */
export const MIN_WIDTH = 40;

/** One column of a table. */
export interface Column {
  head: string;
  align?: 'left' | 'right';
  /**
   * When the table does not fit even with its cells broken, the column with the highest `drop` is
   * left out first; 0 (the default) is never left out.
   */
  drop?: number;
  /**
   * How a cell may break: `none` (figures: never), `words` (at spaces, a number keeps its unit),
   * `commas` (a configuration `NAME[a=1,b=2]` after its commas), or a function that cuts the text
   * to a width (a key that keeps its ends).
   */
  wrap?: 'none' | 'words' | 'commas' | ((text: string, width: number) => string);
  /**
   * Break this column's cells before leaving out any column (a configuration's long name). Columns
   * that cut their cells always do; the others, and the heads, break only once no column is left
   * to leave out.
   */
  breakEarly?: boolean;
  /**
   * The narrowest a column that cuts its cells becomes (default 16); for a column that breaks
   * early, the narrowest it becomes before columns are left out.
   */
  minWidth?: number;
  /** The widest the column becomes, whatever the space (cells cut or wrapped to it). */
  maxWidth?: number;
}

/** How a table is drawn. */
export interface TableLayout {
  /** Columns of the terminal (the whole line, indent included). */
  width?: number;
  /** Put before every line. */
  indent?: string;
  /** `box`: memsim's ruled table; `plain`: columns two spaces apart, no rules (long lists). */
  style?: 'box' | 'plain';
}

/**
 * Display width of a text: one column a character for what reports write (see {@link plainWidth});
 * other text, such as a tag from a trace with emoji, CJK or combining marks, as cli-table3 measures it
 * (string-width, loaded then), so that the columns we size are the ones it draws.
 */
export function textWidth(s: string): number {
  if (plainWidth(s)) return s.length;
  widthOf ??= createRequire(import.meta.url)('string-width') as (s: string) => number;
  return widthOf(s);
}
let widthOf: ((s: string) => number) | undefined;

/** The longest start of `text` (`fromEnd`: end) whose display width is at most `width`. */
export function cutToWidth(text: string, width: number, fromEnd = false): string {
  if (textWidth(text) <= width) return text;
  const chars = [...text];
  if (fromEnd) chars.reverse();
  let used = 0;
  let n = 0;
  for (; n < chars.length; n++) {
    const w = textWidth(chars[n] as string);
    if (used + w > width) break;
    used += w;
  }
  const kept = chars.slice(0, n);
  return (fromEnd ? kept.reverse() : kept).join('');
}

const UNIT = /^(?:B|KiB|MiB|GiB|TiB|PiB|EiB)\b/;

/** The words of a text, a number kept with its unit (`148.00 MiB` is one word). */
function words(text: string): string[] {
  const out: string[] = [];
  for (const w of text.split(' ')) {
    if (w === '') continue;
    if (out.length > 0 && UNIT.test(w) && /\d$/.test(out[out.length - 1] as string)) out[out.length - 1] += ` ${w}`;
    else out.push(w);
  }
  return out;
}

/** The longest word a cell keeps whole; a longer one may break after its commas, or anywhere. */
const LONG_WORD = 20;

/** A word longer than `width` in pieces that fit: after its commas when they do, else cut. */
function pieces(word: string, width: number): string[] {
  if (textWidth(word) <= width || width < 1) return [word];
  const out: string[] = [];
  let piece = '';
  for (const part of word.split(/(?<=,)/)) {
    if (piece !== '' && textWidth(piece) + textWidth(part) > width) {
      out.push(piece);
      piece = '';
    }
    piece += part;
  }
  if (piece !== '') out.push(piece);
  return out.flatMap((p) => {
    const cut: string[] = [];
    for (let rest = p; rest !== ''; ) {
      // At least one character a piece, however wide.
      const head = cutToWidth(rest, width) || ([...rest][0] as string);
      cut.push(head);
      rest = rest.slice(head.length);
    }
    return cut;
  });
}

/**
 * Words of `text` in lines of at most `width` columns, each line starting with `indent`; a number
 * keeps its unit on its line. A word longer than the line breaks after its commas (or is cut).
 */
export function wrap(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  const room = width - textWidth(indent);
  for (const word of words(text.replace(/\s+/g, ' ')).flatMap((w) => pieces(w, room))) {
    if (line !== '' && textWidth(indent) + textWidth(line) + 1 + textWidth(word) > width) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(indent + line);
  return lines;
}

/**
 * {@link wrap} for a line that may start with spaces (kept on the first line) and whose later lines
 * take `indent`.
 */
export function wrapHanging(text: string, width: number, indent: string): string[] {
  const lead = /^ */.exec(text)?.[0] ?? '';
  const [first = '', ...rest] = wrap(text.slice(lead.length), width - lead.length);
  if (rest.length === 0) return [lead + first];
  return [lead + first, ...wrap(rest.join(' '), width, indent)];
}

/**
 * Splits a configuration's text (`bfc[a=1,b=2] (current)`) after the commas between its options
 * into lines of at most `width` columns; an option longer than that is cut after the commas inside
 * its value, a remark after the name goes to a line of its own when it does not fit.
 */
export function wrapAtCommas(text: string, width: number): string[] {
  if (textWidth(text) <= width) return [text];
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let k = 0; k < text.length; k++) {
    const ch = text[k];
    if (ch === '[') {
      // after the name, when even its first option does not fit beside it
      if (++depth === 1 && start === 0) {
        parts.push(text.slice(0, k + 1));
        start = k + 1;
      }
    } else if (ch === ']') depth--;
    else if (ch === ',' && depth === 1) {
      parts.push(text.slice(start, k + 1));
      start = k + 1;
    } else if (ch === ' ' && depth === 0 && k > start) {
      // before a remark after the name, `(current)`
      parts.push(text.slice(start, k));
      start = k;
    }
  }
  parts.push(text.slice(start));
  // An option longer than the line is cut at the commas inside its value too.
  const pieces = parts.flatMap((p) => (textWidth(p) > width ? p.split(/(?<=,)/) : [p]));
  const lines: string[] = [];
  let line = '';
  for (const p of pieces) {
    if (line !== '' && textWidth(line) + textWidth(p) > width) {
      lines.push(line);
      line = p.trimStart();
    } else {
      line += p;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** The lines of one cell at `width`. */
function breakCell(text: string, col: Column, width: number): string[] {
  const mode = col.wrap ?? 'none';
  if (textWidth(text) <= width) return [text];
  if (typeof mode === 'function') return [mode(text, width)];
  if (mode === 'words') return wrap(text, width);
  if (mode === 'commas') {
    // The lines after the first hang two columns in, under the configuration's name.
    const [first = '', ...rest] = wrapAtCommas(text, Math.max(1, width - 2));
    return [first, ...rest.map((l) => `  ${l}`)];
  }
  return [text];
}

/** The narrowest a cell can be made. */
function cellMin(text: string, col: Column): number {
  const mode = col.wrap ?? 'none';
  const whole = textWidth(text);
  if (typeof mode === 'function') return Math.min(whole, col.minWidth ?? 16);
  if (mode === 'words') return Math.max(0, ...words(text).map((w) => Math.min(textWidth(w), LONG_WORD)));
  if (mode === 'commas') {
    const pieces = text.split(/(?<=,)|(?= \()/).map((p) => textWidth(p.trimStart()));
    return pieces.length > 1 ? Math.min(whole, Math.max(...pieces) + 2) : whole;
  }
  return whole;
}

const headMin = (h: string): number => Math.max(0, ...h.split(' ').map(textWidth));

/**
 * Widths of the columns that fit in `room`, or null when even the narrowest do not. Early, only the
 * columns that cut their cells or break early give way; late, every column and head does.
 */
function fitWidths(cols: readonly Column[], rows: readonly string[][], room: number, late: boolean): number[] | null {
  const natural = cols.map((c, k) => Math.min(c.maxWidth ?? Infinity, Math.max(textWidth(c.head), ...rows.map((r) => textWidth(r[k] ?? '')))));
  const least = cols.map((c, k) =>
    late || c.breakEarly || typeof c.wrap === 'function'
      ? Math.min(
          natural[k] as number,
          Math.max(late ? headMin(c.head) : textWidth(c.head), !late && c.breakEarly ? (c.minWidth ?? 0) : 0, ...rows.map((r) => cellMin(r[k] ?? '', c))),
        )
      : (natural[k] as number),
  );
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  if (sum(least) > room) return null;
  const widths = [...natural];
  let excess = sum(widths) - room;
  // Narrow the widest column that can give, one column of text at a time.
  while (excess > 0) {
    let pick = -1;
    for (let k = 0; k < widths.length; k++) {
      if ((widths[k] as number) > (least[k] as number) && (pick < 0 || (widths[k] as number) > (widths[pick] as number))) pick = k;
    }
    if (pick < 0) break;
    widths[pick] = (widths[pick] as number) - 1;
    excess--;
  }
  return widths;
}

/** Lines of `text` padded to `width` on the side `align` says. */
function pad(text: string, width: number, align: 'left' | 'right' | undefined): string {
  const gap = ' '.repeat(Math.max(0, width - textWidth(text)));
  return align === 'right' ? gap + text : text + gap;
}

/**
 * A table as lines of text, fitted to `layout.width` (default 100 columns): cells broken where their
 * column allows, then columns left out by their `drop` order, with a line that names them.
 */
export function tableLines(columns: readonly Column[], rows: readonly string[][], layout: TableLayout = {}): string[] {
  const width = layout.width ?? DEFAULT_WIDTH;
  const indent = layout.indent ?? '';
  const style = layout.style ?? 'box';
  let shown = columns.map((_, k) => k);
  let widths: number[] | null = null;
  for (;;) {
    const n = shown.length;
    const overhead = textWidth(indent) + (style === 'box' ? 3 * n + 1 : 2 * (n - 1));
    const cols = shown.map((k) => columns[k] as Column);
    const cells = rows.map((r) => shown.map((k) => r[k] ?? ''));
    widths = fitWidths(cols, cells, width - overhead, false);
    if (widths) break;
    // Leave out the column that matters least (the later one of equals).
    let out = -1;
    for (const k of shown) if ((columns[k]?.drop ?? 0) > 0 && (out < 0 || (columns[k]?.drop ?? 0) >= (columns[out]?.drop ?? 0))) out = k;
    if (out < 0) {
      // Nothing left to leave out: every cell and head breaks as far as it can (the narrowest overflow).
      widths = fitWidths(cols, cells, width - overhead, true) ?? cols.map((c, j) => Math.max(headMin(c.head), ...cells.map((r) => cellMin(r[j] ?? '', c))));
      break;
    }
    shown = shown.filter((k) => k !== out);
  }
  const cols = shown.map((k) => columns[k] as Column);
  const heads = cols.map((c, j) => (textWidth(c.head) <= (widths[j] as number) ? [c.head] : wrap(c.head, widths[j] as number)));
  const body = rows.map((r) => shown.map((k, j) => breakCell(r[k] ?? '', cols[j] as Column, widths[j] as number)));
  const lines = style === 'box' ? boxLines(cols, widths, heads, body) : plainLines(cols, widths, heads, body);
  const left = columns.filter((_, k) => !shown.includes(k)).map((c) => c.head);
  if (left.length > 0) {
    const all = columns.map((c, k) => Math.max(textWidth(c.head), ...rows.map((r) => textWidth(r[k] ?? ''))));
    const whole = textWidth(indent) + all.reduce((a, b) => a + b, 0) + (style === 'box' ? 3 * columns.length + 1 : 2 * (columns.length - 1));
    lines.push(...wrapHanging(`(left out at ${width} columns: ${left.join(', ')}; --width ${whole} or --format json shows them)`, width - textWidth(indent), ' '));
  }
  return lines.map((l) => indent + l);
}

function boxLines(cols: readonly Column[], widths: number[], heads: string[][], body: string[][][]): string[] {
  const headCells = heads.map((h, j) => h.map((l) => pad(l, widths[j] as number, cols[j]?.align)));
  return drawnDirectly(cols, widths, headCells, body) ?? cliTableLines(cols, widths, headCells, body);
}

/**
 * Whether a line's display width is its count of code points for cli-table3 as for us: printable
 * ASCII and the characters reports use that no terminal draws wide and no emoji pattern matches
 * (Latin-1 but © and ®, dashes and ellipsis, super- and subscripts, ← ↑ → ↓, ≤ ≥, box drawing and
 * blocks).
 */
function plainWidth(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) continue;
    if (c >= 0xa0 && c <= 0x2ff && c !== 0xa9 && c !== 0xae) continue;
    if ((c >= 0x2010 && c <= 0x2027) || (c >= 0x2070 && c <= 0x209f) || (c >= 0x2190 && c <= 0x2193) || c === 0x2264 || c === 0x2265) continue;
    if (c >= 0x2500 && c <= 0x259f) continue;
    return false;
  }
  return true;
}

/**
 * The box table as cli-table3 draws it with memsim's settings (no rules between rows, one space of
 * padding, cells already broken to their widths), drawn here when every line is plain (see
 * {@link plainWidth}) and fits its column; null otherwise (cli-table3 then draws it: colours, wide
 * characters and truncation as it does them).
 */
export function drawnDirectly(cols: readonly Column[], widths: number[], heads: string[][], body: string[][][]): string[] | null {
  const rows = [heads, ...body];
  for (const row of rows) {
    for (let j = 0; j < row.length; j++) {
      for (const line of row[j] as string[]) if (!plainWidth(line) || line.length > (widths[j] as number)) return null;
    }
  }
  const rule = (l: string, m: string, r: string): string => l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r;
  const out = [rule('┌', '┬', '┐')];
  for (const row of rows) {
    const height = Math.max(1, ...row.map((c) => c.length));
    for (let i = 0; i < height; i++) {
      let line = '│';
      for (let j = 0; j < row.length; j++) line += ` ${pad(row[j]?.[i] ?? '', widths[j] as number, cols[j]?.align)} │`;
      out.push(line);
    }
  }
  out.push(rule('└', '┴', '┘'));
  return out;
}

/** cli-table3, loaded only for the tables it must draw (most reports never load it). */
export function cliTableLines(cols: readonly Column[], widths: number[], heads: string[][], body: string[][][]): string[] {
  const Table = createRequire(import.meta.url)('cli-table3') as typeof import('cli-table3');
  const t = new Table({
    head: heads.map((h) => h.join('\n')),
    chars: TABLE_CHARS,
    style: { head: [], border: [], 'padding-left': 1, 'padding-right': 1 },
    colAligns: cols.map((c) => c.align ?? 'left'),
    colWidths: widths.map((w) => w + 2),
  });
  for (const row of body) t.push(row.map((cell) => cell.join('\n')));
  return t.toString().split('\n');
}

function plainLines(cols: readonly Column[], widths: number[], heads: string[][], body: string[][][]): string[] {
  const out: string[] = [];
  const last = cols.length - 1;
  const emit = (cells: string[][]): void => {
    const height = Math.max(1, ...cells.map((c) => c.length));
    for (let i = 0; i < height; i++) {
      out.push(cells.map((c, j) => (j === last && cols[j]?.align !== 'right' ? (c[i] ?? '') : pad(c[i] ?? '', widths[j] as number, cols[j]?.align))).join('  ').trimEnd());
    }
  };
  emit(heads);
  for (const row of body) emit(row);
  return out;
}

// No rule between body rows: compact tables that still line up.
const TABLE_CHARS = {
  'top': '─', 'top-mid': '┬', 'top-left': '┌', 'top-right': '┐',
  'bottom': '─', 'bottom-mid': '┴', 'bottom-left': '└', 'bottom-right': '┘',
  'left': '│', 'left-mid': '', 'mid': '', 'mid-mid': '', 'right': '│', 'right-mid': '', 'middle': '│',
};
