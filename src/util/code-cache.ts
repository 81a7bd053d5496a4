/**
 * Bundles of CommonJS modules that V8 compiles from a code cache kept beside them: the quick bundle
 * of the CLI (src/cli/quick-loader.ts) and the reading thread of a pipelined replay
 * (src/trace/pipeline/reader-start.ts). Node 20 keeps no code cache for ES modules.
 */
import { createRequire } from 'node:module';
import type * as Fs from 'node:fs';
import type * as Path from 'node:path';
import type * as Url from 'node:url';
import type * as Vm from 'node:vm';

// Through require, not import: the ES module facade of node:fs loads its streams, some milliseconds
// of a start-up that this module exists to shorten.
const nodeRequire = createRequire(import.meta.url);
const fs = nodeRequire('node:fs') as typeof Fs;
const path = nodeRequire('node:path') as typeof Path;
const vm = nodeRequire('node:vm') as typeof Vm;
const url = nodeRequire('node:url') as typeof Url;

/** The name of a module's code cache: V8's cache fits one Node version and architecture. */
export function cacheFileName(module: string): string {
  return `${module}.${process.version}-${process.arch}.v8cache`;
}

/**
 * A CommonJS bundle (the modules of one directory, which require one another by `./name`) whose
 * modules V8 compiles from a code cache kept beside them, in `cacheDir`: ES modules cannot use one
 * on Node 20, and compiling memsim's replay path takes longer than running a small replay.
 *
 * A cache that V8 rejects (another Node, other V8 flags, another source) is ignored: the module
 * compiles from source, as without one. The cache of a module that had none or a rejected one is
 * written by `writeCache` (the CLI calls it when the process exits, the reading thread before its
 * last message), with the functions that the run compiled so far, unless
 * Node runs with flags of its own (their cache would not fit a plain run); a directory that cannot
 * be written is left alone. Each file is written whole under a temporary name and then renamed,
 * so that concurrent runs never read half a cache.
 */
export class CodeCachedBundle {
  /** The modules loaded so far whose code V8 took from the cache, and those it compiled from source. */
  readonly fromCache: string[] = [];
  readonly fromSource: string[] = [];
  private readonly modules = new Map<string, { exports: unknown }>();
  private readonly uncached: { script: Vm.Script; file: string }[] = [];
  private readonly outside: NodeJS.Require;

  constructor(
    readonly dir: string,
    readonly cacheDir: string,
  ) {
    this.outside = createRequire(path.join(dir, 'package.json'));
  }

  /** The bundle of directory `dir`, its code cache in `dir/.v8-cache`. */
  static inDir(dir: string): CodeCachedBundle {
    return new CodeCachedBundle(dir, path.join(dir, '.v8-cache'));
  }

  /** The bundle of the directory that holds the module at `moduleUrl` (a thread's bundled entry). */
  static beside(moduleUrl: string): CodeCachedBundle {
    return CodeCachedBundle.inDir(path.dirname(url.fileURLToPath(moduleUrl)));
  }

  /** The exports of a module of the bundle, e.g. `index.cjs`, loaded once. */
  load(name: string): unknown {
    const known = this.modules.get(name);
    if (known) return known.exports;
    const file = path.join(this.dir, name);
    const source = fs.readFileSync(file, 'utf8');
    const cacheFile = path.join(this.cacheDir, cacheFileName(name));
    let cachedData: Buffer | undefined;
    try {
      cachedData = fs.readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
      filename: file,
      ...(cachedData ? { cachedData } : {}),
    });
    if (!cachedData || script.cachedDataRejected) {
      this.fromSource.push(name);
      this.uncached.push({ script, file: cacheFile });
    } else {
      this.fromCache.push(name);
    }
    const module = { exports: {} as unknown };
    this.modules.set(name, module);
    const run = script.runInThisContext() as (exports: unknown, require: (id: string) => unknown, module: { exports: unknown }, filename: string, dirname: string) => void;
    run(module.exports, (id) => this.require(id), module, file, this.dir);
    return module.exports;
  }

  /** `require` inside the bundle: `./name` is a module of the bundle, anything else Node's. */
  private require(id: string): unknown {
    return id.startsWith('./') ? this.load(id.slice(2)) : this.outside(id);
  }

  /** Writes the code cache of the modules that had none that fit; never throws. */
  writeCache(): void {
    if (this.uncached.length === 0 || process.execArgv.length > 0 || process.env['NODE_OPTIONS']) return;
    try {
      fs.mkdirSync(this.cacheDir, { recursive: true });
    } catch {
      return;
    }
    for (const { script, file } of this.uncached) {
      const temporary = `${file}.${process.pid}.tmp`;
      try {
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, file);
      } catch {
        try {
          fs.rmSync(temporary, { force: true });
        } catch {
          // nothing to clean up
        }
      }
    }
    this.uncached.length = 0;
  }
}
