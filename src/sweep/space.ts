/**
 * The what-if spaces of `memsim tune`: for each allocator, the options in force now (the current
 * configuration), the keys and values its registry entry declares (narrowed or widened by
 * `--space`), and the configurations they stand for, each named by its canonical text.
 */
import { getAllocator, listAllocators, resolveOptions } from '../allocators/index.js';
import type { AllocatorDefinition, WhatIfKey } from '../allocators/types.js';
import { UsageError } from '../errors.js';
import type { Trace } from '../trace/model.js';
import { formatConfiguration, type OptionText, parseConfiguration, splitConfigurations } from '../util/configuration.js';

/** Spaces with more points than this are searched, not enumerated. */
export const MAX_ENUMERATED_POINTS = 64;

/** One allocator's part of a tuning run. */
export interface AllocatorSpace {
  def: AllocatorDefinition;
  /** Options the user said are in force now (`--current`), as text; they name every row. */
  given: Record<string, OptionText>;
  /** Every option with its effective value in the current configuration. */
  current: Record<string, unknown>;
  /** The keys searched and their values (empty for a reference row). */
  keys: WhatIfKey[];
  /** Points of the full grid (the product of the value counts); 1 for a reference row. */
  points: number;
  /** True for allocators with nothing to tune (`naive`, `recorded`). */
  isReference: boolean;
}

/** A point of a space: the options that differ from the current configuration, in key order. */
export type Point = Record<string, OptionText>;

/** A `--space` flag: `key=v1,v2` (every allocator with that option) or `alloc.key=v1,v2`. */
export interface SpaceOverride {
  allocator: string | null;
  key: string;
  values: OptionText[];
}

/** Parses `--space` flags; values split at commas outside brackets (`[256:1,>:8]` is one value). */
export function parseSpaceFlags(flags: readonly string[]): SpaceOverride[] {
  return flags.map((flag) => {
    const eq = flag.indexOf('=');
    if (eq <= 0) throw new UsageError(`--space expects key=value1,value2 or allocator.key=value1,value2, got "${flag}"`);
    const lhs = flag.slice(0, eq).trim();
    const dot = lhs.indexOf('.');
    const values = splitConfigurations(flag.slice(eq + 1));
    if (values.length === 0) throw new UsageError(`--space ${lhs}: no value given`);
    if (new Set(values).size !== values.length) throw new UsageError(`--space ${lhs}: a value is listed twice`);
    return dot > 0 ? { allocator: lhs.slice(0, dot), key: lhs.slice(dot + 1), values } : { allocator: null, key: lhs, values };
  });
}

