/**
 * The exact search's candidates at a node (search.ts): its order of unplaced buffers, kept sorted by
 * (minimum offset, rank) from node to node, and the question that ends the tries of a node early.
 */
import type { Partition } from './sweep.js';

/**
 * Whether a buffer that overlaps b in time is still unplaced (`offset` -1; if none is, nothing can go
 * over b). Asked only when a candidate has failed, so a scan that usually stops at the first
 * neighbour costs less than counts kept up to date at every placement and undo.
 */
export function hasUnplacedNeighbour(p: Partition, offset: Float64Array, b: number): boolean {
  const end = p.overlapStart[b + 1] as number;
  for (let q = p.overlapStart[b] as number; q < end; q++) if ((offset[p.overlaps[q] as number] as number) < 0) return true;
  return false;
}

/**
 * Sorts moved[0, r) by (minimum offset, rank) and merges it into order[0, k), sorted the same way,
 * from the back (order has room); returns the new length. The moved buffers were all raised by one
 * placement, to the same minimum offset, so among them only the ranks decide.
 */
export function mergeMoved(order: Int32Array, k: number, moved: Int32Array, r: number, minOff: Float64Array, rank: Int32Array): number {
  for (let i = 1; i < r; i++) {
    const x = moved[i] as number;
    const rx = rank[x] as number;
    let j = i;
    for (; j > 0 && rx < (rank[moved[j - 1] as number] as number); j--) moved[j] = moved[j - 1] as number;
    moved[j] = x;
  }
  const raised = minOff[moved[0] as number] as number;
  let i = k - 1;
  let j = r - 1;
  for (let w = k + r - 1; j >= 0; w--) {
    const y = i >= 0 ? (order[i] as number) : -1;
    const a = y >= 0 ? (minOff[y] as number) : -Infinity;
    if (a > raised || (a === raised && (rank[y] as number) > (rank[moved[j] as number] as number))) {
      order[w] = y;
      i--;
    } else order[w] = moved[j--] as number;
  }
  return k + r;
}
