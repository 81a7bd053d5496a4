import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

/**
 * The layers of DESIGN.md: each folder of src/ may import only the folders listed for it (and
 * itself, and the shared top-level modules errors.ts and version.ts). Data flows one way.
 */
const ALLOWED: Record<string, readonly string[]> = {
  cli: ['report', 'diff', 'sweep', 'sim', 'attribution', 'allocators', 'planners', 'gen', 'trace', 'output', 'util'],
  report: ['diff', 'sweep', 'sim', 'attribution', 'allocators', 'planners', 'trace', 'util'],
  diff: ['sweep', 'sim', 'attribution', 'allocators', 'trace', 'util'],
  sweep: ['sim', 'attribution', 'allocators', 'planners', 'trace', 'util'],
  sim: ['attribution', 'allocators', 'trace', 'util'],
  attribution: ['trace', 'util'],
  allocators: ['trace', 'util'],
  planners: ['trace', 'util'],
  gen: ['trace', 'util'],
  trace: ['output', 'util'],
  output: ['util'],
  util: [],
};
const SHARED = new Set(['errors.ts', 'version.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The top-level part of src/ that a path lies in: a folder name, or a file name at the top. */
function layerOf(path: string): string {
  return relative(join(ROOT, 'src'), path).split(sep)[0] as string;
}

describe('layers', () => {
  const files = sources(join(ROOT, 'src')).filter((f) => layerOf(f) in ALLOWED);

  it('finds the layers it checks', () => {
    expect(new Set(files.map(layerOf))).toEqual(new Set(Object.keys(ALLOWED)));
  });

  it('no module imports a layer above its own', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = resolve(dirname(file), m[1] as string).replace(/\.js$/, '.ts');
        const to = layerOf(target);
        if (to === from || SHARED.has(to)) continue;
        if (!(ALLOWED[from] as readonly string[]).includes(to)) upward.push(`${relative(ROOT, file)} imports ${m[1]}`);
      }
    }
    expect(upward).toEqual([]);
  });
});
