#!/usr/bin/env node
// A large trace to replay starts reading on another thread before the CLI loads (see
// src/trace/pipeline/early.ts): the thread boots meanwhile.
import { readEarly } from '../dist/trace/pipeline/early.js';

await readEarly(process.argv);
await import('../dist/cli-bundle/index.js');
