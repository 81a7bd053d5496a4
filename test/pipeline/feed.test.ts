import type { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../../src/errors.js';
import { renderJson } from '../../src/report/json.js';
import { replay, replayFeed, type RunOptions, warmUpAhead } from '../../src/sim/run.js';
import { readEarly } from '../../src/trace/pipeline/early.js';
import { takeEarlyReading } from '../../src/trace/pipeline/early-slot.js';
import { TraceFeed } from '../../src/trace/pipeline/feed.js';
import { PIPELINE_EVERY } from '../../src/trace/pipeline/protocol.js';
import { movedBuffers } from '../../src/trace/pipeline/reader-work.js';
import { readTrace } from '../../src/trace/read.js';
import { readWholeTrace } from '../../src/cli/early-workers.js';
import { compareTrace } from '../../src/sweep/compare.js';
import { fileWriter, tempDir } from '../helpers.js';

// A trace read on another thread while it is replayed gives the report of the trace read first,
// byte for byte, and the same problems.

const dir = tempDir();
const write = fileWriter(dir);

/** Both ways: the report's JSON and the placements each saw (or the error each threw). */
async function both(path: string, run: RunOptions, every = 7): Promise<[string, string]> {
  const once = async (read: () => Promise<string[]>): Promise<string> => {
    try {
      return (await read()).join('\n');
    } catch (e) {
      return e instanceof TraceError ? `error: ${e.message}` : `other: ${String(e)}`;
    }
  };
  const seq = await once(async () => {
    const placed: string[] = [];
    const trace = readTrace(path);
    const r = replay(trace, { ...run, onPlacement: (ev, a, addr) => placed.push(`${ev},${trace.ids.get(a)},${addr}`) });
    return [renderJson(r.report), ...placed];
  });
  const piped = await once(async () => {
    const feed = await TraceFeed.open(path, {}, every);
    if (!feed) throw new Error('no reading thread (run npm run build)');
    const placed: string[] = [];
    const r = await replayFeed(feed, { ...run, onPlacement: (ev, a, addr) => placed.push(`${ev},${feed.trace.ids.get(a)},${addr}`) });
    return [renderJson(r.report), ...placed];
  });
  return [piped, seq];
}

const row = fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 5 << 20 }), fc.nat(2), fc.constantFrom('', 'w', 'x.y'));

