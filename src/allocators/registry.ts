
import { UsageError } from '../errors.js';
import type { Trace } from '../trace/model.js';
import { parseConfiguration, withMoreOptions } from '../util/configuration.js';
import { ALLOCATOR_CATALOG } from './catalog.js';
import type { OptionSpec } from './options.js';
import type { AllocatorDefinition } from './types.js';

const registry = new Map<string, AllocatorDefinition>();

/** The names of memsim's own allocators, in their listing order; others register after them. */
const BUILT_IN = Object.keys(ALLOCATOR_CATALOG);

/** Registers an allocator under its name (once). */
export function registerAllocator<S extends Record<string, OptionSpec<unknown>>>(def: AllocatorDefinition<S>): void {
  if (registry.has(def.name)) throw new Error(`allocator "${def.name}" is registered twice`);
  registry.set(def.name, def as unknown as AllocatorDefinition);
}

/** The names of every allocator known, loaded or not: memsim's own, then any others registered. */
export function allocatorNames(): string[] {
  return [...new Set([...BUILT_IN, ...registry.keys()])];
}

/** True when an allocator of that name is registered. */
export function isRegistered(name: string): boolean {
  return registry.has(name);
}

/**
 * Loads and registers memsim's allocator `name` when it is one and not yet registered (an unknown
 * name is left for {@link getAllocator} to report with the list of known ones).
 */
export async function loadAllocator(name: string): Promise<void> {
  const load = Object.hasOwn(ALLOCATOR_CATALOG, name) ? ALLOCATOR_CATALOG[name] : undefined;
  if (!load || registry.has(name)) return;
  const def = await load();
  if (!registry.has(name)) registry.set(name, def);
}

/** Loads and registers every allocator of memsim's catalog. */
export async function loadAllAllocators(): Promise<void> {
  await Promise.all(BUILT_IN.map(loadAllocator));
}

/** Order of listing: the built-in allocators first in their order, then the others as registered. */
function rank(name: string): number {
  const k = BUILT_IN.indexOf(name);
  return k < 0 ? BUILT_IN.length : k;
}

/** Every registered allocator: memsim's own in their order, then the others in registration order. */
export function listAllocators(): AllocatorDefinition[] {
  return [...registry.values()].sort((a, b) => rank(a.name) - rank(b.name));
}

/** The allocator called `name`, or a usage error listing the known ones. */
export function getAllocator(name: string): AllocatorDefinition {
  const def = registry.get(name);
  if (!def) {
    const known = [...new Set([...BUILT_IN, ...registry.keys()])];
    throw new UsageError(`unknown allocator "${name}" (known: ${known.join(', ')})`);
  }
  return def;
}

/**
 * The allocator a configuration names (`caching` or `caching[expandable_segments=true]`) and its
 * options: those in the brackets plus `given` (e.g. `--option` flags).
 */
export function allocatorConfiguration(text: string, given: Record<string, unknown> = {}): { def: AllocatorDefinition; options: Record<string, unknown> } {
  const c = parseConfiguration(text);
  return { def: getAllocator(c.name), options: withMoreOptions(c, given) };
}

/** The effective options of one run, and where the non-default ones came from. */
export interface ResolvedOptions {
  values: Record<string, unknown>;
  /** Notes for the report, e.g. "defaults taken from the snapshot's allocator_settings". */
  notes: string[];
}

/**
 * Validates user options (typed values or `--option` text) against an allocator's schema and fills
 * in every default, so that reports can list every option with its effective value.
 */
export function resolveOptions(def: AllocatorDefinition, given: Record<string, unknown>, trace?: Trace): ResolvedOptions {
  const known = Object.keys(def.options);
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) {
      const list = known.length > 0 ? known.join(', ') : 'none';
      throw new UsageError(`allocator "${def.name}" has no option "${key}" (its options: ${list})`);
    }
  }
  const notes: string[] = [];
  const fromTrace = trace && def.defaultsFromTrace ? def.defaultsFromTrace(trace) : undefined;
  if (fromTrace) notes.push(fromTrace.note);
  const values: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(def.options)) {
    const raw = key in given ? given[key] : fromTrace && key in fromTrace.values ? (fromTrace.values as Record<string, unknown>)[key] : undefined;
    if (raw === undefined) {
      values[key] = spec.default;
      continue;
    }
    const parsed = spec.schema.safeParse(raw);
    if (!parsed.success) {
      const msg = parsed.error.issues.map((i) => i.message).join('; ');
      throw new UsageError(`allocator "${def.name}", option ${key}=${String(raw)}: ${msg}`);
    }
    values[key] = parsed.data;
  }
  return { values, notes };
}

/** Describes an option's kind for help text. */
export function describeOptionKind(spec: OptionSpec<unknown>): string {
  if (spec.kind === 'enum' && spec.values) return spec.values.join('|');
  return spec.kind;
}

