/**
 * The reading thread of a pipelined replay (see reader-work.ts), as built in `dist/`: the entry that
 * runs where the bundled one (reader-start.ts) is not built.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ReaderInit } from './protocol.js';
import { readAndPost } from './reader-work.js';

const port = parentPort as NonNullable<typeof parentPort>;
void readAndPost(workerData as ReaderInit, (m, move) => port.postMessage(m, move));
