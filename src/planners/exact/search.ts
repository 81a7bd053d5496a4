import { alignUp } from '../records.js';
import type { UsageRecords } from '../types.js';
import type { Partition } from './sweep.js';

/** How a search of one partition ended. */
export type SearchEnd = 'exhausted' | 'target' | 'nodes' | 'timeout';

/** minimalloc's static preorderings (solver.h): W width, A area, T section total; all descending. */
const HEURISTICS = ['WAT', 'TAW', 'TWA'] as const;

/** Limits and clock of a search. */
export interface SearchBudget {
  /** Stop (not proven) when the clock passes this. */
  deadlineMs: number;
  now: () => number;
}

/** The outcome for one partition. */
export interface PartitionOutcome {
  /** `exhausted`: `height` is optimal; `target`: reached the target; `timeout`: best found so far. */
  end: 'exhausted' | 'target' | 'timeout';
  height: number;
  nodes: number;
}

/**
 * Branch and bound over canonical placements, after minimalloc's SolverImpl (src/solver.cc). A
 * buffer is only ever placed at its lowest feasible offset (the top of the placed buffers it
 * overlaps, aligned), and buffers are placed in non-decreasing (offset, preorder) order, so each
 * packing is reached once. Pruning, as minimalloc: a buffer whose offset is at or above the lowest
 * top any unplaced buffer could have leaves a gap (dominated); a section whose floor plus the sizes
 * still to place in it exceeds the capacity cannot be completed; a buffer with nothing unplaced
 * overhead, once tried, needs no alternative (hatless pruning).
 *
 * minimalloc decides feasibility for a fixed capacity; here the capacity is the best height found
 * minus one and shrinks with every better packing, so finishing the search proves the best optimal.
 * Node limits double round-robin over three preorderings, as minimalloc's RoundRobin; with the
 * clock out of the picture the sequence of packings is fixed, so a search that finishes always
 * returns the same packing.
 *
 * `offsets` holds the incumbent packing of the whole problem and receives improvements in place.
 */
