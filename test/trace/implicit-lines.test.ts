import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../../src/errors.js';
import { renderJson } from '../../src/report/json.js';
import { replay, replayFeed } from '../../src/sim/run.js';
import { writeBinaryTrace } from '../../src/trace/binary/write.js';
import { eventSource } from '../../src/trace/location.js';
import { lineColumn, lineOf } from '../../src/trace/model.js';
import { TraceFeed } from '../../src/trace/pipeline/feed.js';
import { readTrace } from '../../src/trace/read.js';
import { fileWriter, tempDir } from '../helpers.js';

// A trace whose every event's line is its index plus a constant keeps no line column (Trace.line is
// null); the first event off that rule gives it one, filled for the events before it.

const dir = tempDir();
const write = fileWriter(dir);

/** `n` allocs of 1 KiB (ids 0..n-1, never freed) as CSV lines, after a header. */
function allocs(n: number): string[] {
  return ['op,id,size,step', ...Array.from({ length: n }, (_, k) => `alloc,${k},1024,${k >> 8}`)];
}

/** The 1-based line of each event of CSV `lines` (lines that are not events passed over). */
function eventLines(lines: string[]): number[] {
  const out: number[] = [];
  lines.forEach((l, k) => {
    if (k > 0 && l !== '' && !l.startsWith('#')) out.push(k + 1);
  });
  return out;
}

function problemsOf(path: string): string[] {
  try {
    readTrace(path);
  } catch (e) {
    if (e instanceof TraceError) return e.problems.map((p) => `${p.line}: ${p.message}`);
    throw e;
  }
  return [];
}

describe('implicit line column', () => {
  it('a CSV or JSON Lines trace of one event a line keeps no line column, and says each event\'s line', () => {
    const csv = readTrace(write(allocs(5000).join('\n') + '\n'));
    expect(csv.line).toBeNull();
    expect(csv.lineBase).toBe(2);
    expect([lineOf(csv, 0), lineOf(csv, 4999), eventSource(csv, 4999).line]).toEqual([2, 5001, 5001]);
    const jsonl = readTrace(write(['{"op":"alloc","id":"a","size":4}', '{"op":"free","id":"a"}'].join('\n') + '\n', 'jsonl'));
    expect(jsonl.line).toBeNull();
    expect(Array.from(lineColumn(jsonl))).toEqual([1, 2]);
  });

  it('a blank line or comment in the middle of a large file: the column from there, the same lines, the same problems', () => {
    const lines = allocs(100_000);
    lines.splice(60_001, 0, '');
    lines.splice(80_001, 0, '# a comment');
    // A double alloc after the blank line of an allocation before it; a free of an unknown id after it.
    lines.push('alloc,123,8,999', 'free,nope,,999');
    const p = write(lines.join('\n') + '\n');
    const problems = problemsOf(p);
    expect(problems).toEqual([
      `${lines.length - 1}: alloc of id "123" which is still live (allocated at line 125)`,
      `${lines.length}: free of id "nope" which was never allocated`,
    ]);
    const t = readTrace(write(lines.slice(0, -2).join('\n') + '\n'));
    expect(t.line).not.toBeNull();
    expect(Array.from(lineColumn(t))).toEqual(eventLines(lines.slice(0, -2)));
    // A binary trace stores the lines as a column: the same ones.
    const mst = join(dir, 'lines.mst');
    writeBinaryTrace(readTrace(write(allocs(300).join('\n') + '\n')), mst);
    expect(Array.from(lineColumn(readTrace(mst)))).toEqual(eventLines(allocs(300)));
  });

  it('read on another thread, with the column made mid-read: the OOMs name the lines reading first names', async () => {
    const lines = allocs(6000);
    lines.splice(3001, 0, '', '# comment');
    const p = write(lines.join('\n') + '\n');
    const want = eventLines(lines);
    for (const capacityBytes of [2 ** 20, 4 * 2 ** 20]) {
      const run = { allocator: 'naive', capacityBytes, onOom: 'stop' as const };
      const seq = replay(readTrace(p), run).report;
      const feed = await TraceFeed.open(p, {}, 512);
      if (!feed) throw new Error('no reading thread (run npm run build)');
      const piped = (await replayFeed(feed, run)).report;
      expect(renderJson(piped)).toBe(renderJson(seq));
      const [oom] = (JSON.parse(renderJson(seq)) as { ooms: { event: number; line: number }[] }).ooms;
      expect(oom?.event).toBeGreaterThan(capacityBytes > 2 ** 20 ? 3000 : 0);
      expect(oom?.line).toBe(want[oom?.event ?? -1]);
    }
  });
});
