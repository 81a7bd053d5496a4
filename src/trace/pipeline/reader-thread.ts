/**
 * The reading thread of a pipelined replay (see reader-work.ts), as built in `dist/`: the entry that
 * runs where the bundled one (reader-start.ts) is not built.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ReaderInit } from './protocol.js';
import { poster, readAndPost } from './reader-work.js';

const init = workerData as ReaderInit;
void readAndPost(init, poster(init, parentPort as NonNullable<typeof parentPort>));
