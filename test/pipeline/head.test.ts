import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderJson } from '../../src/report/json.js';
import { replay, replayFeed } from '../../src/sim/run.js';
import { TraceFeed } from '../../src/trace/pipeline/feed.js';
import { HeadReading } from '../../src/trace/pipeline/head.js';
import { readTrace } from '../../src/trace/read.js';
import { fileWriter, tempDir } from '../helpers.js';
import { lineColumn } from '../../src/trace/model.js';

// The first events of a CSV trace, read on the replaying thread while the reading thread starts,
// are the first events of the trace that thread reads: a replay that goes from the ones to the
// others gives the report of the trace read first, byte for byte.

const dir = tempDir();
const write = fileWriter(dir, 'h');

/** A trace of `events` events or a few more: decimal and other ids, tags, steps, sizes that vary. */
function trace(events: number, header = 'op,id,size,step,tag'): string {
  const lines = [header];
  const live: number[] = [];
  let x = 7;
  for (let k = 0; lines.length <= events; k++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    if (live.length > 40 || (live.length > 0 && x % 3 === 0)) {
      const id = live.splice(x % live.length, 1)[0] as number;
      lines.push(`free,${id % 5 === 0 ? `w${id}` : id},,${k >> 12},`);
    } else {
      live.push(k);
      lines.push(`alloc,${k % 5 === 0 ? `w${k}` : k},${(x % 8192) * 512 + 1},${k >> 12},${k % 9 === 0 ? `g${k % 4}` : ''}`);
    }
  }
  return lines.join('\n') + '\n';
}

describe('the head of a CSV trace read on the replaying thread', () => {
  it('holds the first events of the trace, as reading it whole gives them: columns, allocations, ids, tags', () => {
    const p = write(trace(30_000));
    const want = readTrace(p);
    const head = HeadReading.open(p);
    if (!head) throw new Error('no head');
    let steps = 0;
    while (head.length < 10_000 && head.advance()) steps++;
    expect(steps).toBeGreaterThan(1);
    const got = head.partial();
    const n = got.length;
    expect(n).toBeGreaterThanOrEqual(10_000);
    expect([...got.op.subarray(0, n)]).toEqual([...want.op.subarray(0, n)]);
    expect([...got.alloc.subarray(0, n)]).toEqual([...want.alloc.subarray(0, n)]);
    expect([...got.size.subarray(0, n)]).toEqual([...want.size.subarray(0, n)]);
    expect([...got.step.subarray(0, n)]).toEqual([...want.step.subarray(0, n)]);
    expect([...lineColumn(got).subarray(0, n)]).toEqual([...lineColumn(want).subarray(0, n)]);
    expect([...(got.tag ?? []).slice(0, n)]).toEqual([...(want.tag ?? []).slice(0, n)]);
    expect(want.tags.slice(0, got.tags.length)).toEqual(got.tags);
    for (let a = 0; a < got.allocCount; a++) expect(got.ids.get(a)).toBe(want.ids.get(a));
    head.close();
  });

  it('ends at the first record that is not a plain one, and at the end of the file', () => {
    const lines = trace(3000).split('\n');
    lines.splice(1201, 0, '# a comment');
    const p = write(lines.join('\n'));
    const head = HeadReading.open(p);
    while (head?.advance());
    expect(head?.length).toBe(1200);
    const whole = HeadReading.open(write(trace(3000)));
    while (whole?.advance());
    expect(whole?.length).toBe(readTrace(write(trace(3000))).length);
  });

  it('a head that ends before the thread has read as many events: polled as the replay polls, the trace never goes back', async () => {
    // The comment ends the head at 2,000 events, while the feed opens, before the thread has booted;
    // the thread then posts its events after 1, 2, 4, 8, 16 and every 16 events, all of them at first
    // fewer than the head's.
    const lines = trace(20_000).split('\n');
    lines.splice(2001, 0, '# a comment');
    const p = write(lines.join('\n'));
    const feed = await TraceFeed.open(p, {}, 16);
    if (!feed) throw new Error('no reading thread (run npm run build)');
    let replayed = feed.trace.length;
    expect(replayed).toBe(2000);
    const lengths: number[] = [];
    for (let n = feed.poll(replayed, 5000); n >= 0; n = feed.poll(replayed, 5000)) {
      lengths.push(n);
      expect(feed.trace.length).toBe(n);
      expect(n).toBeGreaterThanOrEqual(replayed);
      replayed = n;
    }
    expect(lengths.length).toBeGreaterThan(1);
    expect(replayed).toBe(readTrace(p).length);
    feed.close();
  });

  it('is not read from a file that is not a CSV trace, or whose header is not in order', () => {
    expect(HeadReading.open(write('{"op":"alloc","id":"a","size":1}\n{"op":"free","id":"a"}\n', 'jsonl'))).toBeUndefined();
    expect(HeadReading.open(write('op,id\nalloc,a\n'))).toBeUndefined();
    expect(HeadReading.open(join(dir, 'absent.csv'))).toBeUndefined();
  });

  it('a trace longer than the head, one whose head ends early, one with a problem past it: the report and placements of reading first', async () => {
    const long = write(trace(260_000));
    const comment = trace(20_000).split('\n');
    comment.splice(5000, 0, '"alloc",q,1,1,');
    const quoted = write(comment.join('\n'));
    const bad = write(trace(20_000).replace(/\nfree,(\d+),,/, '\nfree,nope$1,,'));
    for (const p of [long, quoted, bad]) {
      let seq: string;
      const placedSeq: string[] = [];
      try {
        const t = readTrace(p);
        seq = renderJson(replay(t, { allocator: 'bfc', onPlacement: (e, a, addr) => placedSeq.push(`${e},${t.ids.get(a)},${addr}`) }).report);
      } catch (e) {
        seq = `error: ${(e as Error).message}`;
      }
      const feed = await TraceFeed.open(p);
      if (!feed) throw new Error('no reading thread (run npm run build)');
      const placed: string[] = [];
      let piped: string;
      try {
        piped = renderJson((await replayFeed(feed, { allocator: 'bfc', onPlacement: (e, a, addr) => placed.push(`${e},${feed.trace.ids.get(a)},${addr}`) })).report);
      } catch (e) {
        piped = `error: ${(e as Error).message}`;
      }
      expect(piped).toBe(seq);
      if (!seq.startsWith('error')) expect(placed).toEqual(placedSeq);
    }
  });
});
