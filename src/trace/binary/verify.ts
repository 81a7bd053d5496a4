import { ProblemList } from '../../errors.js';
import { formatCount } from '../../util/bytes.js';
import { MAX_ALIGN_BYTES, OP_ALLOC, OP_FREE, type Trace } from '../model.js';
import { S } from './format.js';

const MAX_SIZE = Number.MAX_SAFE_INTEGER;

/**
 * Checks a loaded binary trace's columns against each other and against its header, as the text
 * readers' checks guarantee for the traces they build: op codes, allocations numbered in the order of
 * their alloc events, every free of an allocation made before it and not yet freed (each allocation's
 * alloc and free events in `allocev` and `freeev`), sizes that are exact integers, frees carrying
 * their allocation's size, tags and alignments in range, ids and stacks within their tables; then the
 * summary figures recomputed from the events equal the header's. One pass over the events with no
 * allocation of memory; throws a TraceError naming the event and field (up to 20 problems).
 */
export function verifyTrace(t: Trace, idPrefixes: number): void {
  const problems = new ProblemList();
  const figures = new Float64Array(6);
  // The fast scan finds whether any event is wrong; only then does the slow one say what and where.
  if (!scanEvents(t, figures)) describeEvents(t, problems);
  problems.throwIfAny();
  const [next, frees, live, liveAllocs, peak, peakEvent] = Array.from(figures) as [number, number, number, number, number, number];
  const file = t.path;
  const allocations = t.allocCount;
  const fail = (section: string, message: string): void => problems.add({ file, entry: `section "${section}"`, message });
  if (next !== allocations) fail(S.alloc, `the events make ${formatCount(next)} allocations, the header says ${formatCount(allocations)}`);
  // Each free event found its own entry in freeev; any other entry must say "never freed".
  const freed = countFreed(t.freeEvent, allocations);
  if (freed !== frees) fail(S.freeEvent, `${formatCount(freed)} allocations have a free event, the events free ${formatCount(frees)}`);
  verifyIds(t, idPrefixes, fail);
  verifyStacks(t, fail);
  const sum = t.summary;
  const found = { events: t.length, allocs: next, frees, peakLiveBytes: peak, peakLiveEvent: peakEvent, finalLiveBytes: live, finalLiveAllocs: liveAllocs };
  for (const [k, v] of Object.entries(found)) {
    const stated = sum[k as keyof typeof found];
    if (stated !== v) fail(S.header, `field "summary.${k}": ${stated}, but the events give ${v}`);
  }
  problems.throwIfAny();
}

/** How many of the first `n` allocations have a free event (a loop of its own: see scanEvents). */
function countFreed(freeEvent: Int32Array, n: number): number {
  let freed = 0;
  for (let k = 0; k < n; k++) if (freeEvent[k] !== -1) freed++;
  return freed;
}

function verifyIds(t: Trace, idPrefixes: number, fail: (section: string, message: string) => void): void {
  const ids = t.ids.shareable();
  if (ids.prefixOf) {
    for (let k = 0; k < ids.prefixOf.length; k++) {
      if ((ids.prefixOf[k] as number) >= idPrefixes) return fail(S.idPrefix, `allocation ${k} names prefix ${ids.prefixOf[k]} of ${idPrefixes}`);
    }
  }
  if (ids.values) return;
  const offs = ids.offs;
  if (offs[0] !== 0 && t.allocCount > 0) return fail(S.idOffsets, `the first id starts at ${offs[0]}, not 0`);
  for (let k = 0; k < t.allocCount; k++) {
    if ((offs[k + 1] as number) < (offs[k] as number)) return fail(S.idOffsets, `allocation ${k + 1}'s id starts before allocation ${k}'s`);
  }
}

function verifyStacks(t: Trace, fail: (section: string, message: string) => void): void {
  const st = t.stacks;
  if (!st) return;
  const stacks = st.runStart.length - 1;
  if (stacks < 1 || st.runStart[0] !== 0) return fail(S.stackRunStart, 'expected the start of stack 0 (an empty stack) first, at 0');
  for (let k = 0; k < stacks; k++) {
    if ((st.runStart[k + 1] as number) < (st.runStart[k] as number)) return fail(S.stackRunStart, `stack ${k + 1} starts before stack ${k}`);
  }
  if (st.runStart[stacks] !== st.frameRun.length) return fail(S.stackRunStart, `the last stack ends at ${st.runStart[stacks]}, not at the ${st.frameRun.length} frames of "${S.stackFrames}"`);
  for (let k = 0; k < st.ofAllocation.length; k++) if ((st.ofAllocation[k] as number) >= stacks) return fail(S.stackOf, `allocation ${k} names stack ${st.ofAllocation[k]} of ${stacks}`);
  for (let k = 0; k < st.frameRun.length; k++) if ((st.frameRun[k] as number) >= st.frames.length) return fail(S.stackFrames, `entry ${k} names frame ${st.frameRun[k]} of ${st.frames.length}`);
  for (let k = 0; k < st.frameFile.length; k++) if ((st.frameFile[k] as number) >= st.files.length) return fail(S.stackFrameFile, `frame ${k} names file ${st.frameFile[k]} of ${st.files.length}`);
}

