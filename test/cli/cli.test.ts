import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempDir } from '../helpers.js';

const fixture = join(FIXTURES, 'three-steps.json');

describe('memsim replay', () => {
  it('prints a text report and exits 0 when the trace fits', () => {
    const r = runCli(['replay', fixture]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('memsim replay · naive');
    expect(r.stdout).toContain('✔ fits: peak reserved 4.00 MiB (capacity 8.00 MiB), lower bound 2.86 MiB');
    expect(r.stdout).toContain('per step');
    expect(r.stdout).toMatch(/reserved [▁▂▃▄▅▆▇█ ]+ 4\.00 MiB/);
    expect(r.stdout).not.toContain('\x1b[');
    expect(r.stderr).toBe('');
  });

  it('writes byte-identical JSON across runs, with the memsim.replay/1 fields', () => {
    const a = runCli(['replay', fixture, '--format', 'json']);
    const b = runCli(['replay', fixture, '--format', 'json']);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    const j = JSON.parse(a.stdout);
    expect(Object.keys(j)).toEqual(['schema', 'tool', 'trace', 'allocator', 'capacityBytes', 'completed', 'summary', 'ooms', 'steps', 'timeline', 'notes', 'attribution']);
    expect(j.schema).toBe('memsim.replay/1');
    expect(j.trace).toMatchObject({ format: 'json', events: 7, allocs: 4, frees: 3, steps: 3, skipped: { unknownFree: 0, doubleAlloc: 0 } });
    expect(j.allocator).toMatchObject({ name: 'naive', options: { alignment: 512, page: 2097152, large_threshold: 1048576 } });
  });

  it('exits 1 on an OOM with the gate on the last stderr line, 0 with --allow-oom', () => {
    const r = runCli(['replay', fixture, '--capacity', '3MiB']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✘ 1 OOM at event 1 (line 7) — fragmentation');
    expect(r.stdout).toContain('cudaMalloc(4194304) failed: cudaErrorMemoryAllocation: out of memory');
    const last = r.stderr.trim().split('\n').pop();
    expect(last).toBe(
      'memsim: gate failed: replay with naive hit 1 OOM(s); the first at event 1 (line 7): 2.86 MiB requested with 1000 B live, 1.00 KiB reserved, capacity 3.00 MiB (fragmentation); --allow-oom accepts it',
    );
    expect(runCli(['replay', fixture, '--capacity', '3MiB', '--allow-oom']).code).toBe(0);
  });

  it('writes markdown with the status line first, and files with --output and --placements', () => {
    const dir = tempDir();
    const md = join(dir, 'r.md');
    const pl = join(dir, 'p.csv');
    const r = runCli(['replay', fixture, '--format', 'markdown', '--output', md, '--placements', pl]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(md, 'utf8').split('\n')[0]).toBe('**✅ fits** with `naive`: peak reserved 4.00 MiB (capacity 8.00 MiB), lower bound 2.86 MiB');
    expect(readFileSync(pl, 'utf8')).toBe(
      ['event,id,address,sizeBytes,allocatedBytes', '0,w,0x7f0000000000,1000,1024', '1,a,0x7f0000200000,3000000,4194304', '3,b,0x7f0000000400,512,512', '4,7,0x7f0000200000,1048577,2097152', ''].join('\n'),
    );
  });

  it('takes allocator options with --option and rejects bad ones with exit 2', () => {
    const ok = runCli(['replay', fixture, '--format', 'json', '--option', 'alignment=1KiB,page=1MiB']);
    expect(JSON.parse(ok.stdout).allocator.options).toEqual({ alignment: 1024, page: 1048576, large_threshold: 1048576 });
    const bad = runCli(['replay', fixture, '--option', 'pages=1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('memsim: allocator "naive" has no option "pages" (its options: alignment, page, large_threshold)\n');
    const cap = runCli(['replay', fixture, '--capacity', 'lots']);
    expect(cap.code).toBe(2);
    expect(cap.stderr).toContain('--capacity: "lots" is not a byte size');
  });

  it('reports invalid input with file and line, exit 2 and no stack trace', () => {
    const dir = tempDir();
    const p = join(dir, 'bad.csv');
    writeFileSync(p, 'op,id,size\nalloc,a,-5\nfree,b,\n');
    const r = runCli(['replay', p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `memsim: invalid input (2 problems):\n${p}:2:9: field "size": size must not be negative, got -5\n${p}:3: field "id": free of id "b" which was never allocated\n`,
    );
    const missing = runCli(['replay', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.json: cannot open: no such file or directory');
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });

  it('reads a trace from stdin', () => {
    const r = runCli(['replay', '-', '--format', 'json'], { input: readFileSync(join(FIXTURES, 'three-steps.csv'), 'utf8') });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).trace.format).toBe('csv');
  });

  it('shows usage errors for unknown commands and flags with exit 2', () => {
    expect(runCli(['nonsense']).code).toBe(2);
    expect(runCli(['replay', fixture, '--frobnicate']).code).toBe(2);
    expect(runCli(['--help']).code).toBe(0);
    expect(runCli(['replay', '--help']).stdout).toContain('Examples:');
  });
});

describe('memsim validate', () => {
  it('prints one line for a valid trace', () => {
    const r = runCli(['validate', fixture]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`ok ${fixture} (json): 7 events, 4 allocs, 3 frees, 3 steps, peak live 2.86 MiB at event 1, 1 still live at the end (1000 B)\n`);
  });

  it('lists every problem and exits 2; --lenient counts the skipped ones', () => {
    const dir = tempDir();
    const p = join(dir, 'sem.jsonl');
    writeFileSync(p, '{"op":"alloc","id":1,"size":4}\n{"op":"alloc","id":1,"size":4}\n{"op":"free","id":2}\n');
    const r = runCli(['validate', p]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n').slice(1, 3)).toEqual([
      `${p}:2: field "id": alloc of id "1" which is still live (allocated at line 1)`,
      `${p}:3: field "id": free of id "2" which was never allocated`,
    ]);
    const l = runCli(['validate', p, '--lenient']);
    expect(l.code).toBe(0);
    expect(l.stdout).toContain('skipped 1 frees of non-live ids and 1 allocs of live ids');
  });
});

describe('memsim allocators', () => {
  it('lists every registered allocator with its options from the registry', () => {
    const r = runCli(['allocators', '--format', 'json']);
    const list = JSON.parse(r.stdout) as { name: string; options: { name: string; default: unknown }[] }[];
    const naive = list.find((a) => a.name === 'naive')!;
    expect(naive.options.map((o) => [o.name, o.default])).toEqual([['alignment', 512], ['page', 2097152], ['large_threshold', 1048576]]);
    expect(runCli(['allocators']).stdout).toContain('naive — every request straight to the device');
  });
});

describe('memsim gen and convert', () => {
  it('gen is byte-identical for the same seed and differs for another', () => {
    const a = runCli(['gen', 'training', '--seed', '3', '--steps', '2']);
    const b = runCli(['gen', 'training', '--seed', '3', '--steps', '2']);
    const c = runCli(['gen', 'training', '--seed', '4', '--steps', '2']);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).not.toBe(c.stdout);
  });

  it('gen training --seq-len gives every step the same shapes; other workloads refuse it', () => {
    const sizesByStep = (csv: string): Map<number, string> => {
      const m = new Map<number, string[]>();
      for (const row of csv.split('\n').slice(2)) {
        const [op, , size, step] = row.split(',');
        if (op === 'alloc' && Number(step) > 0) m.set(Number(step), [...(m.get(Number(step)) ?? []), size!]);
      }
      return new Map([...m].map(([k, v]) => [k, v.join(' ')]));
    };
    const fixed = sizesByStep(runCli(['gen', 'training', '--steps', '4', '--layers', '2', '--seq-len', '768', '--format', 'csv']).stdout);
    expect(new Set(fixed.values()).size).toBe(1);
    // the embedding output of 8 sequences of 768 tokens, 1024 wide, in bf16
    expect(fixed.get(1)!.split(' ')).toContain(String(8 * 768 * 1024 * 2));
    const drawn = sizesByStep(runCli(['gen', 'training', '--steps', '4', '--layers', '2', '--format', 'csv']).stdout);
    expect(new Set(drawn.values()).size).toBeGreaterThan(1);
    const r = runCli(['gen', 'inference', '--seq-len', '512']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--seq-len is an option of the training workload, not of inference');
    expect(runCli(['gen', 'fragmentation', '--layers', '7']).stderr).toBe('memsim: --layers is an option of the training and inference workloads, not of fragmentation\n');
  });

  it('gen --events comes within a step of the count asked for, for every workload; seeds past 32 bits are refused', () => {
    const out = join(tempDir(), 'g.jsonl');
    for (const w of ['training', 'inference', 'fragmentation']) {
      expect(runCli(['gen', w, '--events', '20000', '--format', 'jsonl', '--output', out]).code).toBe(0);
      const events = readFileSync(out, 'utf8').trimEnd().split('\n').length - 1; // less the header line
      expect(events, w).toBeGreaterThanOrEqual(20000 * 0.97);
      expect(events, w).toBeLessThanOrEqual(20000 * 1.03);
    }
    const big = runCli(['gen', 'inference', '--seed', String(2 ** 32), '--steps', '2']);
    expect(big.code).toBe(2);
    expect(big.stderr).toBe("memsim: --seed must be at most 4294967295 (seeds are 32-bit: a larger one would repeat a smaller one's trace)\n");
    expect(runCli(['gen', 'inference', '--seed', String(2 ** 32 - 1), '--steps', '2']).code).toBe(0);
  });

  it("gen's meta.source is the command line that writes the same trace", () => {
    const r = runCli(['gen', 'training', '--steps', '2', '--capacity', '1GiB', '--format', 'jsonl']);
    const source = JSON.parse(r.stdout.split('\n')[0] as string).meta.source as string;
    expect(source).toBe('memsim gen training --seed 1 --steps 2 --capacity 1073741824');
    expect(runCli([...source.split(' ').slice(1), '--format', 'jsonl']).stdout).toBe(r.stdout);
  });

  it.each(['training', 'inference', 'fragmentation'])('gen %s writes a valid trace in every format', (w) => {
    const dir = tempDir();
    for (const f of ['json', 'jsonl', 'csv']) {
      const out = join(dir, `t.${f}`);
      expect(runCli(['gen', w, '--steps', '3', '--format', f, '--output', out]).code).toBe(0);
      expect(runCli(['validate', out]).code).toBe(0);
    }
    const j = JSON.parse(runCli(['replay', join(dir, 't.json'), '--format', 'json']).stdout);
    const c = JSON.parse(runCli(['replay', join(dir, 't.csv'), '--format', 'json']).stdout);
    expect(c.summary).toEqual(j.summary);
  });

  it('convert round-trips between formats', () => {
    const dir = tempDir();
    const csv = join(dir, 'a.csv');
    const jsonl = join(dir, 'b.jsonl');
    expect(runCli(['convert', fixture, csv]).code).toBe(0);
    expect(runCli(['convert', csv, jsonl]).code).toBe(0);
    const a = JSON.parse(runCli(['replay', fixture, '--format', 'json', '--capacity', '8MiB']).stdout);
    const b = JSON.parse(runCli(['replay', jsonl, '--format', 'json', '--capacity', '8MiB']).stdout);
    expect(b.summary).toEqual(a.summary);
    expect(b.steps).toEqual(a.steps);
  });
});
