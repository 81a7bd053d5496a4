import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers.js';

const dir = tempDir();
function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
const event = (fields: Record<string, unknown>): string => JSON.stringify(fields);

describe('format detection', () => {
  it('reads JSON Lines whose first line is longer than the bytes the detection looks at', () => {
    const id = 'x'.repeat(70 * 1024);
    const body = [event({ op: 'alloc', id, size: 10, step: 0 }), event({ op: 'free', id, step: 0 })].join('\n') + '\n';
    for (const name of ['long.jsonl', 'long.txt']) {
      const r = runCli(['validate', file(name, body)]);
      expect({ name, code: r.code, stderr: r.stderr }).toEqual({ name, code: 0, stderr: '' });
      expect(r.stdout).toContain(`${name} (jsonl): 2 events`);
    }
  });

  it('still reads a one-line memsim JSON document and a pretty-printed one as JSON', () => {
    const doc = { format: 'memsim-trace', version: 1, meta: {}, events: [{ op: 'alloc', id: 'a', size: 5 }, { op: 'free', id: 'a' }] };
    expect(runCli(['validate', file('one-line.txt', JSON.stringify(doc) + '\n')]).stdout).toContain('(json): 2 events');
    expect(runCli(['validate', file('pretty.txt', JSON.stringify(doc, null, 2))]).stdout).toContain('(json): 2 events');
  });

  it('names the flag that sets the input format when it cannot tell', () => {
    const r = runCli(['validate', file('prose.txt', 'hello world\nfoo\n')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('name it with --input-format');
    expect(r.stderr).not.toMatch(/use --format/);
  });

  it('accepts a UTF-8 byte order mark in JSON and JSON Lines, as in CSV', () => {
    const bom = '\ufeff';
    const json = file('bom.json', `${bom}{"format":"memsim-trace","version":1,"events":[{"op":"alloc","id":"a","size":5}]}`);
    const jsonl = file('bom.jsonl', `${bom}${event({ op: 'alloc', id: 'a', size: 5 })}\n${event({ op: 'free', id: 'a' })}\n`);
    expect(runCli(['validate', json]).stdout).toContain('bom.json (json): 1 events');
    expect(runCli(['validate', jsonl]).stdout).toContain('bom.jsonl (jsonl): 2 events');
  });
});

describe('where a problem is', () => {
  it('names the event by its index when a JSON trace is on one line (as Python json.dump writes it)', () => {
    const events = [{ op: 'alloc', id: 'a', size: 5 }, { op: 'alloc', id: 'a', size: 5 }, { op: 'free', id: 'zz' }, { op: 'alloc', id: 'b', size: -5 }];
    const r = runCli(['validate', file('one.json', JSON.stringify({ format: 'memsim-trace', version: 1, events }))]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('one.json:1: events[1]: field "id": alloc of id "a" which is still live');
    expect(r.stderr).toContain('one.json:1: events[2]: field "id": free of id "zz" which was never allocated');
    expect(r.stderr).toContain('one.json:1: events[3]: field "size": size must not be negative, got -5');
    const bare = runCli(['validate', file('bare.json', JSON.stringify([{ op: 'alloc', id: 'a', size: 1 }, { op: 'alloc', id: 'b', size: 1.5 }]))]);
    expect(bare.stderr).toContain('bare.json:1: [1]: field "size": size must be an integer number of bytes, got 1.5');
  });

  it('leaves the index out where each event has a line of its own', () => {
    const text = ['[', event({ op: 'alloc', id: 'a', size: 1 }) + ',', event({ op: 'alloc', id: 'b', size: -1 }), ']'].join('\n');
    const r = runCli(['validate', file('lines.json', text)]);
    expect(r.stderr).toContain('lines.json:3: field "size": size must not be negative, got -1');
  });
});

describe('numbers beyond 2^53', () => {
  it('quotes them back exactly as written, and says what is wrong with them', () => {
    const json = runCli(['validate', file('big.json', '[{"op":"alloc","id":"a","size":9007199254740993}]')]);
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('field "size": size 9007199254740993 is beyond 2^53 - 1 (9,007,199,254,740,991) bytes');
    const csv = runCli(['validate', file('big.csv', 'op,id,size,step\nalloc,a,9007199254740993,0\nalloc,b,1,90071992547409931\n')]);
    expect(csv.stderr).toContain('big.csv:2:9: field "size": size 9007199254740993 is beyond 2^53 - 1');
    expect(csv.stderr).toContain('big.csv:3:11: field "step": step 90071992547409931 is beyond 2^53 - 1');
    const plan = runCli(['plan', file('records.csv', 'id,lower,upper,size\n1,0,2,1e18\n')]);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain('records.csv:2: field "size": 1000000000000000000 is beyond 2^53 - 1');
    expect(plan.stderr).not.toContain('not an integer');
  });

  it('keeps integer ids beyond 2^53 apart: they are names, not quantities', () => {
    const r = runCli(['validate', file('ids.json', '[{"op":"alloc","id":9007199254740993,"size":1},{"op":"alloc","id":9007199254740992,"size":1}]')]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('2 allocs');
  });
});

describe('ids that are not text', () => {
  it('refuses a CSV id that is not valid UTF-8, naming the byte, instead of merging distinct ids on output', () => {
    const path = file('latin1.csv', Buffer.concat([Buffer.from('op,id,size\nalloc,a'), Buffer.from([0xff]), Buffer.from(',10\nalloc,a'), Buffer.from([0xfe]), Buffer.from(',20\n')]));
    for (const args of [['validate', path], ['convert', path, join(dir, 'out.jsonl')]]) {
      const r = runCli(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('latin1.csv:2: field "id": id is not valid UTF-8 (byte 0xff at byte 2 of the id)');
      expect(r.stderr).toContain('latin1.csv:3: field "id": id is not valid UTF-8 (byte 0xfe at byte 2 of the id)');
    }
    expect(runCli(['validate', file('utf8.csv', 'op,id,size\nalloc,é€😀,10\nalloc,é€,10\n')]).code).toBe(0);
  });
});

describe('advice that works where it is given', () => {
  it("compare's advice for lifetime-pool names a configuration that compare accepts", () => {
    const trace = join(ROOT, 'traces', 'training.json');
    const first = runCli(['compare', trace, '--allocators', 'lifetime-pool', '--format', 'json']);
    const notes = (JSON.parse(first.stdout) as { notes?: string[]; rows?: { notes?: string[] }[] });
    const text = JSON.stringify(notes);
    const advice = /'(lifetime-pool\[[^\]]+\])'/.exec(text)?.[1];
    expect(advice).toBeDefined();
    const again = runCli(['compare', trace, '--allocators', advice as string, '--format', 'json']);
    expect(again.stderr).not.toMatch(/memsim: (?!gate)/);
    expect([0, 1]).toContain(again.code);
    expect(JSON.stringify(JSON.parse(again.stdout))).not.toContain('the pools were never built: start_step');
  });
});

describe('advice that compare accepts', () => {
  it('names no --option in its notes, and every configuration it suggests runs', () => {
    const trace = join(ROOT, 'traces', 'inference.jsonl');
    const first = runCli(['compare', trace, '--allocators', 'naive,bfc,caching,lifetime-pool', '--format', 'json']);
    const text = JSON.stringify(JSON.parse(first.stdout));
    expect(text).toContain('bfc assumed a memory limit');
    expect(text).not.toContain('--option');
    const advice = [...text.matchAll(/'([a-z-]+\[[^\]]+\])'/g)].map((m) => (m[1] as string).replace('…', '8GiB'));
    expect(advice).toContain('bfc[allow_growth=true]');
    for (const a of advice) {
      const again = runCli(['compare', trace, '--allocators', a, '--format', 'json']);
      expect({ a, stderr: again.stderr }).toEqual({ a, stderr: '' });
    }
  });
});

describe('one prefix, plain words', () => {
  it('says what the operating system refused in words, never its errno code', () => {
    const missing = runCli(['replay', join(dir, 'nope.csv')]);
    expect(missing.stderr).toContain('nope.csv: cannot open: no such file or directory');
    const directory = runCli(['replay', dir]);
    expect(directory.code).toBe(2);
    expect(directory.stderr).toContain(': cannot read: is a directory');
    // The temporary directory's random name may hold capitals of its own: leave the paths out.
    const words = `${missing.stderr}${directory.stderr}`.split(dir).join('');
    expect(words).not.toMatch(/E[A-Z]{3,}/);
  });

  it('puts the usage errors of the command line under the same prefix', () => {
    for (const args of [['replay', '--bogus'], ['bogus'], ['replay']]) {
      const r = runCli(args);
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(/^memsim: /);
      expect(r.stderr).not.toMatch(/^error: /m);
    }
  });
});
