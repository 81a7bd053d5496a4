import { UsageError } from '../errors.js';
import type { Trace, TraceStacks } from '../trace/model.js';
import type { GroupBy } from './types.js';

/** The key of allocations without a tag. */
export const NO_TAG = '(no tag)';
/** The key of allocations without a recorded user stack. */
export const NO_STACK = '(no stack)';
/** The key of allocations without a tag or stack that were live when a recorded window opened. */
export const BEFORE_WINDOW = '(live when the window opened)';
/** Between the frames of a `stack` key, innermost first. */
export const STACK_JOINER = ' ← ';

/** Allocation -> group, as integers: a group-by is a pass over them. */
export interface GroupKeys {
  /** Key ids are below this. */
  readonly size: number;
  /** The key id of allocation `a`. */
  keyOf(a: number): number;
  /** The text of key id `k`. */
  name(k: number): string;
  /** The user stack (innermost first) of allocation `a`, when the trace has stacks. */
  framesOf?(a: number): string[];
}

/** Throws the usage error of a grouping the trace cannot give (a stack key on a trace without stacks). */
export function checkGroupBy(trace: Trace, groupBy: GroupBy | undefined): void {
  if (groupBy === undefined || groupBy === 'tag' || trace.stacks) return;
  throw new UsageError(`--group-by ${groupBy} needs call stacks (PyTorch snapshots record them); ${trace.path} has none: --group-by tag groups by its tags`);
}

/** The frames of stack `s`, innermost first. */
function stackFrames(st: TraceStacks, s: number): string[] {
  const out: string[] = [];
  for (let k = st.runStart[s] as number; k < (st.runStart[s + 1] as number); k++) out.push(st.frames[st.frameRun[k] as number] as string);
  return out;
}

/**
 * The keys of `groupBy` on `trace`, each distinct key an integer: tags are the trace's tag indices;
 * frames, files and stacks are computed once per distinct stack, never per allocation.
 */
export function groupKeys(trace: Trace, groupBy: GroupBy, stackDepth: number): GroupKeys {
  const keys = innerKeys(trace, groupBy, stackDepth);
  if (trace.initialEvents === 0) return keys;
  // Allocations made before a recorded window opened often have no stack or tag (the recording had
  // not begun): they get a key of their own rather than joining those of the window.
  const { allocEvent, initialEvents } = trace;
  const before = keys.size;
  const inner = keys.keyOf;
  const name = keys.name;
  return {
    ...keys,
    size: before + 1,
    keyOf: (a) => {
      const k = inner(a);
      return k === 0 && (allocEvent[a] as number) < initialEvents ? before : k;
    },
    name: (k) => (k === before ? BEFORE_WINDOW : name(k)),
  };
}

function innerKeys(trace: Trace, groupBy: GroupBy, stackDepth: number): GroupKeys {
  const { allocEvent } = trace;
  const st = trace.stacks;
  const framesOf = st ? (a: number) => stackFrames(st, st.ofAllocation[a] as number) : undefined;
  if (groupBy === 'tag') {
    const tag = trace.tag;
    const tags = trace.tags;
    return {
      size: Math.max(1, tags.length),
      keyOf: tag ? (a) => tag[allocEvent[a] as number] as number : () => 0,
      name: (k) => (k === 0 ? NO_TAG : (tags[k] as string)),
      ...(framesOf ? { framesOf } : {}),
    };
  }
  checkGroupBy(trace, groupBy);
  if (!st || !framesOf) throw new Error('internal error: stacks expected');
  const stacks = st.runStart.length - 1;
  const keyOfStack = new Uint32Array(Math.max(1, stacks));
  let names: string[];
  if (groupBy === 'frame' || groupBy === 'file') {
    for (let s = 1; s < stacks; s++) {
      const first = st.frameRun[st.runStart[s] as number] as number;
      keyOfStack[s] = groupBy === 'frame' ? first : (st.frameFile[first] as number);
    }
    names = groupBy === 'frame' ? st.frames : st.files;
  } else {
    names = [''];
    const index = new Map<string, number>();
    for (let s = 1; s < stacks; s++) {
      const text = stackFrames(st, s).slice(0, Math.max(1, stackDepth)).join(STACK_JOINER);
      let k = index.get(text);
      if (k === undefined) {
        k = names.length;
        names.push(text);
        index.set(text, k);
      }
      keyOfStack[s] = k;
    }
  }
  const of = st.ofAllocation;
  return {
    size: Math.max(1, names.length),
    keyOf: (a) => keyOfStack[of[a] as number] as number,
    name: (k) => (k === 0 ? NO_STACK : (names[k] as string)),
    framesOf,
  };
}
