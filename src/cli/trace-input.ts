import { z } from 'zod';

/** The zod fields of the options every command that reads a trace takes. */
export const traceInputFields = {
  lenient: z.boolean().default(false),
  inputFormat: z.string().optional(),
  device: z.string().regex(/^\d+$/, 'expected a device number').transform(Number).optional(),
  allocatorName: z.string().min(1, 'expected an allocator name').optional(),
};

export { addTraceInputOptions, readOptions, type TraceInputOptions } from './trace-flags.js';
