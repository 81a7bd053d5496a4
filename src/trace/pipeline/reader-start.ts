/**
 * The entry of the bundled reading thread (dist/reader-bundle/start.cjs, see scripts/bundle.mjs): it
 * loads the thread's code (reader-work.ts, bundled as CommonJS beside it) through V8's code cache,
 * as the CLI loads its quick bundle, so that the thread starts reading some milliseconds sooner than
 * from ES modules, which also need Node's module loader started on the thread. A module that had no
 * cache that fits gets one written before the thread's last message.
 */
import { createRequire } from 'node:module';
import type * as Threads from 'node:worker_threads';
import { CodeCachedBundle } from '../../util/code-cache.js';
import type { ReaderInit } from './protocol.js';
import type * as Work from './reader-work.js';

const nodeRequire = createRequire(import.meta.url);
const threads = nodeRequire('node:worker_threads') as typeof Threads;

/** The bundled module of reader-work.ts, beside this one. */
export const READER_WORK_MODULE = 'reader-work.cjs';

const bundle = CodeCachedBundle.beside(import.meta.url);
const { poster, readAndPost } = bundle.load(READER_WORK_MODULE) as typeof Work;
const init = threads.workerData as ReaderInit;
void readAndPost(init, poster(init, threads.parentPort as NonNullable<typeof threads.parentPort>), () => bundle.writeCache());
