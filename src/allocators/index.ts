/**
 * The allocator registry, filled once with every allocator memsim knows. Adding an allocator means
 * one module and one line here; commands, help and validation read the registry.
 */
import { bfc } from './bfc/index.js';
import { caching } from './caching/index.js';
import { lifetimePool } from './lifetime-pool/index.js';
import { naive } from './naive.js';
import { recorded } from './recorded.js';
import { registerAllocator } from './registry.js';

registerAllocator(naive);
registerAllocator(bfc);
registerAllocator(caching);
registerAllocator(lifetimePool);
registerAllocator(recorded);

export { allocatorConfiguration, getAllocator, listAllocators, resolveOptions, describeOptionKind } from './registry.js';
export type { ResolvedOptions } from './registry.js';
export * from './types.js';
export { opt } from './options.js';
export type { OptionSpec, OptionKind, OptionValues } from './options.js';
export { SimDevice, DEFAULT_DEVICE_BASE } from './device.js';
