import type { UsageRecords } from '../types.js';

/**
 * The preprocessing of minimalloc's sweeper (src/sweeper.cc), for one group of records: which
 * buffers overlap in time, and the "sections" (maximal sets of buffers live together) each buffer
 * spans. The search propagates offsets along overlaps and prunes with section totals.
 */
export interface Partition {
  /** Record indices, by increasing first time. */
  records: Int32Array;
  /** Per local buffer: its neighbours (local indices) in CSR form. */
  overlapStart: Int32Array;
  overlaps: Int32Array;
  /** Per local buffer: the sections it spans, [sectionLo, sectionHi). */
  sectionLo: Int32Array;
  sectionHi: Int32Array;
  /** Sum of the sizes live in each section. */
  sectionTotal: Float64Array;
  /** The buffers of each section (CSR: section s holds members[memberStart[s], memberStart[s + 1])). */
  memberStart: Int32Array;
  members: Int32Array;
  /** The largest section total: the partition's lower bound. */
  lowerBound: number;
}

/**
 * Splits records with a positive size into partitions that no record crosses in time (minimalloc
 * solves them independently), ordered by first time. Returns null when the overlap lists would hold
 * more than `maxPairs` pairs (the search would not get far anyway).
 */
export function partitionRecords(r: UsageRecords, maxPairs: number): Partition[] | null {
  const active: number[] = [];
  for (let i = 0; i < r.count; i++) if ((r.size[i] as number) > 0) active.push(i);
  active.sort((a, b) => (r.first[a] as number) - (r.first[b] as number) || a - b);
  const groups: number[][] = [];
  let maxLast = -Infinity;
  for (const i of active) {
    if ((r.first[i] as number) > maxLast || groups.length === 0) groups.push([]);
    (groups[groups.length - 1] as number[]).push(i);
    maxLast = Math.max(maxLast, r.last[i] as number);
  }
  const out: Partition[] = [];
  let pairs = 0;
  for (const g of groups) {
    const p = buildPartition(r, Int32Array.from(g), maxPairs - pairs);
    if (!p) return null;
    pairs += p.overlaps.length;
    out.push(p);
  }
  return out;
}

function buildPartition(r: UsageRecords, records: Int32Array, maxPairs: number): Partition | null {
  const m = records.length;
  const first = (b: number): number => r.first[records[b] as number] as number;
  const end = (b: number): number => (r.last[records[b] as number] as number) + 1; // half-open
  // Overlaps: buffers are sorted by first, so a sweep with the still-live ones finds every pair.
  const lists: number[][] = Array.from({ length: m }, () => []);
  let live: number[] = [];
  let pairs = 0;
  for (let b = 0; b < m; b++) {
    live = live.filter((x) => end(x) > first(b));
    for (const x of live) {
      (lists[x] as number[]).push(b);
      (lists[b] as number[]).push(x);
    }
    pairs += 2 * live.length;
    if (pairs > maxPairs) return null;
    live.push(b);
  }
  const overlapStart = new Int32Array(m + 1);
  for (let b = 0; b < m; b++) overlapStart[b + 1] = (overlapStart[b] as number) + (lists[b] as number[]).length;
  const overlaps = new Int32Array(overlapStart[m] as number);
  for (let b = 0; b < m; b++) overlaps.set((lists[b] as number[]).sort((x, y) => x - y), overlapStart[b] as number);

  // Sections: elementary time intervals that begin where some buffer starts and end where some
  // buffer ends are the maximal cliques; every other interval holds a subset of a neighbour's.
  const starts = new Map<number, number>();
  const ends = new Map<number, number>();
  for (let b = 0; b < m; b++) {
    starts.set(first(b), (starts.get(first(b)) ?? 0) + 1);
    ends.set(end(b), (ends.get(end(b)) ?? 0) + 1);
  }
  const points = [...new Set([...starts.keys(), ...ends.keys()])].sort((x, y) => x - y);
  const secFrom: number[] = [];
  const secTo: number[] = [];
  for (let j = 0; j + 1 < points.length; j++) {
    const from = points[j] as number;
    const to = points[j + 1] as number;
    if (starts.has(from) && ends.has(to)) {
      secFrom.push(from);
      secTo.push(to);
    }
  }
  const S = secFrom.length;
  const sectionLo = new Int32Array(m);
  const sectionHi = new Int32Array(m);
  const diff = new Float64Array(S + 1);
  for (let b = 0; b < m; b++) {
    let lo = 0;
    let hi = S;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((secFrom[mid] as number) < first(b)) lo = mid + 1;
      else hi = mid;
    }
    let top = lo;
    while (top < S && (secTo[top] as number) <= end(b)) top++;
    sectionLo[b] = lo;
    sectionHi[b] = top;
    const size = r.size[records[b] as number] as number;
    diff[lo] = (diff[lo] as number) + size;
    diff[top] = (diff[top] as number) - size;
  }
  const sectionTotal = new Float64Array(S);
  let acc = 0;
  let lowerBound = 0;
  for (let s = 0; s < S; s++) {
    acc += diff[s] as number;
    sectionTotal[s] = acc;
    lowerBound = Math.max(lowerBound, acc);
  }
  const memberStart = new Int32Array(S + 1);
  for (let b = 0; b < m; b++) for (let s = sectionLo[b] as number; s < (sectionHi[b] as number); s++) memberStart[s + 1] = (memberStart[s + 1] as number) + 1;
  for (let s = 0; s < S; s++) memberStart[s + 1] = (memberStart[s + 1] as number) + (memberStart[s] as number);
  const members = new Int32Array(memberStart[S] as number);
  const fill = memberStart.slice(0, S);
  for (let b = 0; b < m; b++) {
    for (let s = sectionLo[b] as number; s < (sectionHi[b] as number); s++) {
      members[fill[s] as number] = b;
      fill[s] = (fill[s] as number) + 1;
    }
  }
  return { records, overlapStart, overlaps, sectionLo, sectionHi, sectionTotal, memberStart, members, lowerBound };
}
