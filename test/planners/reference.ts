/**
 * Direct, slow ports of the real loops, used as oracles for memsim's faster equivalents: TFLite's
 * GreedyBySizeAssignment walks every placed record, its task profiles cover every task from 0 to the
 * last, XLA's FindChunkCandidate scans every committed chunk. O(n²) or worse: small inputs only.
 */
import type { UsageRecords } from '../../src/planners/index.js';

const up = (n: number, a: number): number => (a <= 1 ? n : Math.ceil(n / a) * a);

function stableBySizeDesc(r: UsageRecords): number[] {
  return Array.from({ length: r.count }, (_, i) => i).sort((a, b) => (r.size[b] as number) - (r.size[a] as number) || a - b);
}

/** TFLite GreedyBySizeAssignment as written: ordered_allocs walked in full, insertion after ties. */
export function referenceGreedyBySizeOffsets(r: UsageRecords, align: number): { offsets: number[]; total: number } {
  const offsets = new Array<number>(r.count).fill(0);
  const ordered: number[] = [];
  let total = 0;
  for (const rec of stableBySizeDesc(r)) {
    let bestDiff = Infinity;
    let bestOffset = -1;
    let prev = 0;
    for (const id of ordered) {
      if ((r.last[id] as number) < (r.first[rec] as number) || (r.first[id] as number) > (r.last[rec] as number)) continue;
      const cur = offsets[id] as number;
      if (cur >= prev) {
        const diff = cur - prev;
        if (diff >= (r.size[rec] as number) && diff < bestDiff) {
          bestDiff = diff;
          bestOffset = prev;
        }
      }
      prev = Math.max(prev, up(cur + (r.size[id] as number), align));
    }
    if (bestOffset < 0) bestOffset = prev;
    let at = 0;
    while (at < ordered.length && (offsets[ordered[at] as number] as number) <= bestOffset) at++;
    ordered.splice(at, 0, rec);
    offsets[rec] = bestOffset;
    total = Math.max(total, bestOffset + (r.size[rec] as number));
  }
  return { offsets, total };
}

/** XLA's classic best fit: every committed chunk checked for overlap in time, sorted by offset. */
export function referenceXla(r: UsageRecords, align: number, type: 'spatial' | 'temporal'): { offsets: number[]; total: number } {
  const dur = (i: number): number => (r.last[i] as number) - (r.first[i] as number);
  const idx = Array.from({ length: r.count }, (_, i) => i);
  idx.sort((a, b) =>
    type === 'spatial'
      ? (r.size[b] as number) - (r.size[a] as number) || dur(b) - dur(a) || a - b
      : dur(b) - dur(a) || (r.size[b] as number) - (r.size[a] as number) || a - b,
  );
  const offsets = new Array<number>(r.count).fill(0);
  const committed: number[] = [];
  let heap = 0;
  for (const rec of idx) {
    const size = r.size[rec] as number;
    if (size === 0) continue;
    const chunks = committed
      .filter((c) => (r.first[c] as number) <= (r.last[rec] as number) && (r.last[c] as number) >= (r.first[rec] as number))
      .sort((a, b) => (offsets[a] as number) - (offsets[b] as number));
    let fitOffset = -1;
    let fitSize = Infinity;
    const use = (o: number, s: number): void => {
      if (s >= size && s < fitSize) {
        fitOffset = o;
        fitSize = s;
      }
    };
    let offset = 0;
    for (const c of chunks) {
      if (offset < (offsets[c] as number)) use(offset, (offsets[c] as number) - offset);
      offset = Math.max(offset, up((offsets[c] as number) + (r.size[c] as number), align));
    }
    use(offset, heap - offset);
    if (fitOffset < 0) {
      fitOffset = offset;
      heap = offset + size;
    }
    offsets[rec] = fitOffset;
    committed.push(rec);
  }
  let total = 0;
  for (let i = 0; i < r.count; i++) total = Math.max(total, (offsets[i] as number) + (r.size[i] as number));
  return { offsets, total };
}

