import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** memsim's version, from its package.json (reports carry it). */
export const VERSION: string = (require('../package.json') as { version: string }).version;
