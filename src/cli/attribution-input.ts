import { z } from 'zod';
import { GROUP_BY } from '../attribution/types.js';
import { intArg } from './options.js';

/** The zod fields of --group-by, --top and --stack-depth (the flag checks are in attribution-flags.ts). */
export const attributionFields = {
  groupBy: z.enum(GROUP_BY as unknown as [string, ...string[]]).optional(),
  top: intArg.refine((n) => n >= 1 && n <= 1000, 'between 1 and 1000').optional(),
  stackDepth: intArg.refine((n) => n >= 1 && n <= 100, 'between 1 and 100').optional(),
};

export { addAttributionOptions, attributionOptions, type AttributionFlags } from './attribution-flags.js';
