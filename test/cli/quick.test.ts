import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheFileName, isQuickLine } from '../../src/cli/quick-loader.js';
import { FIXTURES, ROOT, runCli, tempDir } from '../helpers.js';

const WHOLE_CLI = join(ROOT, 'dist', 'cli-bundle', 'index.js');
const QUICK_BUNDLE = join(ROOT, 'dist', 'quick-bundle');

/** The whole CLI (dist/cli-bundle/), which every command line ran before the quick bundle. */
function runWholeCli(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [WHOLE_CLI, ...args], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Copies of the quick bundle, in dist/ (its modules find the package's files and dependencies from there). */
const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the quick bundle, without its code cache unless `withCache`. */
function copyBundle(withCache: boolean): string {
  const dir = mkdtempSync(join(ROOT, 'dist', 'quick-test-'));
  copies.push(dir);
  cpSync(QUICK_BUNDLE, dir, { recursive: true, filter: (src) => withCache || !src.includes('.v8-cache') });
  return dir;
}

/**
 * Runs a script in a plain `node` (no flags, as a user runs memsim) that loads a copy of the quick
 * bundle with the cache directory given, runs a command line, and prints what the loader did.
 */
function runCopy(bundleDir: string, cacheDir: string, args: string[]): { code: number; stdout: string; stderr: string; loader: { fromCache: string[]; fromSource: string[]; code: number } } {
  const dir = tempDir();
  const script = join(dir, 'run.mjs');
  writeFileSync(
    script,
    [
      `import { createRequire } from 'node:module';`,
      `const { CodeCachedBundle, runQuick } = createRequire(import.meta.url)(${JSON.stringify(join(QUICK_BUNDLE, 'loader.cjs'))});`,
      `const bundle = new CodeCachedBundle(${JSON.stringify(bundleDir)}, ${JSON.stringify(cacheDir)});`,
      `const code = await runQuick(['node', 'memsim', ...${JSON.stringify(args)}], bundle);`,
      `process.on('exit', () => process.stderr.write('\\nLOADER ' + JSON.stringify({ fromCache: bundle.fromCache, fromSource: bundle.fromSource, code })));`,
    ].join('\n'),
  );
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' };
  delete env['NODE_OPTIONS'];
  const r = spawnSync(process.execPath, [script], { encoding: 'utf8', cwd: ROOT, env });
  const at = r.stderr.lastIndexOf('\nLOADER ');
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr.slice(0, at), loader: JSON.parse(r.stderr.slice(at + 8)) };
}

describe('the quick bundle (memsim --version, replay, plan and compare)', () => {
  const ten = join(FIXTURES, 'three-steps.csv');

  it('runs exactly the command lines it has the code for', () => {
    const line = (...args: string[]) => isQuickLine(['node', 'memsim', ...args]);
    expect(line('--version')).toBe(true);
    expect(line('-V')).toBe(true);
    expect(line('replay', 'x.csv')).toBe(true);
    expect(line('replay', '--help')).toBe(true);
    expect(line('plan', 'x.csv')).toBe(true);
    expect(line('--version', 'replay')).toBe(false);
    expect(line('compare', 'x.csv')).toBe(true);
    expect(line('tune', 'x.csv')).toBe(false);
    expect(line('--help')).toBe(false);
    expect(line()).toBe(false);
  });

  it.each([
    [['--version']],
    [['-V']],
    [['replay', join(FIXTURES, 'three-steps.csv')]],
    [['replay', join(FIXTURES, 'three-steps.json'), '--allocator', 'bfc', '--format', 'json']],
    [['replay', join(FIXTURES, 'three-steps.jsonl'), '--format', 'markdown']],
    [['replay', '--help']],
    [['replay', join(FIXTURES, 'three-steps.csv'), '--bogus']],
    [['replay', join(FIXTURES, 'no-such-trace.csv')]],
    [['replay', join(FIXTURES, 'three-steps.csv'), '--allocator', 'no-such-allocator']],
    [['plan', join(FIXTURES, 'three-steps.csv')]],
    [['plan', join(FIXTURES, 'three-steps.json'), '--strategy', 'greedy-by-size:offsets,xla-best-fit', '--format', 'csv']],
    [['plan', join(FIXTURES, 'planners', 'minimalloc-inclusive-end.csv'), '--strategy', 'best', '--format', 'json']],
    [['plan', join(FIXTURES, 'three-steps.csv'), '--strategy', 'no-such-strategy']],
    [['plan', join(FIXTURES, 'no-such-trace.csv')]],
    [['plan', '--help']],
    [['compare', join(FIXTURES, 'three-steps.csv')]],
    [['compare', join(FIXTURES, 'three-steps.json'), '--format', 'json', '--jobs', '2']],
    [['compare', join(FIXTURES, 'three-steps.jsonl'), '--allocators', 'naive,bfc,plan:best', '--format', 'markdown', '--min-capacity']],
    [['compare', join(FIXTURES, 'three-steps.csv'), '--capacity', '1KiB', '--fail-on', 'oom', '--format', 'bench-json']],
    [['compare', join(FIXTURES, 'three-steps.csv'), '--allocators', 'no-such-allocator']],
    [['compare', join(FIXTURES, 'no-such-trace.csv')]],
    [['compare', '--help']],
  ])('memsim %j writes what the whole CLI writes, byte for byte, with its exit code', (args) => {
    const quick = runCli(args);
    const whole = runWholeCli(args);
    expect(quick).toEqual(whole);
  });

  it.each(['replay', 'compare'])('hands %s --format html to the whole CLI, which writes the same page', (command) => {
    const dir = tempDir();
    const quick = runCli([command, ten, '--format', 'html', '--output', join(dir, 'quick.html')]);
    const whole = runWholeCli([command, ten, '--format=html', '--output', join(dir, 'whole.html')]);
    expect(quick.code).toBe(0);
    expect(whole.code).toBe(0);
    const page = readFileSync(join(dir, 'quick.html'), 'utf8');
    expect(page).toContain('<html');
    expect(page).toBe(readFileSync(join(dir, 'whole.html'), 'utf8'));
  });

  it("runs compare from its code cache, in chunks that --version and replay do not load", () => {
    const bundle = copyBundle(true);
    const cache = join(bundle, '.v8-cache');
    const loaded = (args: string[]): string[] => {
      const r = runCopy(bundle, cache, args);
      expect(r.code).toBe(0);
      expect(r.loader.code).toBe(0);
      expect(r.loader.fromSource).toEqual([]);
      return r.loader.fromCache;
    };
    const compare = loaded(['compare', ten, '--format', 'json']);
    const others = new Set([...loaded(['--version']), ...loaded(['replay', ten])]);
    const own = compare.filter((m) => !others.has(m));
    expect(own.some((m) => m.startsWith('compare-'))).toBe(true);
    expect(own.some((m) => m.startsWith('bfc-'))).toBe(true);
  });

  it('writes its code cache when it has none, and then compiles every module it loads from it', () => {
    const bundle = copyBundle(false);
    const cache = join(bundle, '.v8-cache');
    const first = runCopy(bundle, cache, ['replay', ten]);
    expect(first.code).toBe(0);
    expect(first.loader.fromCache).toEqual([]);
    expect(first.loader.fromSource).toContain('index.cjs');
    expect(readdirSync(cache).sort()).toEqual(first.loader.fromSource.map(cacheFileName).sort());
    const second = runCopy(bundle, cache, ['replay', ten]);
    expect(second.loader.fromSource).toEqual([]);
    expect(second.loader.fromCache.sort()).toEqual(first.loader.fromSource.sort());
    expect(second.stdout).toBe(first.stdout);
    expect(second.stdout).toBe(runWholeCli(['replay', ten]).stdout);
  });

  it('compiles from source when a cache file is not one (garbage, cut short, empty) and writes a good one', () => {
    const bundle = copyBundle(true);
    const cache = join(bundle, '.v8-cache');
    const entry = join(cache, cacheFileName('index.cjs'));
    const good = readFileSync(entry);
    for (const bad of [Buffer.from('not a code cache'), good.subarray(0, good.length >> 1), Buffer.alloc(0)]) {
      writeFileSync(entry, bad);
      const r = runCopy(bundle, cache, ['--version']);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(runWholeCli(['--version']).stdout);
      expect(r.loader.fromSource).toEqual(['index.cjs']);
      expect(readFileSync(entry).length).toBeGreaterThan(bad.length);
      expect(runCopy(bundle, cache, ['--version']).loader.fromSource).toEqual([]);
    }
  });

  it('runs without a cache where none can be written', () => {
    const bundle = copyBundle(false);
    const file = join(bundle, 'a-file');
    writeFileSync(file, '');
    const cache = join(file, 'cache'); // under a file: no directory can be made there
    const r = runCopy(bundle, cache, ['replay', ten]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(runWholeCli(['replay', ten]).stdout);
    expect(existsSync(cache)).toBe(false);
  });

  it('leaves a command line to the whole CLI when there is no quick bundle', () => {
    const r = runCopy(join(tempDir(), 'nothing-here'), join(tempDir(), 'cache'), ['--version']);
    expect(r.loader.code).toBeUndefined();
    expect(r.stdout).toBe('');
  });

  it('says how to build a copy of the package that was never built, without a stack trace', () => {
    const pkg = tempDir();
    cpSync(join(ROOT, 'bin'), join(pkg, 'bin'), { recursive: true });
    const r = spawnSync(process.execPath, [join(pkg, 'bin', 'memsim.js'), 'replay', 'x.csv'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('memsim: this copy is not built (no dist/quick-bundle/loader.cjs): run `npm install` or `npm run build` in it\n');
  });
});
