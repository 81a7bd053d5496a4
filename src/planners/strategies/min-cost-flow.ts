import { Clock, NO_LIMITS, type PlanLimits } from '../limits.js';
import { PairHeap } from '../pair-heap.js';
import { executionOrder } from '../time-index.js';
import type { ObjectsAssignment, PlannerDefinition, UsageRecords } from '../types.js';
import { greedyBySizeObjects } from './greedy-by-size-objects.js';

/**
 * Edges the path searches may scan in all, a deterministic bound on the work: about a second. Past
 * it the flow is abandoned (a partial flow is no assignment).
 */
export const MIN_COST_FLOW_WORK = 50_000_000;

const count = (n: number): string => n.toLocaleString('en-US');
const sum = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);

/**
 * TFLite's MinCostFlowAssignment (memory_management/min_cost_flow_assignment.cc). A bipartite flow
 * graph: a left and a right vertex per record; source -> left(i) and right(i) -> sink with cost 0;
 * source -> right(i) with cost size(i) (a new object); left(j) -> right(i) for every record j that
 * finished before i's first, with cost max(0, size(i) - size(j)) (reusing j's object, grown). The
 * flow is found by successive shortest paths (TFLite's level-by-level Shortest Path Faster
 * Algorithm, same edge order, so the same paths on ties); objects are then read off the chains of
 * saturated reuse edges, in the order of the source's edges.
 *
 * The graph has O(n²) edges and each path costs up to O(E): for small graphs only. TFLite keeps
 * costs in 32-bit ints; here they are exact (sizes past 2 GiB do not wrap). Returns null when the
 * path searches would scan more than `work` edges; reads the clock as it goes.
 */
export function minCostFlowObjects(r: UsageRecords, limits: PlanLimits = NO_LIMITS, work = Infinity): ObjectsAssignment | null {
  const clock = new Clock(limits, r.count, 'augmenting paths');
  let scanned = 0;
  let nextCheck = 1 << 20;
  const n = r.count;
  const source = 2 * n;
  const sink = source + 1;
  const V = sink + 1;
  const dst: number[] = [];
  const cap: number[] = [];
  const cost: number[] = [];
  const edgesFrom: number[][] = Array.from({ length: V }, () => []);
  const addEdge = (from: number, to: number, c: number, w: number): void => {
    (edgesFrom[from] as number[]).push(dst.length);
    dst.push(to);
    cap.push(c);
    cost.push(w);
    (edgesFrom[to] as number[]).push(dst.length);
    dst.push(from);
    cap.push(0);
    cost.push(-w);
  };
  const oldRecords: number[] = [];
  const inUse = new PairHeap();
  // Vertices are numbered in execution order (the order TFLite receives records in).
  const order = executionOrder(r);
  const size = new Float64Array(n);
  const first = new Float64Array(n);
  const last = new Float64Array(n);
  order.forEach((rec, i) => {
    size[i] = r.size[rec] as number;
    first[i] = r.first[rec] as number;
    last[i] = r.last[rec] as number;
  });
  for (let i = 0; i < n; i++) {
    while (inUse.size > 0 && inUse.topA < (first[i] as number)) {
      oldRecords.push(inUse.topB);
      inUse.pop();
    }
    inUse.push(last[i] as number, i);
    addEdge(source, i, 1, 0);
    addEdge(n + i, sink, 1, 0);
    addEdge(source, n + i, 1, size[i] as number);
    for (const j of oldRecords) addEdge(j, n + i, 1, Math.max(0, (size[i] as number) - (size[j] as number)));
  }

  const prevEdge = new Int32Array(V);
  const dist = new Float64Array(V);
  const lastIt = new Int32Array(V);
  for (;;) {
    clock.tick();
    dist.fill(Infinity);
    lastIt.fill(0);
    let it = 1;
    let cur: number[] = [source];
    lastIt[source] = it;
    dist[source] = 0;
    while (cur.length > 0) {
      ++it;
      const next: number[] = [];
      for (let q = 0; q < cur.length; q++) {
        const v = cur[q] as number;
        const out = edgesFrom[v] as number[];
        scanned += out.length;
        if (scanned > work) return null;
        if (scanned >= nextCheck) {
          nextCheck += 1 << 20;
          clock.check();
        }
        for (let k = 0; k < out.length; k++) {
          const e = out[k] as number;
          if ((cap[e] as number) <= 0) continue;
          const u = dst[e] as number;
          const nd = (dist[v] as number) + (cost[e] as number);
          if (nd < (dist[u] as number)) {
            dist[u] = nd;
            prevEdge[u] = e;
            if (lastIt[u] !== it) {
              next.push(u);
              lastIt[u] = it;
            }
          }
        }
      }
      cur = next;
    }
    if (dist[sink] === Infinity) break;
    for (let v = sink; v !== source; ) {
      const e = prevEdge[v] as number;
      cap[e] = (cap[e] as number) - 1;
      cap[e ^ 1] = (cap[e ^ 1] as number) + 1;
      v = dst[e ^ 1] as number;
    }
  }

  const objectIds = new Int32Array(n).fill(-1);
  const objectSizes: number[] = [];
  const assigned = new Uint8Array(n);
  for (const e of edgesFrom[source] as number[]) {
    const v = dst[e] as number;
    if (cap[e] !== 0 || v < n || v >= 2 * n) continue;
    // A new object starts at this record; follow the saturated reuse edges (at most one leaves each
    // left vertex, since one unit of flow enters it) and size the object for the largest record.
    const obj = objectSizes.length;
    let t = v - n;
    let objectSize = 0;
    for (;;) {
      assigned[t] = 1;
      objectIds[order[t] as number] = obj;
      objectSize = Math.max(objectSize, size[t] as number);
      let nextT = -1;
      for (const f of edgesFrom[t] as number[]) {
        const w = dst[f] as number;
        if (cap[f] === 0 && w >= n && w < 2 * n && !assigned[w - n]) {
          nextT = w - n;
          break;
        }
      }
      if (nextT < 0) break;
      t = nextT;
    }
    objectSizes.push(objectSize);
  }
  return { kind: 'objects', objectIds, objectSizes };
}