describe('replaying a trace while another thread reads it', () => {
  it('any trace, allocator and capacity: the same report and placements (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 120 }),
        fc.constantFrom('naive', 'bfc[memory_limit=64MiB]', 'caching', 'bfc', 'lifetime-pool'),
        fc.constantFrom(undefined, 24 << 20),
        fc.constantFrom<'stop' | 'continue'>('stop', 'continue'),
        async (rows, allocator, capacityBytes, onOom) => {
          const lines = ['op,id,size,step,tag'];
          const live = new Set<number>();
          let step = 0;
          for (const [isAlloc, id, size, d, tag] of rows) {
            step += d === 2 ? 1 : 0;
            if (isAlloc && !live.has(id)) {
              live.add(id);
              lines.push(`alloc,${id % 3 === 0 ? `t${id}` : id},${size},${step},${tag}`);
            } else if (live.has(id)) {
              live.delete(id);
              lines.push(`free,${id % 3 === 0 ? `t${id}` : id},,${step},`);
            }
          }
          const [piped, seq] = await both(write(lines.join('\n') + '\n'), { allocator, onOom, ...(capacityBytes ? { capacityBytes } : {}) });
          expect(piped).toBe(seq);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('a trace that outgrows its columns\' first room, with OOMs, through every allocator', async () => {
    const lines = ['op,id,size,step,tag,stream'];
    let x = 12345;
    const live: number[] = [];
    for (let k = 0; k < 12_000; k++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      if (live.length > 0 && x % 3 === 0) {
        const id = live.splice(x % live.length, 1)[0] as number;
        lines.push(`free,${id},,${k >> 9},,`);
      } else {
        live.push(k);
        lines.push(`alloc,${k},${(x % 4096) * 1024 + 1},${k >> 9},${k % 50 === 0 ? 'big' : ''},${k % 7 === 0 ? 1 : 0}`);
      }
    }
    const p = write(lines.join('\n') + '\n');
    for (const allocator of ['naive', 'bfc', 'caching', 'lifetime-pool']) {
      const [piped, seq] = await both(p, { allocator, capacityBytes: 2 ** 30, onOom: 'continue' }, 1000);
      expect(seq).toContain('"oomCount"');
      expect(piped).toBe(seq);
    }
  });

  it('ids, decimal or not, whose index moves to the replaying thread with the last message: the same ids and lookups', async () => {
    const n = 30_000;
    const encoder = new TextEncoder();
    const names: [(k: number) => string, boolean][] = [
      // Numbered as allocated: the index is the identity, kept implicit (nothing to move).
      [(k) => String(k), false],
      [(k) => String(k + 7), true],
      [(k) => `t${(k * 7919) % 100_003}x`, true],
    ];
    for (const [name, indexed] of names) {
      const lines = ['op,id,size,step'];
      for (let k = 0; k < n; k++) lines.push(`alloc,${name(k)},${(k % 1000) + 1},${k >> 10}`);
      for (let k = 0; k < n; k += 2) lines.push(`free,${name(k)},,${n >> 10}`);
      const p = write(lines.join('\n') + '\n');
      const want = readTrace(p);
      // The index is an ordinary array, large enough to be moved rather than copied.
      const moved = movedBuffers(want).reduce((s, b) => s + b.byteLength, 0);
      if (indexed) expect(moved).toBeGreaterThanOrEqual(4 * n);
      else expect(moved).toBe(0);
      const [piped, seq] = await both(p, { allocator: 'bfc' }, 4096);
      expect(piped).toBe(seq);
      const feed = await TraceFeed.open(p, {}, 4096);
      if (!feed) throw new Error('no reading thread (run npm run build)');
      const trace = await feed.finish();
      expect(trace.ids.toArray()).toEqual(want.ids.toArray());
      for (const k of [0, 1, 12_345, n - 1]) {
        const id = encoder.encode(name(k));
        expect(trace.ids.lookup(id, 0, id.length)).toBe(want.ids.lookup(id, 0, id.length));
      }
      expect(trace.ids.lookup(encoder.encode('absent'), 0, 6)).toBe(want.ids.lookup(encoder.encode('absent'), 0, 6));
    }
  });

  it('problems anywhere in the file are the ones reading it first finds', async () => {
    const body = Array.from({ length: 200 }, (_, k) => `alloc,${k},${k + 1},0\nfree,${k},,0`).join('\n');
    const p = write(`op,id,size,step\n${body}\nfree,nope,,1\nalloc,7,x,1\n`);
    const [piped, seq] = await both(p, { allocator: 'naive' });
    expect(seq).toContain('error: ');
    expect(piped).toBe(seq);
  });

  it('JSON Lines with a capacity in its header', async () => {
    const events = Array.from({ length: 100 }, (_, k) => `{"op":"alloc","id":"a${k}","size":${(k + 1) << 16},"step":${k >> 4}}`);
    const p = write(`{"format":"memsim-trace","version":1,"meta":{"capacityBytes":104857600}}\n${events.join('\n')}\n`, 'jsonl');
    const [piped, seq] = await both(p, { allocator: 'caching', onOom: 'continue' }, 3);
    expect(seq).toContain('"capacityBytes": 104857600');
    expect(piped).toBe(seq);
  });

  describe('a reading thread started before the CLI loads', () => {
    const body = Array.from({ length: 3000 }, (_, k) => `alloc,${k},${(k % 97) * 4096 + 1},${k >> 8}${k % 3 === 0 ? `\nfree,${k},,${k >> 8}` : ''}`).join('\n');
    const csv = write(`op,id,size,step\n${body}\n`);
    const argv = (...rest: string[]): string[] => ['node', 'memsim', 'replay', ...rest];
    const init = { path: csv, every: PIPELINE_EVERY, options: { lenient: false } };
    const expected = renderJson(replay(readTrace(csv), { allocator: 'caching' }).report);
    const threadOfEarly = (): number | undefined => (globalThis as Record<symbol, { worker: Worker } | undefined>)[Symbol.for('memsim.earlyReading')]?.worker.threadId;
    const threadOf = (feed: TraceFeed | null): number => (feed as unknown as { worker: Worker }).worker.threadId;

    it('is taken over by a feed of the same file read alike, messages that came before included', async () => {
      await readEarly(argv(csv, '-a', 'caching', '--placements', csv), 0);
      // The thread reads the whole file and ends before the feed opens: everything it said is kept.
      await new Promise((r) => setTimeout(r, 500));
      const early = threadOfEarly();
      const feed = await TraceFeed.open(csv, { lenient: false });
      expect(threadOf(feed)).toBe(early);
      expect(takeEarlyReading(csv, init)).toBeUndefined();
      // The allocator warmed up while the thread starts, not again by the replay: the same report.
      expect(warmUpAhead({ allocator: 'caching' }, csv)).toBe(true);
      expect(renderJson((await replayFeed(feed as TraceFeed, { allocator: 'caching' }, true)).report)).toBe(expected);
    });

    it('is stopped, and another thread reads, when the feed reads otherwise', async () => {
      await readEarly(argv('-a', 'caching', csv), 0);
      const early = threadOfEarly();
      const feed = await TraceFeed.open(csv, { lenient: true });
      expect(threadOf(feed)).not.toBe(early);
      expect(takeEarlyReading(csv, init)).toBeUndefined();
      expect(renderJson((await replayFeed(feed as TraceFeed, { allocator: 'caching' })).report)).toBe(expected);
    });

    it('is taken over by a compare, which reads the whole trace with it', async () => {
      await readEarly(['node', 'memsim', 'compare', csv], 0);
      const early = threadOfEarly();
      expect(early).toBeDefined();
      const rows = { allocators: ['naive', 'caching'], jobs: 1 };
      const trace = await readWholeTrace(csv, { lenient: false }, 0);
      expect(threadOfEarly()).toBeUndefined();
      expect(renderJson((await compareTrace(trace, rows)).report)).toBe(renderJson((await compareTrace(readTrace(csv), rows)).report));
    });

    it('starts only for a replay of one streamed file, large enough, read as by default', async () => {
      const small = write('op,id,size\nalloc,a,1\n');
      for (const line of [
        argv(csv, '--format', 'html'),
        argv(csv, '--input-format=csv'),
        argv(csv, '--lenient'),
        argv(csv, small),
        ['node', 'memsim', 'validate', csv],
        argv(write('{"op":"alloc","id":"a","size":1}\n', 'json')),
      ]) {
        await readEarly(line, 0);
        expect(takeEarlyReading(csv, init), line.join(' ')).toBeUndefined();
      }
      await readEarly(argv(csv), 1 << 30);
      expect(takeEarlyReading(csv, init)).toBeUndefined();
      await readEarly(argv(csv, '--output', small), 0);
      const early = takeEarlyReading(csv, init);
      expect(early?.file).toBe(csv);
      await early?.worker.terminate();
    });
  });
});
