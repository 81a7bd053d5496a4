import { readFileSync } from 'node:fs';
import { packageFile } from './util/package-root.js';

/** memsim's version, from its package.json (reports carry it). */
export const VERSION: string = (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
