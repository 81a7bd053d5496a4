/**
 * Output: every byte memsim writes (reports, traces, placements, pages) goes through one writer that
 * fills slow pipes, stops quietly when the reader goes away, and names the file when a disk is full.
 */
export { OutputFile, writeText } from './output-file.js';
export { writeFully } from './write-fully.js';
