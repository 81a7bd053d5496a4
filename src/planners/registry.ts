import { UsageError } from '../errors.js';
import type { PlanKind, PlannerDefinition } from './types.js';

const planners: PlannerDefinition[] = [];

/** The pseudo-strategy that runs every other one and searches for the optimum. */
export const BEST = 'best';

/** Registers a planner (once per name and kind). */
export function registerPlanner(def: PlannerDefinition): void {
  if (planners.some((p) => p.name === def.name && p.kind === def.kind)) {
    throw new Error(`planner "${def.name}" (${def.kind}) is registered twice`);
  }
  planners.push(def);
}

/** Every registered planner, in registration order (`best` is not one: it combines them). */
export function listPlanners(): readonly PlannerDefinition[] {
  return planners;
}

/** Strategy names users can ask for, `best` first. */
export function strategyNames(): string[] {
  return [BEST, ...new Set(planners.map((p) => p.name))];
}

/** What a `--strategy` selection asks for: planners, and whether `best` is in it. */
export interface StrategySelection {
  planners: PlannerDefinition[];
  best: boolean;
}

/**
 * Parses a strategy selection: `all`, or a comma-separated list of names, each optionally with a
 * kind (`greedy-by-size:offsets`). A name alone selects every kind it has. Unknown names are a usage
 * error listing the known ones.
 */
export function selectStrategies(spec: string): StrategySelection {
  const parts = spec.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length === 0) throw new UsageError('--strategy: give a strategy name or "all"');
  const chosen = new Set<PlannerDefinition>();
  let best = false;
  for (const part of parts) {
    if (part === 'all') {
      planners.forEach((p) => chosen.add(p));
      best = true;
      continue;
    }
    if (part === BEST) {
      best = true;
      continue;
    }
    const [name, kind] = part.split(':') as [string, string | undefined];
    if (kind !== undefined && kind !== 'objects' && kind !== 'offsets') {
      throw new UsageError(`--strategy: unknown kind "${kind}" in "${part}" (objects or offsets)`);
    }
    const matches = planners.filter((p) => p.name === name && (kind === undefined || p.kind === (kind as PlanKind)));
    if (matches.length === 0) {
      const known = planners.some((p) => p.name === name);
      throw new UsageError(
        known
          ? `--strategy: "${name}" has no ${kind} kind`
          : `--strategy: unknown strategy "${name}" (known: all, ${strategyNames().join(', ')})`,
      );
    }
    matches.forEach((p) => chosen.add(p));
  }
  // Registry order, whatever order the user typed.
  return { planners: planners.filter((p) => chosen.has(p)), best };
}