/** The option's typed value for `text`, or a usage error in the allocator's words. */
export function optionValue(def: AllocatorDefinition, key: string, text: OptionText): unknown {
  const spec = def.options[key];
  if (!spec) throw new UsageError(`allocator "${def.name}" has no option "${key}" (its options: ${Object.keys(def.options).join(', ') || 'none'})`);
  const parsed = spec.schema.safeParse(text);
  if (!parsed.success) throw new UsageError(`allocator "${def.name}", option ${key}=${text}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The allocators `all` stands for on this trace: every registered one that can run on it. */
export function allAllocators(trace: Trace): string[] {
  return listAllocators()
    .filter((d) => !d.needsRecordedHistory || trace.recorded)
    .map((d) => d.name);
}

/**
 * The allocators tuned when none are named: the one that recorded the history (and the recording
 * itself as a reference row) when the trace is a snapshot or a log of a simulated allocator, else all.
 */
export function defaultAllocators(trace: Trace): string[] {
  const rec = trace.recorded?.allocator;
  const sim = rec === undefined ? undefined : listAllocators().find((d) => d.recordedAs?.includes(rec));
  if (!sim) return allAllocators(trace);
  return [sim.name, ...listAllocators().filter((d) => d.needsRecordedHistory).map((d) => d.name)];
}

/**
 * Builds each allocator's space, with the `--space` flags applied. `currents` (`--current`) state
 * the options in force now where the trace does not (e.g. `bfc[allow_growth=true]`).
 */
export function buildSpaces(trace: Trace, names: readonly string[], overrides: readonly SpaceOverride[], currents: readonly string[] = []): AllocatorSpace[] {
  if (new Set(names).size !== names.length) throw new UsageError(`--allocators: an allocator is listed twice`);
  const stated = new Map<string, Record<string, OptionText>>();
  for (const text of currents) {
    const c = parseConfiguration(text);
    if (!names.includes(c.name)) throw new UsageError(`--current ${text}: "${c.name}" is not tuned here (tuned: ${names.join(', ')})`);
    if (stated.has(c.name)) throw new UsageError(`--current: ${c.name} is given twice`);
    stated.set(c.name, c.options);
  }
  const spaces = names.map((name): AllocatorSpace => {
    if (name.includes('[')) throw new UsageError(`--allocators: tune takes allocator names ("${name}" is a configuration; use --space to choose its values, --current to state its options now)`);
    const def = getAllocator(name);
    if (def.needsRecordedHistory && !trace.recorded) throw new UsageError(`allocator "${name}" needs a trace with a recorded history, and ${trace.path} has none`);
    const given = stated.get(name) ?? {};
    if (!def.whatIf && Object.keys(given).length > 0) throw new UsageError(`--current: ${name} has nothing to tune (it is a reference row)`);
    const current = resolveOptions(def, given, trace).values;
    const keys = def.whatIf ? def.whatIf.keys(trace, current).map((k) => ({ key: k.key, values: [...k.values] })) : [];
    return { def, given, current, keys, points: 1, isReference: !def.whatIf };
  });
  for (const o of overrides) {
    const targets = spaces.filter((s) => (o.allocator === null ? o.key in s.def.options && !s.isReference : s.def.name === o.allocator));
    if (targets.length === 0) {
      const where = o.allocator === null ? `no tuned allocator has an option "${o.key}"` : `"${o.allocator}" is not tuned here (tuned: ${names.join(', ')})`;
      throw new UsageError(`--space ${o.allocator ? `${o.allocator}.` : ''}${o.key}: ${where}`);
    }
    for (const s of targets) {
      if (s.isReference) throw new UsageError(`--space ${s.def.name}.${o.key}: ${s.def.name} has nothing to tune (it is a reference row)`);
      for (const v of o.values) optionValue(s.def, o.key, v);
      const k = s.keys.find((x) => x.key === o.key);
      if (k) k.values = [...o.values];
      else s.keys.push({ key: o.key, values: [...o.values] });
    }
  }
  for (const s of spaces) s.points = s.keys.reduce((n, k) => n * k.values.length, 1);
  return spaces;
}

/**
 * The configuration text of a point: the options stated as current, then those the point changes
 * (`caching[expandable_segments=true]`; `caching` for the current configuration when none is stated).
 * It names the configuration whole, so that `replay --allocator` runs exactly that row.
 */
export function pointName(space: AllocatorSpace, point: Point): string {
  return formatConfiguration({ name: space.def.name, options: { ...space.given, ...point } });
}

/**
 * The point for an assignment of values to keys: keys whose value is the current one are left out,
 * the others kept in the order of the space's keys.
 */
export function makePoint(space: AllocatorSpace, assignment: Record<string, OptionText>): Point {
  const out: Point = {};
  for (const k of space.keys) {
    const text = assignment[k.key];
    if (text === undefined) continue;
    if (!same(optionValue(space.def, k.key, text), space.current[k.key])) out[k.key] = text;
  }
  return out;
}

/** Every point of the grid, the current configuration first, without repeats, in grid order. */
export function enumeratePoints(space: AllocatorSpace): Point[] {
  const out: Point[] = [{}];
  const seen = new Set([pointName(space, {})]);
  const walk = (k: number, assignment: Record<string, OptionText>): void => {
    if (k === space.keys.length) {
      const p = makePoint(space, assignment);
      const name = pointName(space, p);
      if (!seen.has(name)) {
        seen.add(name);
        out.push(p);
      }
      return;
    }
    const key = space.keys[k] as WhatIfKey;
    for (const v of key.values) walk(k + 1, { ...assignment, [key.key]: v });
  };
  walk(0, {});
  return out;
}

/** True when the space is searched rather than enumerated. */
export function isSearched(space: AllocatorSpace, exhaustive: boolean): boolean {
  return !exhaustive && space.points > MAX_ENUMERATED_POINTS;
}
