/**
 * How a replay of a recorded history (a PyTorch snapshot, a TensorFlow log) starts: from the
 * recorded layout of the moment the window opened (right for fidelity), or fresh, with the window's
 * initial live blocks allocated through the simulated allocator first (right for what-ifs: a setting
 * then shapes the layout from the first byte). Decided here, once for every allocator; an allocator
 * only obeys `AllocatorContext.start`.
 */
import { resolveOptions } from '../allocators/registry.js';
import type { AllocatorDefinition } from '../allocators/types.js';
import { UsageError } from '../errors.js';
import { originFormat, type Trace } from '../trace/model.js';

/** `recorded`: from the recorded layout; `fresh`: the initial live blocks through the allocator first. */
export type StartMode = 'recorded' | 'fresh';

/** The start of one replay of a recorded history, and why (the `start` section of the report). */
export interface StartChoice {
  mode: StartMode;
  /** True when `--start` asked for it; false when it is the default. */
  isAsked: boolean;
  /** Why, in words. */
  reason: string;
  /** Options whose value differs from the recording's settings (`key=value`, the replay's value). */
  differingOptions: string[];
}

/** The `--start` values, for help and validation. */
export const START_MODES: readonly StartMode[] = ['recorded', 'fresh'];

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function optionText(key: string, v: unknown): string {
  return `${key}=${v === null ? 'none' : typeof v === 'string' && v === '' ? '""' : String(v)}`;
}

/** Whether the recorded history holds a state at the window's opening (live blocks or segments). */
function hasStartState(trace: Trace): boolean {
  return trace.initialEvents > 0 || (trace.recorded?.initialSegments.length ?? 0) > 0;
}

/**
 * The start of a replay of `trace` through `def` with the effective option values `values`, given
 * what `--start` asked for (undefined: the default). Null when the trace records no allocator (a
 * generic trace: every replay starts from nothing). The default is `recorded` when the allocator
 * simulates the recorded one and every option equals the recording's settings, `fresh` otherwise.
 * Asking for a start the allocator cannot make is a usage error.
 */
export function chooseStart(def: AllocatorDefinition, values: Record<string, unknown>, trace: Trace, asked?: StartMode): StartChoice | null {
  const rec = trace.recorded;
  if (!rec) return null;
  if (def.needsRecordedHistory) {
    if (asked === 'fresh') throw new UsageError(`--start fresh: the "${def.name}" allocator replays the recorded history itself, from its recorded start`);
    return { mode: 'recorded', isAsked: asked !== undefined, reason: `the ${def.name} allocator replays the recorded history itself`, differingOptions: [] };
  }
  if (!(def.recordedAs ?? []).includes(rec.allocator)) {
    if (asked === 'recorded') {
      throw new UsageError(`--start recorded: "${def.name}" does not simulate the recorded ${rec.allocator} allocator and cannot take its layout (--start fresh, or leave --start out)`);
    }
    return { mode: 'fresh', isAsked: asked !== undefined, reason: `${def.name} does not simulate the recorded ${rec.allocator} allocator`, differingOptions: [] };
  }
  const recording = resolveOptions(def, {}, trace).values;
  const defaults = resolveOptions(def, {}).values;
  const unstated = def.unstatedInRecording ?? [];
  const changed = Object.keys(def.options).filter((k) => !same(values[k], recording[k]));
  // A value the recording may hold without stating it, given where the recording shows the default.
  const assumed = changed.filter((k) => unstated.includes(k) && same(recording[k], defaults[k]));
  const differing = changed.filter((k) => !assumed.includes(k)).map((k) => optionText(k, values[k]));
  const taken =
    assumed.length > 0
      ? `; ${assumed.map((k) => optionText(k, values[k])).join(', ')} taken as the recording's own (a recording does not state ${assumed.length === 1 ? 'it' : 'them'})`
      : '';
  const differ = (differing.length > 0 ? `the options differ from the recording's settings (${differing.join(', ')})` : "the options equal the recording's settings") + taken;
  if (asked !== undefined) return { mode: asked, isAsked: true, reason: `--start ${asked}; ${differ}`, differingOptions: differing };
  return { mode: differing.length > 0 ? 'fresh' : 'recorded', isAsked: false, reason: differ, differingOptions: differing };
}

/** The report note that says how the replay started and why, or undefined when there is nothing to say. */
export function startNote(choice: StartChoice | null, trace: Trace, allocatorName: string): string | undefined {
  if (!choice || !hasStartState(trace)) return undefined;
  const n = trace.initialEvents;
  const blocks = `${n} allocation${n === 1 ? '' : 's'} live when the window opened`;
  if (choice.mode === 'recorded') {
    const other = choice.isAsked || choice.differingOptions.length > 0 ? '' : '; --start fresh replays them through the allocator instead';
    return `start: recorded (${choice.reason}): the replay starts from the recorded segments and the ${blocks}, at their recorded addresses${other}.`;
  }
  const order = originFormat(trace) === 'pytorch-snapshot' ? 'in address order (a snapshot does not record their order)' : 'in the order the trace lists them';
  const other = choice.isAsked ? '' : '; --start recorded keeps the recorded layout';
  return `start: fresh (${choice.reason}): the ${blocks} were allocated through ${allocatorName} first, ${order}, without the recorded segments${other}.`;
}