export function searchPartition(
  r: UsageRecords,
  p: Partition,
  offsets: Float64Array,
  alignmentBytes: number,
  target: number,
  budget: SearchBudget,
): PartitionOutcome {
  const m = p.records.length;
  const size = new Float64Array(m);
  let best = 0;
  for (let b = 0; b < m; b++) {
    size[b] = r.size[p.records[b] as number] as number;
    best = Math.max(best, (offsets[p.records[b] as number] as number) + (size[b] as number));
  }
  let nodes = 0;
  if (best <= target) return { end: 'target', height: best, nodes };
  const S = p.sectionTotal.length;
  const width = (b: number): number => (r.last[p.records[b] as number] as number) - (r.first[p.records[b] as number] as number) + 1;
  const sectionMax = new Float64Array(m);
  for (let b = 0; b < m; b++) {
    for (let s = p.sectionLo[b] as number; s < (p.sectionHi[b] as number); s++) {
      sectionMax[b] = Math.max(sectionMax[b] as number, p.sectionTotal[s] as number);
    }
  }
  const key = (c: string, b: number): number => (c === 'W' ? width(b) : c === 'A' ? width(b) * (size[b] as number) : (sectionMax[b] as number));

  const offset = new Float64Array(m);
  const minOff = new Float64Array(m);
  const floor = new Float64Array(S);
  const total = new Float64Array(S);
  const undoBuf = new Int32Array(p.overlaps.length + 1);
  const undoVal = new Float64Array(p.overlaps.length + 1);
  const floorUndo = new Float64Array(S + 1);
  let undoTop = 0;
  let cap = best - 1;
  let limit = 0;
  let stop: SearchEnd | null = null;
  // Scratch per depth: the unplaced buffers in (min offset, preorder) order.
  const scratch: Int32Array[] = [];
  const rank = new Int32Array(m);

  const dfs = (depth: number, lastOffset: number, lastRank: number): void => {
    if (++nodes > limit) {
      stop = 'nodes';
      return;
    }
    if ((nodes & 1023) === 0 && budget.now() > budget.deadlineMs) {
      stop = 'timeout';
      return;
    }
    let order = scratch[depth];
    if (!order) order = scratch[depth] = new Int32Array(m);
    let k = 0;
    let minHeight = Infinity;
    for (let b = 0; b < m; b++) {
      if ((offset[b] as number) >= 0) continue;
      order[k++] = b;
      minHeight = Math.min(minHeight, (minOff[b] as number) + (size[b] as number));
    }
    if (k === 0) {
      let height = 0;
      for (let b = 0; b < m; b++) height = Math.max(height, (offset[b] as number) + (size[b] as number));
      if (height < best) {
        best = height;
        cap = height - 1;
        for (let b = 0; b < m; b++) offsets[p.records[b] as number] = offset[b] as number;
        if (best <= target) stop = 'target';
      }
      return;
    }
    const view = order.subarray(0, k);
    view.sort((x, y) => (minOff[x] as number) - (minOff[y] as number) || (rank[x] as number) - (rank[y] as number));
    for (let j = 0; j < k; j++) {
      const b = view[j] as number;
      const o = minOff[b] as number;
      if (o < lastOffset || (o === lastOffset && (rank[b] as number) < lastRank)) continue; // canonical
      if (o >= minHeight) continue; // dominated: it would leave room under it for another buffer
      const top = o + (size[b] as number);
      if (top > cap) continue;
      offset[b] = o;
      const undoFrom = undoTop;
      let hatless = true;
      const aligned = alignUp(top, alignmentBytes);
      for (let q = p.overlapStart[b] as number; q < (p.overlapStart[b + 1] as number); q++) {
        const u = p.overlaps[q] as number;
        if ((offset[u] as number) >= 0) continue;
        hatless = false;
        if ((minOff[u] as number) >= aligned) continue;
        undoBuf[undoTop] = u;
        undoVal[undoTop++] = minOff[u] as number;
        minOff[u] = aligned;
      }
      const sLo = p.sectionLo[b] as number;
      const sHi = p.sectionHi[b] as number;
      for (let s = sLo; s < sHi; s++) {
        floorUndo[s] = floor[s] as number;
        floor[s] = top;
        total[s] = (total[s] as number) - (size[b] as number);
      }
      let feasible = true;
      for (let s = 0; s < S; s++) {
        if (Math.max(o, floor[s] as number) + (total[s] as number) > cap) {
          feasible = false;
          break;
        }
      }
      if (feasible) dfs(depth + 1, o, rank[b] as number);
      for (let s = sLo; s < sHi; s++) {
        floor[s] = floorUndo[s] as number;
        total[s] = (total[s] as number) + (size[b] as number);
      }
      while (undoTop > undoFrom) {
        undoTop--;
        minOff[undoBuf[undoTop] as number] = undoVal[undoTop] as number;
      }
      offset[b] = -1;
      if (stop !== null) return;
      if (hatless) break;
    }
  };

  // Round robin: double the node limit until one preordering finishes its search.
  let roundLimit = m;
  for (;;) {
    roundLimit *= 2;
    for (const h of HEURISTICS) {
      const pre = Array.from({ length: m }, (_, b) => b);
      pre.sort((x, y) => {
        for (const c of h) {
          const d = key(c, y) - key(c, x);
          if (d !== 0) return d;
        }
        return x - y;
      });
      pre.forEach((b, i) => (rank[b] = i));
      offset.fill(-1);
      minOff.fill(0);
      floor.fill(0);
      total.set(p.sectionTotal);
      undoTop = 0;
      stop = null;
      limit = nodes + roundLimit;
      dfs(0, 0, -1);
      if (stop === null) return { end: 'exhausted', height: best, nodes };
      if (stop === 'target') return { end: 'target', height: best, nodes };
      if (stop === 'timeout') return { end: 'timeout', height: best, nodes };
    }
  }
}