/**
 * The min-cost-flow strategy as `plan` runs it: TFLite's flow, bounded by a work budget, and never
 * worse than greedy-by-size (objects). The flow minimizes the cost of its chains, in which a reuse
 * costs the growth over the previous record rather than over the object, so it can need many times
 * the lower bound where the greedy reaches it (records of random sizes one after the other); then,
 * and when the budget runs out, the greedy's plan is reported and a note says so.
 */
export function minCostFlowBounded(r: UsageRecords, limits: PlanLimits = NO_LIMITS, work = MIN_COST_FLOW_WORK): ObjectsAssignment {
  const flow = minCostFlowObjects(r, limits, work);
  const greedy = greedyBySizeObjects(r);
  const greedyTotal = sum(greedy.objectSizes);
  if (!flow) {
    return {
      ...greedy,
      notes: [
        `min-cost-flow: the flow was abandoned past its work budget of ${count(work)} edge scans (${count(r.count)} records); ` +
          `the plan reported is greedy-by-size's (objects, ${count(greedyTotal)} B)`,
      ],
    };
  }
  const flowTotal = sum(flow.objectSizes);
  if (greedyTotal < flowTotal) {
    return {
      ...greedy,
      notes: [
        `min-cost-flow: TFLite's flow needs ${count(flowTotal)} B (its reuse costs count growth over the previous record, not the object); ` +
          `the plan reported is greedy-by-size's (objects, ${count(greedyTotal)} B)`,
      ],
    };
  }
  return flow;
}

export const minCostFlow: PlannerDefinition = {
  name: 'min-cost-flow',
  kind: 'objects',
  description: 'reuse as a min-cost flow: a new object costs its size, reuse costs the growth (never worse than greedy-by-size)',
  source: 'tflite MinCostFlowAssignment (memory_management/min_cost_flow_assignment.cc)',
  maxRecords: 1_000,
  // Edges (O(n²), four numbers each, and their reverses) and greedy-by-size's O(n·m) distances.
  memoryBytes: (r) => 80 * r.count * r.count + 256 * r.count,
  // Not a candidate of best: laid out as offsets its plans are far above greedy-by-size's (offsets)
  // on every input measured (minimalloc's A-K: 1.01-3.0x), and it costs seconds where the others
  // cost milliseconds (2.8 s on K's 454 records).
  inBest: false,
  plan: (r, o) => minCostFlowBounded(r, o.limits),
};
