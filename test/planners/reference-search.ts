/**
 * A plain reference of the exact search (after minimalloc's SolverImpl::SearchSolutions and
 * SubSolve, src/solver.cc): arrays rebuilt and sorted at every node, every section checked at every
 * placement, each piece of a decomposition preordered afresh from the bytes still unplaced. Slow and
 * obvious, to check the fast search (scratch buffers, incremental orders, a tree of section totals,
 * early exits) node for node.
 */
import type { Partition } from '../../src/planners/exact/sweep.js';
import type { UsageRecords } from '../../src/planners/index.js';

const HEURISTICS = ['WAT', 'TAW', 'TWA'];

export interface ReferenceRun {
  end: 'found' | 'exhausted' | 'nodes';
  nodes: number;
  /** Offsets per local buffer of the packing found. */
  offsets: number[];
}

export function referenceSearch(r: UsageRecords, p: Partition, capacity: number, heuristic: number, nodeLimit: number, align: number): ReferenceRun {
  const m = p.records.length;
  const S = p.sectionTotal.length;
  const rec = (b: number): number => p.records[b] as number;
  const size = (b: number): number => r.size[rec(b)] as number;
  const width = (b: number): number => (r.last[rec(b)] as number) - (r.first[rec(b)] as number) + 1;
  const lo = (b: number): number => p.sectionLo[b] as number;
  const hi = (b: number): number => p.sectionHi[b] as number;
  const neighbours = (b: number): number[] => Array.from(p.overlaps.subarray(p.overlapStart[b] as number, p.overlapStart[b + 1] as number));
  const up = (x: number): number => (align <= 1 ? x : Math.ceil(x / align) * align);
  const offset = new Array<number>(m).fill(-1);
  const minOff = new Array<number>(m).fill(0);
  const floor = new Array<number>(S).fill(0);
  const total = Array.from(p.sectionTotal);
  const cuts = new Array<number>(Math.max(0, S - 1)).fill(0);
  for (let b = 0; b < m; b++) for (let s = lo(b); s + 1 < hi(b); s++) cuts[s] = (cuts[s] as number) + 1;
  const solution = new Array<number>(m).fill(0);
  let nodes = 0;

  /** The buffers sorted by the heuristic, T from the totals as they are now; ranks by position. */
  const preorder = (list: number[]): Map<number, number> => {
    const T = new Map(list.map((b) => [b, Math.max(0, ...Array.from({ length: hi(b) - lo(b) }, (_, k) => total[lo(b) + k] as number))]));
    const key = (c: string, b: number): number => (c === 'W' ? width(b) : c === 'A' ? width(b) * size(b) : (T.get(b) as number));
    const sorted = [...list].sort((x, y) => {
      for (const c of HEURISTICS[heuristic] as string) {
        const d = key(c, y) - key(c, x);
        if (d !== 0) return d;
      }
      return rec(x) - rec(y);
    });
    return new Map(sorted.map((b, i) => [b, i]));
  };

  type End = 'found' | 'none' | 'nodes';
  const search = (rank: Map<number, number>, secLo: number, secHi: number, lastOffset: number, lastRank: number): End => {
    if (nodes >= nodeLimit) return 'nodes';
    nodes++;
    if (process.env['DBG']) console.log('R node', nodes, 'sec', secLo, secHi, 'last', lastOffset, lastRank, 'offs', offset.join(','), 'minOff', minOff.join(','), 'rank', Array.from({length:m},(_, b)=>rank.get(b) ?? -1).join(','));
    const open = [...rank.keys()].filter((b) => (offset[b] as number) < 0);
    open.sort((x, y) => (minOff[x] as number) - (minOff[y] as number) || (rank.get(x) as number) - (rank.get(y) as number));
    if (open.length === 0) return 'found';
    const minHeight = Math.min(...open.map((b) => (minOff[b] as number) + size(b)));
    for (const b of open) {
      const o = minOff[b] as number;
      const rb = rank.get(b) as number;
      if (o < lastOffset || (o === lastOffset && rb < lastRank)) continue;
      if (o >= minHeight) continue;
      const saved = { minOff: [...minOff], floor: [...floor], total: [...total] };
      offset[b] = o;
      solution[b] = o;
      const raised: number[] = [];
      let hatless = true;
      for (const u of neighbours(b)) {
        if ((offset[u] as number) >= 0) continue;
        hatless = false;
        if ((minOff[u] as number) >= up(o + size(b))) continue;
        minOff[u] = up(o + size(b));
        raised.push(u);
      }
      for (let s = lo(b); s < hi(b); s++) {
        floor[s] = o + size(b);
        total[s] = (total[s] as number) - size(b);
      }
      // The sections of the raised buffers (one interval), floors raised to their lowest minimum offset.
      if (raised.length > 0) {
        const from = Math.min(...raised.map(lo));
        const to = Math.max(...raised.map(hi));
        for (let s = from; s < to; s++) {
          const members = Array.from({ length: m }, (_, u) => u).filter((u) => (offset[u] as number) < 0 && lo(u) <= s && s < hi(u));
          const low = Math.min(...members.map((u) => minOff[u] as number));
          if (members.length > 0 && low > (floor[s] as number)) floor[s] = low;
        }
      }
      let ok = true;
      for (let s = secLo; s < secHi; s++) if (Math.max(o, floor[s] as number) + (total[s] as number) > capacity) ok = false;
      let end: End = 'none';
      if (ok) {
        const zero: number[] = [];
        for (let s = lo(b); s + 1 < hi(b); s++) {
          cuts[s] = (cuts[s] as number) - 1;
          if (cuts[s] === 0) zero.push(s);
        }
        if (zero.length === 0) {
          end = search(rank, secLo, secHi, o, rb);
        } else {
          end = 'found';
          let from = secLo;
          for (let s = secLo; s < secHi && end === 'found'; s++) {
            if (s + 1 < secHi && cuts[s] !== 0) continue;
            const piece = open.filter((u) => (offset[u] as number) < 0 && lo(u) < s + 1 && hi(u) > from);
            if (piece.length > 0) end = search(preorder(piece), from, s + 1, 0, -1);
            from = s + 1;
          }
        }
        for (let s = lo(b); s + 1 < hi(b); s++) cuts[s] = (cuts[s] as number) + 1;
      }
      offset[b] = -1;
      saved.minOff.forEach((v, i) => (minOff[i] = v));
      saved.floor.forEach((v, i) => (floor[i] = v));
      saved.total.forEach((v, i) => (total[i] = v));
      if (end !== 'none') return end;
      if (hatless) break;
    }
    return 'none';
  };

  if (total.some((t) => t > capacity)) return { end: 'exhausted', nodes: 0, offsets: [] };
  const end = search(preorder(Array.from({ length: m }, (_, b) => b)), 0, S, 0, -1);
  return { end: end === 'none' ? 'exhausted' : end, nodes, offsets: end === 'found' ? solution : [] };
}