/**
 * The checks of {@link verifyTrace} on every event, as one tight loop: true when every event passes;
 * `figures` gets allocations, frees, final live bytes and allocations, peak live bytes and its event.
 */
function scanEvents(t: Trace, figures: Float64Array): boolean {
  const { op, alloc, size, allocEvent, freeEvent, tag, align } = t;
  const n = t.length;
  const tagCount = tag === null ? 0 : t.tags.length;
  let next = 0;
  let frees = 0;
  let live = 0;
  let liveAllocs = 0;
  let peak = 0;
  let peakEvent = -1;
  for (let i = 0; i < n; i++) {
    const o = op[i] as number;
    const a = alloc[i] as number;
    const s = size[i] as number;
    if (!(s >= 0 && s <= MAX_SIZE && Math.floor(s) === s)) return false;
    if (tag !== null && (tag[i] as number) >= tagCount) return false;
    if (o === 0) {
      if (a !== next || allocEvent[a] !== i) return false;
      if (align !== null) {
        const al = align[i] as number;
        if (al < 1 || al > MAX_ALIGN_BYTES || (al & (al - 1)) !== 0) return false;
      }
      next++;
      live += s;
      liveAllocs++;
      if (live > peak || peakEvent < 0) {
        peak = live;
        peakEvent = i;
      }
    } else if (o === 1) {
      if (a >= next || freeEvent[a] !== i || s !== size[allocEvent[a] as number]) return false;
      frees++;
      live -= s;
      liveAllocs--;
    } else {
      return false;
    }
  }
  figures[0] = next;
  figures[1] = frees;
  figures[2] = live;
  figures[3] = liveAllocs;
  figures[4] = peak;
  figures[5] = peakEvent;
  return true;
}

/** The slow pass: what is wrong with which events (up to 20 problems). */
function describeEvents(t: Trace, problems: ProblemList): void {
  const file = t.path;
  const at = (i: number, field: string, message: string): void => problems.add({ file, entry: `events[${i}]`, field, message });
  const { op, alloc, size, allocEvent, freeEvent, tag, align } = t;
  const tagCount = t.tags.length;
  let next = 0;
  for (let i = 0; i < t.length && problems.total < 20; i++) {
    const o = op[i] as number;
    const a = alloc[i] as number;
    const s = size[i] as number;
    if (!(s >= 0 && s <= MAX_SIZE && Math.floor(s) === s)) at(i, 'size', `${s} is not a size in bytes (an integer from 0 to 2^53-1)`);
    if (tag !== null && (tag[i] as number) >= tagCount) at(i, 'tag', `tag ${tag[i]} is past the ${formatCount(tagCount)} tags of section "${S.tags}"`);
    // An op that the other sections contradict is the one fault named: the events after it are
    // numbered as those sections say (one wrong op would set every later allocation off by one).
    if (o === OP_ALLOC && a < next && freeEvent[a] === i) {
      at(i, 'op', `${o} (alloc), but section "${S.freeEvent}" says this event frees allocation ${a}`);
    } else if (o === OP_FREE && a === next && allocEvent[a] === i) {
      at(i, 'op', `${o} (free), but section "${S.allocEvent}" says this event makes allocation ${a}`);
      next++;
    } else if (o === OP_ALLOC) {
      if (a !== next) at(i, 'alloc', `allocation ${a}, expected ${next} (allocations are numbered in the order of their alloc events)`);
      else if (allocEvent[a] !== i) at(i, 'alloc', `section "${S.allocEvent}" says allocation ${a} is made at event ${allocEvent[a]}`);
      if (align !== null) {
        const al = align[i] as number;
        if (al < 1 || al > MAX_ALIGN_BYTES || (al & (al - 1)) !== 0) at(i, 'align', `${al} is not a power of two up to 2^30`);
      }
      next++;
    } else if (o === OP_FREE) {
      if (a >= next) at(i, 'alloc', `frees allocation ${a}, which no event before it allocates`);
      else if (freeEvent[a] !== i) at(i, 'alloc', `section "${S.freeEvent}" says allocation ${a} is freed at event ${freeEvent[a]}`);
      else if (s !== size[allocEvent[a] as number]) at(i, 'size', `${s}, not the ${size[allocEvent[a] as number]} bytes of the allocation it frees`);
    } else {
      at(i, 'op', `${o} is neither 0 (alloc) nor 1 (free)`);
    }
  }
}
