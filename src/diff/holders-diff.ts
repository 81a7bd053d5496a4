import type { MomentHolders } from '../attribution/index.js';

/** How a group's bytes changed from one trace to the other. */
export type HolderChangeKind = 'grew' | 'shrank' | 'appeared' | 'vanished';

/** One group whose bytes differ between the two moments. */
export interface HolderChange {
  key: string;
  change: HolderChangeKind;
  beforeBytes: number;
  afterBytes: number;
  /** afterBytes - beforeBytes. */
  deltaBytes: number;
  beforeCount: number;
  afterCount: number;
}

/** Who held the memory at one peak, before and after, side by side. */
export interface HoldersDiff {
  /** The moments compared (null: that replay had no such peak). */
  beforeEvent: number | null;
  afterEvent: number | null;
  beforeLiveBytes: number;
  afterLiveBytes: number;
  /** The largest changes, by the size of the change (ties: by key). */
  changes: HolderChange[];
  /** The changes beyond those listed: how many, and their net bytes. */
  moreChanges: number;
  moreDeltaBytes: number;
  /** Groups with the same bytes on both sides. */
  unchanged: number;
}

/**
 * Compares the groups of two moments (each with every group listed: no "everything else" left) by
 * key: which grew, shrank, appeared or vanished, largest change first, the first `top` listed.
 */
export function diffHolders(before: MomentHolders | null, after: MomentHolders | null, top: number): HoldersDiff {
  const b = new Map((before?.top ?? []).map((h) => [h.key, h]));
  const a = new Map((after?.top ?? []).map((h) => [h.key, h]));
  const changes: HolderChange[] = [];
  let unchanged = 0;
  for (const key of new Set([...b.keys(), ...a.keys()])) {
    const x = b.get(key);
    const y = a.get(key);
    const beforeBytes = x?.bytes ?? 0;
    const afterBytes = y?.bytes ?? 0;
    const beforeCount = x?.count ?? 0;
    const afterCount = y?.count ?? 0;
    if (x && y && beforeBytes === afterBytes) {
      unchanged++;
      continue;
    }
    const change: HolderChangeKind = !x ? 'appeared' : !y ? 'vanished' : afterBytes > beforeBytes ? 'grew' : 'shrank';
    changes.push({ key, change, beforeBytes, afterBytes, deltaBytes: afterBytes - beforeBytes, beforeCount, afterCount });
  }
  changes.sort((p, q) => Math.abs(q.deltaBytes) - Math.abs(p.deltaBytes) || (p.key < q.key ? -1 : p.key > q.key ? 1 : 0));
  const rest = changes.slice(top);
  return {
    beforeEvent: before?.event ?? null,
    afterEvent: after?.event ?? null,
    beforeLiveBytes: before?.liveBytes ?? 0,
    afterLiveBytes: after?.liveBytes ?? 0,
    changes: changes.slice(0, top),
    moreChanges: rest.length,
    moreDeltaBytes: rest.reduce((s, c) => s + c.deltaBytes, 0),
    unchanged,
  };
}
