/**
 * A configuration: an allocator (or planner) name with options, written `NAME[key=value,key=value]`
 * wherever a name is accepted (`--allocator`, `--allocators`, `--baseline` rows, `tune` rows). It is a
 * plain value: {@link formatConfiguration} and {@link parseConfiguration} round-trip through it, and
 * the text is the row's name in every report.
 */
import { UsageError } from '../errors.js';

/** An option value as a configuration holds it: the text a user writes after `key=`. */
export type OptionText = string;

/** A name and the options given with it, in the order given. */
export interface Configuration {
  /** The registered name: `caching`, `bfc`, `plan:best`… */
  name: string;
  /** Options as text (`expandable_segments: 'true'`), validated later by the part that owns the name. */
  options: Record<string, OptionText>;
}

const KEY = /^[A-Za-z_][\w.-]*$/;

/** Positions of the commas of `text` outside any brackets. */
function topLevelCommas(text: string): number[] {
  const out: number[] = [];
  let depth = 0;
  for (let k = 0; k < text.length; k++) {
    const ch = text[k];
    if (ch === '[') depth++;
    else if (ch === ']') depth--;
    else if (ch === ',' && depth === 0) out.push(k);
  }
  return out;
}

function checkBalanced(text: string, whole: string): void {
  let depth = 0;
  for (const ch of text) {
    if (ch === '[') depth++;
    else if (ch === ']' && --depth < 0) break;
  }
  if (depth !== 0) throw new UsageError(`"${whole}": unbalanced brackets (write NAME[key=value,key=value])`);
}

/**
 * Splits a list of configurations at the commas outside brackets:
 * `caching,caching[max_split_size_mb=256,expandable_segments=true]` is two entries.
 */
export function splitConfigurations(list: string): string[] {
  checkBalanced(list, list);
  const cuts = [-1, ...topLevelCommas(list), list.length];
  const out: string[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const part = list.slice((cuts[k] as number) + 1, cuts[k + 1]).trim();
    if (part !== '') out.push(part);
  }
  return out;
}

/**
 * Splits the inside of the brackets into `key=value` pairs. A comma separates pairs only outside
 * brackets and only when a `key=` follows it, so values keep their own commas
 * (`conf=expandable_segments:True,max_split_size_mb:128`, `roundup_power2_divisions=[256:1,>:8]`).
 */
function splitPairs(inner: string, whole: string): [string, string][] {
  const pieces: string[] = [];
  let start = 0;
  for (const comma of topLevelCommas(inner)) {
    const rest = inner.slice(comma + 1);
    if (/^\s*[A-Za-z_][\w.-]*\s*=/.test(rest)) {
      pieces.push(inner.slice(start, comma));
      start = comma + 1;
    }
  }
  pieces.push(inner.slice(start));
  const pairs: [string, string][] = [];
  for (const piece of pieces) {
    if (piece.trim() === '') continue;
    const eq = piece.indexOf('=');
    const key = eq < 0 ? '' : piece.slice(0, eq).trim();
    if (!KEY.test(key)) throw new UsageError(`"${whole}": expected key=value inside the brackets, got "${piece.trim()}"`);
    pairs.push([key, piece.slice(eq + 1).trim()]);
  }
  return pairs;
}

/** Parses `NAME` or `NAME[key=value,…]`; a usage error names the text when it is malformed. */
export function parseConfiguration(text: string): Configuration {
  const whole = text.trim();
  const open = whole.indexOf('[');
  if (open < 0) {
    if (whole === '' || /[\],=]/.test(whole)) throw new UsageError(`"${text}" is not a name or NAME[key=value,…]`);
    return { name: whole, options: {} };
  }
  const name = whole.slice(0, open).trim();
  if (name === '' || /[\],=]/.test(name) || !whole.endsWith(']')) {
    throw new UsageError(`"${text}" is not NAME[key=value,…] (the options go in brackets after the name)`);
  }
  const inner = whole.slice(open + 1, -1);
  checkBalanced(inner, whole);
  const options: Record<string, OptionText> = {};
  for (const [key, value] of splitPairs(inner, whole)) {
    if (key in options) throw new UsageError(`"${whole}": option ${key} is given twice`);
    options[key] = value;
  }
  return { name, options };
}

/** The text of an option value: `none` for null, `true`/`false`, numbers as JavaScript writes them. */
export function optionText(value: unknown): OptionText {
  if (value === null || value === undefined) return 'none';
  return String(value);
}

/** `NAME`, or `NAME[key=value,…]` with the options in their order: the configuration's canonical text. */
export function formatConfiguration(c: Configuration): string {
  const pairs = Object.entries(c.options).map(([k, v]) => `${k}=${v}`);
  return pairs.length === 0 ? c.name : `${c.name}[${pairs.join(',')}]`;
}

/** A configuration's canonical text from its text (whitespace and empty brackets gone). */
export function canonicalConfiguration(text: string): string {
  return formatConfiguration(parseConfiguration(text));
}

/**
 * The options of a configuration with more given apart (`--option`): both apply; a key set in both
 * places is a usage error rather than a silent choice.
 */
export function withMoreOptions(c: Configuration, given: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...c.options };
  for (const [key, value] of Object.entries(given)) {
    if (key in c.options) throw new UsageError(`${formatConfiguration(c)}: option ${key} is set both in the brackets and by --option`);
    out[key] = value;
  }
  return out;
}
