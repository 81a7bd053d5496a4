/**
 * Every allocator memsim knows, by name, with the module that defines it, in the order
 * `memsim allocators` lists them. The registry loads them from here: all of them for the library and
 * for commands that list or compare allocators; only the one it runs for `replay`, so that start-up
 * does not pay for the others. Adding an allocator means one module and one line here.
 */
import type { AllocatorDefinition } from './types.js';

const def = (d: unknown): AllocatorDefinition => d as AllocatorDefinition;

/** Name -> the definition's module. */
export const ALLOCATOR_CATALOG: Readonly<Record<string, () => Promise<AllocatorDefinition>>> = {
  naive: async () => def((await import('./naive.js')).naive),
  bfc: async () => def((await import('./bfc/index.js')).bfc),
  caching: async () => def((await import('./caching/index.js')).caching),
  'lifetime-pool': async () => def((await import('./lifetime-pool/index.js')).lifetimePool),
  recorded: async () => def((await import('./recorded.js')).recorded),
};