/** TFLite CalculateTaskProfiles: one profile per task 0..max last, sorted by size (stable). */
export function referenceTaskProfiles(r: UsageRecords): number[][] {
  let tasks = 0;
  for (let i = 0; i < r.count; i++) tasks = Math.max(tasks, (r.last[i] as number) + 1);
  const profiles: number[][] = Array.from({ length: tasks }, () => []);
  for (let i = 0; i < r.count; i++) for (let t = r.first[i] as number; t <= (r.last[i] as number); t++) (profiles[t] as number[]).push(i);
  for (const p of profiles) p.sort((a, b) => (r.size[b] as number) - (r.size[a] as number) || a - b);
  return profiles;
}

/** TFLite CalculatePositionalMaximums over every task. */
export function referencePositionalMaxima(r: UsageRecords): number[] {
  const pm: number[] = [];
  for (const p of referenceTaskProfiles(r)) {
    p.forEach((rec, i) => {
      if (i < pm.length) pm[i] = Math.max(pm[i] as number, r.size[rec] as number);
      else pm.push(r.size[rec] as number);
    });
  }
  return pm;
}

/** TFLite GreedyByBreadthAssignment over every task (stable sort of tasks by decreasing breadth). */
export function referenceGreedyByBreadth(r: UsageRecords): { ids: number[]; sizes: number[] } {
  const profiles = referenceTaskProfiles(r);
  const breadth = profiles.map((p) => p.reduce((s, i) => s + (r.size[i] as number), 0));
  const tasks = profiles.map((_, t) => t).sort((a, b) => (breadth[b] as number) - (breadth[a] as number) || a - b);
  const ids = new Array<number>(r.count).fill(-1);
  const sizes: number[] = [];
  const schedules: number[][] = [];
  for (const t of tasks) {
    for (const rec of profiles[t] as number[]) {
      if ((ids[rec] as number) >= 0) continue;
      const size = r.size[rec] as number;
      let best = -1;
      for (let obj = 0; obj < sizes.length; obj++) {
        if (best >= 0) {
          const bs = sizes[best] as number;
          const cs = sizes[obj] as number;
          if (bs < size ? cs <= bs : cs < size || cs >= bs) continue;
        }
        const clash = (schedules[obj] as number[]).some(
          (o) => (r.first[o] as number) <= (r.last[rec] as number) && (r.first[rec] as number) <= (r.last[o] as number),
        );
        if (!clash) best = obj;
      }
      if (best < 0) {
        best = sizes.length;
        sizes.push(size);
        schedules.push([]);
      } else {
        sizes[best] = Math.max(sizes[best] as number, size);
      }
      (schedules[best] as number[]).push(rec);
      ids[rec] = best;
    }
  }
  return { ids, sizes };
}

/**
 * The optimal arena height by brute force: every placement order, each record dropped onto the ones
 * placed before it that it meets in time (every packing can be put in that form without growing).
 */
export function bruteForceOptimum(r: UsageRecords, align: number): number {
  let best = Infinity;
  const n = r.count;
  const offsets = new Array<number>(n).fill(-1);
  const go = (k: number, top: number): void => {
    if (top >= best) return;
    if (k === n) {
      best = top;
      return;
    }
    for (let i = 0; i < n; i++) {
      if ((offsets[i] as number) >= 0) continue;
      let o = 0;
      for (let j = 0; j < n; j++) {
        if ((offsets[j] as number) < 0 || (r.size[j] as number) === 0) continue;
        if ((r.first[i] as number) <= (r.last[j] as number) && (r.first[j] as number) <= (r.last[i] as number)) {
          o = Math.max(o, up((offsets[j] as number) + (r.size[j] as number), align));
        }
      }
      offsets[i] = o;
      // Zero-sized records occupy nothing (best puts them at 0).
      go(k + 1, (r.size[i] as number) > 0 ? Math.max(top, o + (r.size[i] as number)) : top);
      offsets[i] = -1;
    }
  };
  go(0, 0);
  return n === 0 ? 0 : best;
}

