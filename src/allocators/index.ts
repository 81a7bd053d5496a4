/**
 * The allocator registry, filled once with every allocator memsim knows (the catalog in `catalog.ts`
 * names them); commands, help and validation read the registry. Importing this module loads them
 * all; a command that runs one allocator imports the registry and loads that one from the catalog.
 */
import { loadAllAllocators } from './registry.js';

await loadAllAllocators();

export { allocatorConfiguration, getAllocator, listAllocators, resolveOptions, describeOptionKind, isRegistered } from './registry.js';
export { loadAllocator, loadAllAllocators } from './registry.js';
export type { ResolvedOptions } from './registry.js';
export * from './types.js';
export { opt, optionSchema, badValue, OptionValueError } from './options.js';
export type { OptionSpec, OptionKind, OptionValues, OptionSchema, OptionParse } from './options.js';
export { SimDevice, DEFAULT_DEVICE_BASE } from './device.js';
