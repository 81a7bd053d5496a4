export * from './model.js';
export { TraceBuilder, type BuildOptions } from './builder.js';
export { readTrace, detectReader } from './read.js';
export { registerReader, traceReaders, type TraceReader, type ReadOptions } from './readers.js';
export { ByteSource } from './source.js';
export { TraceWriter, writeTrace, type EventSink, type WriteFormat } from './write.js';
export { traceFromEvents, type EventObject } from './from-events.js';
export { IdTable, StringInterner } from './id-table.js';
