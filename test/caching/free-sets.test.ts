import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FreeSets } from '../../src/allocators/caching/free-sets.js';

class Sets extends FreeSets {
  constructor(blocks: number, sets = 2) {
    super();
    for (let k = 0; k < sets; k++) this.addSet();
    if (blocks > this.ptr.length) this.growBlocks(blocks);
  }
}

type Op = { kind: 'insert' | 'remove' | 'rekey' | 'probe'; pick: number; size: number; set: number };

const opOf = (kinds: Op['kind'][], sets = [0, 0, 1]): fc.Arbitrary<Op> =>
  fc.record({
    kind: fc.constantFrom(...kinds),
    pick: fc.nat(),
    // Few distinct sizes, so that ties on size are ordered by address.
    size: fc.integer({ min: 1, max: 40 }),
    set: fc.constantFrom(...sets),
  });
const opArb = opOf(['insert', 'insert', 'insert', 'remove', 'rekey', 'rekey', 'probe']);

/** Drives the sets and a plain sorted model side by side; they must agree after every step. */
function check(ops: Op[], blocks: number, sets = 2): Sets {
  const f = new Sets(blocks, sets);
  const model: number[][] = Array.from({ length: sets }, () => []);
  const where = new Int32Array(blocks).fill(-1);
  const key = (id: number): [number, number] => [f.size[id]!, f.ptr[id]!];
  const before = (x: number, y: number): boolean => {
    const [a, b] = key(x);
    const [c, d] = key(y);
    return a < c || (a === c && b < d);
  };
  let nextPtr = 0;
  for (const op of ops) {
    const s = op.set;
    const m = model[s]!;
    if (op.kind === 'insert') {
      const id = where.findIndex((w) => w < 0);
      if (id < 0) continue;
      f.size[id] = op.size;
      f.ptr[id] = ++nextPtr;
      f.setInsert(s, id);
      m.push(id);
      where[id] = s;
    } else if (m.length > 0 && op.kind === 'remove') {
      const id = m.splice(op.pick % m.length, 1)[0]!;
      f.setRemove(s, id);
      where[id] = -1;
    } else if (m.length > 0 && op.kind === 'rekey') {
      const id = m[op.pick % m.length]!;
      f.size[id] = op.size;
      f.ptr[id] = ++nextPtr;
      f.setRekeyed(s, id);
    } else if (op.kind === 'probe') {
      m.sort((x, y) => (before(x, y) ? -1 : 1));
      const want = m.find((id) => f.size[id]! >= op.size) ?? -1;
      expect(f.setLowerBound(s, op.size, -1)).toBe(want);
      expect(f.setFirstAtLeast(s, op.size)).toBe(want);
    }
    m.sort((x, y) => (before(x, y) ? -1 : 1));
    expect(f.count(s)).toBe(m.length);
    expect(f.setBlocks(s)).toEqual(m);
    expect(f.setLast(s)).toBe(m.length > 0 ? m[m.length - 1] : -1);
    // The largest block of all sets and their count, read without visiting the sets.
    expect(f.largestInSets()).toBe(Math.max(0, ...model.flat().map((id) => f.size[id]!)));
    expect(f.totalCount).toBe(model.reduce((n, x) => n + x.length, 0));
    if (m.length > 0) {
      const k = op.pick % m.length;
      expect(f.setNext(s, m[k]!)).toBe(k + 1 < m.length ? m[k + 1] : -1);
      expect(f.setPrev(s, m[k]!)).toBe(k > 0 ? m[k - 1] : -1);
    }
  }
  return f;
}

const isTreap = (f: Sets, s: number): boolean => (f as unknown as { isTreap: Uint8Array }).isTreap[s] === 1;

describe('free sets', () => {
  it('know their largest block and their count across many sets (one per stream and pool)', () => {
    const sets = Array.from({ length: 37 }, (_, k) => k);
    fc.assert(
      fc.property(fc.array(opOf(['insert', 'insert', 'remove', 'rekey'], sets), { maxLength: 300 }), (ops) => {
        check(ops, 256, 37);
      }),
      { numRuns: 100 },
    );
  });

  it('agree with a sorted list while small (sorted arrays)', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
        check(ops, 64);
      }),
      { numRuns: 200 },
    );
  });

  it('agree with a sorted list through the switch to treaps and back', () => {
    // Long runs with many inserts push a set past 128 blocks; removals bring it under 32 again.
    const grow = fc.array(opOf(['insert', 'insert', 'insert', 'rekey', 'probe'], [0]), { minLength: 260, maxLength: 400 });
    const shrink = fc.array(opOf(['remove', 'remove', 'remove', 'rekey', 'probe'], [0]), { minLength: 300, maxLength: 400 });
    let treaps = 0;
    let arraysAgain = 0;
    fc.assert(
      fc.property(grow, shrink, (a, b) => {
        if (isTreap(check(a, 1000), 0)) treaps++;
        if (!isTreap(check([...a, ...b], 1000), 0)) arraysAgain++;
      }),
      { numRuns: 20 },
    );
    expect(treaps).toBeGreaterThan(10);
    expect(arraysAgain).toBeGreaterThan(10);
  });
});