/**
 * A perfect packing: the rectangle [0, time) × [0, height) cut at random, across time or across
 * space, until `pieces` rectangles remain; each becomes a record. Every packing needs `height` (the
 * records fill the whole rectangle at every time), and one fits in it, so the optimum is `height`.
 */
export function perfectPacking(rand: () => number, pieces: number, time = 64, height = 1024): { records: { size: number; first: number; last: number }[]; height: number } {
  type Rect = { t0: number; t1: number; s0: number; s1: number };
  const rects: Rect[] = [{ t0: 0, t1: time, s0: 0, s1: height }];
  for (let guard = 0; rects.length < pieces && guard < pieces * 50; guard++) {
    const k = Math.floor(rand() * rects.length);
    const r = rects[k] as Rect;
    const acrossTime = rand() < 0.5;
    const lo = acrossTime ? r.t0 : r.s0;
    const hi = acrossTime ? r.t1 : r.s1;
    if (hi - lo < 2) continue;
    const cut = lo + 1 + Math.floor(rand() * (hi - lo - 1));
    rects.splice(k, 1, acrossTime ? { ...r, t1: cut } : { ...r, s1: cut }, acrossTime ? { ...r, t0: cut } : { ...r, s0: cut });
  }
  return { records: rects.map((r) => ({ size: r.s1 - r.s0, first: r.t0, last: r.t1 - 1 })), height };
}

/** TFLite GreedyBySizeDistPriorityAssignment as written: a selection pass, then an update pass. */
export function referenceGreedyBySizeObjects(r: UsageRecords, pm: readonly number[]): { ids: number[]; sizes: number[] } {
  const n = r.count;
  const NONE = Infinity;
  const ids = new Array<number>(n).fill(-1);
  const sizes: number[] = [];
  const info = Array.from({ length: n }, (_, i) => {
    let pos = 0;
    while (pos < pm.length && (pm[pos] as number) >= (r.size[i] as number)) pos++;
    return { position: pos - 1, bestDist: NONE, bestObject: -1, dist: [] as number[] };
  });
  const greater = (a: number, b: number): boolean => {
    const x = info[a]!;
    const y = info[b]!;
    return x.position < y.position || (x.position === y.position && (x.bestDist < y.bestDist || (x.bestDist === y.bestDist && (r.size[a] as number) > (r.size[b] as number))));
  };
  for (let it = 0; it < n; it++) {
    let best = -1;
    for (let i = 0; i < n; i++) if (ids[i] === -1 && (best < 0 || greater(i, best))) best = i;
    const isNew = info[best]!.bestDist === NONE;
    const obj = isNew ? sizes.length : info[best]!.bestObject;
    if (isNew) sizes.push(r.size[best] as number);
    else sizes[obj] = Math.max(sizes[obj] as number, r.size[best] as number);
    ids[best] = obj;
    for (let i = 0; i < n; i++) {
      if (ids[i] !== -1) continue;
      const x = info[i]!;
      if (!isNew && x.dist[obj] === NONE) continue;
      let d = NONE;
      if ((r.last[i] as number) < (r.first[best] as number)) d = (r.first[best] as number) - (r.last[i] as number);
      else if ((r.last[best] as number) < (r.first[i] as number)) d = (r.first[i] as number) - (r.last[best] as number);
      if (isNew) x.dist.push(d);
      else if (d === NONE) {
        x.dist[obj] = NONE;
        if (x.bestObject === obj) {
          x.bestDist = NONE;
          x.dist.forEach((v, o) => {
            if (v < x.bestDist) {
              x.bestDist = v;
              x.bestObject = o;
            }
          });
        }
      } else x.dist[obj] = Math.min(x.dist[obj] as number, d);
      if (d < x.bestDist) {
        x.bestDist = d;
        x.bestObject = obj;
      }
    }
  }
  return { ids, sizes };
}
